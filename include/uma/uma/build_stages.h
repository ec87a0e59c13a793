// The stages of a build after the graph: from a module whose @main calls only fused and
// partitioned functions to a program the executor runs in-process.
//
//   Module ── fuse-ops ──▶ host function calling Primitive functions (fuse_host_functions)
//          ── lower ─────▶ one tir::PrimFunc per called function (uma/lower/lower.h)
//          ── TIR_PHASE_0..3 ─▶ (uma/tir/phases.h)
//          ── codegen ───▶ C source (uma/codegen/c/c_codegen.h)
//          ── plan ──────▶ calls, arena offsets, weights (runtime::HostProgram)
//          ── compile ───▶ shared library (uma/runtime/c_compiler.h), loaded
//
// The build driver (uma/uma/build.h) runs fuse-ops with the graph phases, then
// build_program() (src/uma/build_stages.cc) the other stages in this order; each is also a
// function of its own below, so that a test can call it alone. Each function goes through
// the TargetPipeline of the backend that runs it: a partitioned one (Compiler =
// "<target>") its target's, a fused one the host backend's. The pipeline holds the
// backend's strategies and schedules, its loop-IR passes after the core's in each phase,
// its codegen hooks and its C sources; the driver fills it in from the backend.
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

// How the functions of one backend's target are built, beyond the core's stages.
struct TargetPipeline {
  std::string target;  // the Compiler attribute of its functions
  // The host backend's: it builds the functions that have no Compiler attribute.
  bool host = false;
  // Compute rules that replace the defaults inside these functions only (may be null).
  const lower::ComputeRegistry* overrides = nullptr;
  // Composites lowered to one extern call each, by composite name.
  lower::CompositeLowerings composite_lowerings;
  // For a target with memories, those calls tiled into them (empty: none).
  lower::CompositeTiler tiler;
  // The most elements of a constant written into these functions' code as immediates.
  std::int64_t max_immediate_elements = kMaxImmediateElements;
  // Runs on each function right after lowering, before TIR_PHASE_0 (the strategies' and
  // block schedules); may be empty.
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
  // When false, the build stops after plan: the program's calls have no functions (to look
  // at the C, or to fuzz every stage before the C compiler at its speed).
  bool compile = true;
  // The backends' pipelines, the host's among them. A function none of them takes (a
  // Compiler attribute naming none, or none and no host pipeline) gets the core stages
  // alone.
  std::vector<TargetPipeline> targets;
};

// A function called from the host, lowered.
struct LoweredCall {
  const Function* callee = nullptr;
  tir::PrimFunc func;
  // The index in HostBuildOptions::targets of the pipeline it goes through; nullopt: the
  // core stages alone.
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

// Lowers every function `host` calls (each once, in order of first call), each with its
// pipeline's overrides and after_lower. Errors name the call whose callee
// is not a function the host can run (a Primitive or partitioned one). With "lower" (or
// "all") in options.print_after, prints each function as lowered (before TIR_PHASE_0), as
// --print-after prints after a pass.
Expected<std::vector<LoweredCall>> lower_calls(const Function& host,
                                               const std::vector<TargetPipeline>& targets = {},
                                               const PipelineOptions& options = {});

// Runs the loop-IR phases on each lowered function: `core`, and for a function with a
// pipeline its passes after the core's in each phase.
Status run_tir_phases(std::vector<LoweredCall>& lowered, const tir::TirPipeline& core,
                      const std::vector<TargetPipeline>& targets = {},
                      const PipelineOptions& options = {});

struct GeneratedC {
  std::vector<runtime::CSourceFile> files;
  std::vector<std::string> symbols;  // the entry point of each lowered function
  // Its init and fini (uma/tir/state.h), empty when it has none.
  std::vector<std::string> init_symbols, fini_symbols;
};

// C for the lowered functions, at most `functions_per_file` per file, each pipeline's
// functions in files of their own ("<target>_<i>", "host_<i>" for the host's) with its
// hooks. Errors when two
// functions would export the same C symbol.
Expected<GeneratedC> generate_sources(const std::vector<LoweredCall>& lowered,
                                      const codegen::CCodegenOptions& options,
                                      std::size_t functions_per_file,
                                      const std::vector<TargetPipeline>& targets = {});

// The host function as a program: each call's arguments placed in the inputs, outputs,
// weights or arena (planned from the intermediates' lifetimes), and a function's state
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

// The stages from lower to load on @main, whose host functions are fused (and partitioned)
// already: the build driver's last step (uma/uma/build.h builds a module from the graph).
Expected<HostBuild> build_program(const Module& module, const HostBuildOptions& options = {});

}  // namespace uma::build
