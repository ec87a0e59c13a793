// What the commands that compile a model share (uma run --compiled, uma bench): the build's
// command-line options, the build with its summary printed, and the program loaded into an
// executor.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "policy_option.h"
#include "report_output.h"
#include "uma/runtime/executor.h"
#include "uma/uma/build.h"

namespace uma::tool {

struct CompileOptions {
  std::vector<std::string> targets;
  int threads = 1;
  std::string cflags;
  std::string cache_dir;
  std::vector<std::string> print_after;
  bool timing = false;
  std::string emit_c;
  ReportOutput report{.format = "none"};
  PolicyOptions policy;
  // The backends' regions to keep on the host, by the names of their functions (not an
  // option: uma run --bisect sets it).
  std::vector<std::string> host_regions;
};

// Adds --threads, --cflags, --cache-dir, --target (or --targets), the partition policy's and
// the report's options to `command`.
void add_compile_options(CLI::App& command, CompileOptions& options);

// Builds @main for the targets (the host alone when none is given), printing nothing but
// the IR --print-after asks for. The module is changed (see build::build).
Expected<build::HostBuild> build_model(Module& module, const CompileOptions& options,
                                       PartitionReport& report,
                                       std::vector<PassTiming>* pass_timings = nullptr);

// Builds @main for the targets (the host alone when none is given), and prints what the
// build did: the partition report and which target runs what (with --target), its calls,
// arena and weights, the time of its stages. The module is changed (see build::build). The
// partition report is left in `report` when it is not null.
Expected<build::HostBuild> compile_model(Module& module, const CompileOptions& options,
                                         PartitionReport* report = nullptr);

// An executor of a built program, and what loading took: the library (opened by the build,
// its "load" stage) and the calls' inits (the executor's creation).
struct LoadedProgram {
  std::unique_ptr<runtime::Executor> executor;
  std::chrono::nanoseconds library{0}, init{0};
};
Expected<LoadedProgram> load_program(const build::HostBuild& built);

// Milliseconds, for printing.
double to_ms(std::chrono::nanoseconds elapsed);

}  // namespace uma::tool
