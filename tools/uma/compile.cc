// Building a model for the commands that run it compiled (see compile.h).
#include "compile.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

#include "progress.h"
#include "python_plugin.h"
#include "target_option.h"
#include "uma/partition/report.h"
#include "uma/support/printable.h"
#include "uma/uma/context.h"

namespace uma::tool {
namespace {

// Prints which target runs each generated function, one line per target.
void print_offload(const build::HostBuild& built) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_target;
  for (const build::BuiltFunction& function : built.built) {
    auto it = std::find_if(by_target.begin(), by_target.end(),
                           [&](const auto& entry) { return entry.first == function.target; });
    if (it == by_target.end()) it = by_target.insert(by_target.end(), {function.target, {}});
    it->second.push_back(function.name);
  }
  for (const auto& [target, functions] : by_target) {
    std::string names;
    for (const std::string& name : functions)
      names += (names.empty() ? "@" : ", @") + printable(name);
    std::cout << fmt::format("offload: {} runs {} function(s): {}\n", target, functions.size(),
                             names);
  }
}

// The build's stages, then its passes: each pass's runs over every function summed, in the
// order the passes first ran, with its share of the whole build.
void print_build_timings(std::ostream& os, const std::vector<build::StageTiming>& stages,
                         const std::vector<PassTiming>& passes) {
  std::chrono::nanoseconds total{0};
  for (const build::StageTiming& t : stages) total += t.elapsed;
  auto share = [&](std::chrono::nanoseconds elapsed) {
    return total.count()
               ? 100.0 * static_cast<double>(elapsed.count()) / static_cast<double>(total.count())
               : 0.0;
  };
  os << "===-------------------------------------------===\n"
     << "  build timing report\n"
     << "===-------------------------------------------===\n"
     << fmt::format("  total: {:.3f} ms\n", to_ms(total)) << "   wall (ms)    share  stage\n";
  for (const build::StageTiming& t : stages)
    os << fmt::format("  {:10.3f}  {:6.1f}%  {}\n", to_ms(t.elapsed), share(t.elapsed), t.stage);
  struct PassSum {
    std::string pass;
    std::chrono::nanoseconds elapsed{0};
    std::size_t runs = 0, changed = 0;
  };
  std::vector<PassSum> sums;
  for (const PassTiming& t : passes) {
    auto it = std::find_if(sums.begin(), sums.end(),
                           [&](const PassSum& sum) { return sum.pass == t.pass; });
    if (it == sums.end()) it = sums.insert(sums.end(), {t.pass});
    it->elapsed += t.elapsed;
    ++it->runs;
    it->changed += t.changed;
  }
  os << "   wall (ms)    share    runs  changed  pass\n";
  for (const PassSum& sum : sums)
    os << fmt::format("  {:10.3f}  {:6.1f}%  {:6}  {:7}  {}\n", to_ms(sum.elapsed),
                      share(sum.elapsed), sum.runs, sum.changed, sum.pass);
}

}  // namespace

double to_ms(std::chrono::nanoseconds elapsed) {
  return static_cast<double>(elapsed.count()) / 1e6;
}

void add_compile_options(CLI::App& command, CompileOptions& options) {
  command
      .add_option("--threads", options.threads,
                  "Threads of the compiled code (more than 1: OpenMP parallel loops)")
      ->check(CLI::Range(1, 1024));
  command.add_option(
      "--cflags", options.cflags,
      "Extra flags for the C compiler, after the defaults (-march=<the target's mcpu, else "
      "native> -O2 -fPIC -std=c11 -fwrapv -fno-trapping-math)");
  command.add_option("--cache-dir", options.cache_dir,
                     "Folder of compiled objects (default: $XDG_CACHE_HOME/uma)");
  add_target_option(command, options.targets,
                    "Compile for this target: a backend's (\"vanilla --dimension=8\") or the "
                    "host's (\"c --threads=2\"); the host runs what no backend takes");
  add_policy_options(command, options.policy);
  add_report_options(command, options.report, "With --target: the partition report");
}

