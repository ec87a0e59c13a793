// Building a module for the host: from a canonicalized graph module to a program the
// executor runs in-process.
//
//   Module ── fuse-ops ──▶ host function calling Primitive functions
//          ── lower ─────▶ one tir::PrimFunc per called function (uma/lower/lower.h)
//          ── TIR_PHASE_0..3 ─▶ (uma/tir/phases.h)
//          ── codegen ───▶ C source (uma/codegen/c/c_codegen.h)
//          ── plan ──────▶ calls, arena offsets, weights blob (runtime::HostProgram)
//          ── compile ───▶ shared library (uma/runtime/c_compiler.h), loaded
//
// build_for_host() in src/build/host.cc runs the stages in this order; each is also a
// function of its own below, so that a test can call it alone. Functions partitioned for a
// backend's target (Compiler = "<target>") go through that target's TargetPipeline: its
// strategies, its loop-IR passes after the core's in each phase, its codegen hooks and its
// C sources. The UMA build driver (uma/uma/build.h) fills those in from the backends.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "uma/codegen/c/c_codegen.h"
#include "uma/graph/ir.h"
#include "uma/graph/pass.h"
#include "uma/lower/compute.h"
#include "uma/lower/lower.h"
#include "uma/runtime/c_compiler.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/memory_planner.h"
#include "uma/tir/phases.h"

namespace uma::build {

// How the functions of one backend target are built, beyond what the host's get.
struct TargetPipeline {
  std::string target;  // the Compiler attribute of its functions
  // Compute rules that replace the defaults inside these functions only (may be null).
  const lower::ComputeRegistry* overrides = nullptr;
  // Composites lowered to one extern call each, by composite name.
  lower::CompositeLowerings composite_lowerings;
  // The most elements of a constant written into these functions' code as immediates.
  std::int64_t max_immediate_elements = lower::kMaxImmediateElements;
  // Runs on each function right after lowering, before TIR_PHASE_0 (the strategies'
  // schedules); may be empty.
  std::function<Expected<tir::PrimFunc>(const Function&, tir::PrimFunc)> after_lower;
  // The backend's loop-IR passes, each phase's after the core's passes of that phase.
  tir::TirPipeline passes;
  codegen::CCodegenHooks hooks;
  // C compiled and linked with the generated code.
  std::vector<runtime::CSourceFile> sources;
  std::vector<std::string> include_dirs;
  std::vector<std::string> libraries;
};

struct HostBuildOptions {
  // Threads of the generated code. 1: serial C. More: each block's outermost loop is a
  // parallel loop, compiled with OpenMP and run on this many threads.
  int threads = 1;
  // The C compiler, its flags and the object cache (-O2 by default).
  runtime::CCompilerOptions compiler;
  // Verification after each graph and loop-IR pass, --print-after and pass timings, for both
  // kinds of pass.
  PipelineOptions passes;
  // When not empty, the C files of the build (generated and the backends') are written to
  // this folder before they are compiled (uma run --emit-c).
  std::string emit_c;
  // At most this many functions per generated C file: files compile in parallel and are
  // cached one by one.
  std::size_t functions_per_file = 16;
  // The backend targets' pipelines. A function whose Compiler attribute names none of them
  // is built as the host's are.
  std::vector<TargetPipeline> targets;
};

// A function called from the host, lowered.
struct LoweredCall {
  const Function* callee = nullptr;
  tir::PrimFunc func;
  // The index in HostBuildOptions::targets of the pipeline it goes through; nullopt: the
  // host's.
  std::optional<std::size_t> target;
};

// A generated function, and who runs it.
struct BuiltFunction {
  std::string name;    // the graph function's
  std::string symbol;  // the C symbol
  std::string target;  // the backend target, or "c" for the host
};

// The figures of a memory plan, for reports.
struct MemoryReport {
  std::size_t buffers = 0;      // intermediates placed in the arena
  std::int64_t arena_size = 0;  // bytes
  std::int64_t lower_bound = 0;
  std::int64_t total = 0;
};

struct StageTiming {
  std::string stage;  // "fuse-ops", "lower", "tir", "codegen", "plan", "compile", "load"
  std::chrono::nanoseconds elapsed{0};
};

struct HostBuild {
  std::shared_ptr<const runtime::HostProgram> program;
  std::size_t functions = 0;                  // generated functions
  std::vector<runtime::CSourceFile> sources;  // the generated C
  std::vector<BuiltFunction> built;           // in order of first call
  MemoryReport memory;
  std::vector<StageTiming> timings;
  runtime::CCompilerStats compiler_stats;
};

// fuse-ops on the module's host functions.
Status fuse_host_functions(Module& module, const PipelineOptions& options = {});

// Lowers every function `host` calls (each once, in order of first call), a backend
// target's with its pipeline's overrides and after_lower. Errors name the call whose callee
// is not a function the host can run (a Primitive or partitioned one).
Expected<std::vector<LoweredCall>> lower_calls(const Function& host,
                                               const std::vector<TargetPipeline>& targets = {});

// Runs the loop-IR phases on each lowered function: `core`, and for a backend target's
// function its passes after the core's in each phase.
Status run_tir_phases(std::vector<LoweredCall>& lowered, const tir::TirPipeline& core,
                      const std::vector<TargetPipeline>& targets = {},
                      const PipelineOptions& options = {});

struct GeneratedC {
  std::vector<runtime::CSourceFile> files;
  std::vector<std::string> symbols;  // the entry point of each lowered function
  // Its init and fini (uma/tir/state.h), empty when it has none.
  std::vector<std::string> init_symbols, fini_symbols;
};

// C for the lowered functions, at most `functions_per_file` per file, a backend target's
// functions in files of their own ("<target>_<i>") with its hooks. Errors when two
// functions would export the same C symbol.
Expected<GeneratedC> generate_sources(const std::vector<LoweredCall>& lowered,
                                      const codegen::CCodegenOptions& options,
                                      std::size_t functions_per_file,
                                      const std::vector<TargetPipeline>& targets = {});

// The host function as a program: each call's arguments placed in the inputs, outputs,
// weights blob or arena (planned from the intermediates' lifetimes), and a function's state
// (uma/tir/state.h) in each call's own part of the executor's state. Function pointers are
// left null: `callee[c]` is the index in `lowered` of what call c runs. Nodes the outputs do
// not need are left out. Errors name a host node the executor cannot run (an op outside any
// function).
struct PlannedHost {
  std::shared_ptr<runtime::HostProgram> program;
  std::vector<std::size_t> callee;
  runtime::MemoryPlan memory;
};
Expected<PlannedHost> plan_host(const Function& host, const std::vector<LoweredCall>& lowered);

// The whole pipeline on @main: the module is changed (fused) in place.
Expected<HostBuild> build_for_host(Module& module, const HostBuildOptions& options = {});

}  // namespace uma::build