Expected<build::HostBuild> build_model(Module& module, const CompileOptions& options,
                                       PartitionReport& report,
                                       std::vector<PassTiming>* pass_timings) {
  runtime::CCompilerOptions compiler;
  std::istringstream flags(options.cflags);
  for (std::string flag; flags >> flag;) compiler.compile_flags.push_back(flag);
  compiler.cache_dir = options.cache_dir;
  // On a terminal, the line starts with the first file compiled.
  std::optional<Progress> progress;
  compiler.on_compiled = [&](std::size_t done, std::size_t total) {
    if (!progress) progress.emplace("compiling C");
    progress->update(done, total);
  };
  // The IR printed after passes goes to standard output, where the build's other lines go.
  PipelineOptions passes{
      .print_after = options.print_after, .print_stream = &std::cout, .timings = pass_timings};
  UMA_TRY_ASSIGN(build::BuildTargets targets,
                 build::parse_targets(module.context(), options.targets));
  // --threads is the host target's attribute, merged here once.
  if (options.threads != 1) {
    UMA_TRY_ASSIGN(std::int64_t host_threads, targets.host.get_int("threads"));
    if (host_threads != 1)
      return make_error("--threads and the target '{}' both set the threads: use one",
                        targets.host.str());
    UMA_TRY_ASSIGN(targets.host, module.context().target_kinds().parse(fmt::format(
                                     "{} --threads={}", kHostTargetKind, options.threads)));
  }
  build::BuildOptions build_options{.host_regions = options.host_regions,
                                    .partition = options.policy.partition,
                                    .no_fallback = options.policy.no_fallback,
                                    .report = &report,
                                    .passes = passes,
                                    .emit_c = options.emit_c,
                                    .compiler = compiler};
  Expected<build::HostBuild> built = build::build(module, targets, build_options);
  UMA_TRY(python_callback_failure());
  return built;
}

Expected<build::HostBuild> compile_model(Module& module, const CompileOptions& options,
                                         PartitionReport* report) {
  std::vector<PassTiming> pass_timings;
  PartitionReport own_report;
  if (report == nullptr) report = &own_report;
  UMA_TRY_ASSIGN(build::HostBuild built,
                 build_model(module, options, *report, options.timing ? &pass_timings : nullptr));
  if (!options.targets.empty()) {
    UMA_TRY(write_report(*report, options.report));
    print_offload(built);
  }
  const build::MemoryReport& memory = built.memory;
  std::cout << fmt::format(
      "compiled: {} call(s) of {} function(s) in {} C file(s) ({} compiled, {} cached); arena {} "
      "bytes for {} intermediate(s) (peak live {}, sum {}); weights {} bytes\n",
      built.program->calls.size(), built.functions, built.sources.size(),
      built.compiler_stats.compiled, built.compiler_stats.cache_hits, memory.arena_size,
      memory.buffers, memory.lower_bound, memory.total, built.program->weights.size());
  std::string stages;
  for (const build::StageTiming& t : built.timings)
    stages += fmt::format("{}{} {:.1f} ms", stages.empty() ? "" : ", ", t.stage, to_ms(t.elapsed));
  std::cout << "build: " << stages << "\n";
  if (!options.emit_c.empty())
    std::cout << fmt::format("wrote the build's {} C file(s) to {}\n", built.sources.size(),
                             printable_utf8(options.emit_c));
  if (options.timing) print_build_timings(std::cerr, built.timings, pass_timings);
  return built;
}

Expected<LoadedProgram> load_program(const build::HostBuild& built) {
  LoadedProgram loaded;
  for (const build::StageTiming& t : built.timings)
    if (t.stage == "load") loaded.library = t.elapsed;
  auto start = std::chrono::steady_clock::now();
  UMA_TRY_ASSIGN(loaded.executor, runtime::Executor::create(built.program));
  loaded.init = std::chrono::steady_clock::now() - start;
  return loaded;
}

}  // namespace uma::tool
