// The build driver, the one entry point of every command that compiles: a module and a list
// of targets in, a program the executor runs out.
//
//   uma::build::build(module, {"vanilla --dimension=16", "c --threads=2"})
//
//   parse the targets: backends' in priority order (earlier wins), and one host ("c" when
//   none is named); each checked by its backend (the host's threads in [1, 1024])
//   PRE_PARTITIONING      each backend's passes, in the order of the targets, the host's last
//   partition             merge-composite → annotate-target → merge-compiler-regions →
//                         partition-graph, for all the backend targets at once, under the
//                         policy (greedy, or cost: the host's backend's cost against each
//                         target's); then the strict targets' check (no_fallback)
//   POST_PARTITIONING_0   each backend's passes
//   fuse-ops              the host's remaining ops grouped into fused functions (once)
//   POST_PARTITIONING_1   each backend's passes
//   lower, TIR_PHASE_0..3, codegen, plan, compile, load (uma/uma/build_stages.h): each
//   function with the strategies, schedules, passes (after the core's in each phase) and
//   codegen hooks of the backend that runs it (the host's backend, backends/cpu/, for the
//   fused ones), and its C sources and libraries in the link.
//
// Every backend callback gets the build's target of its kind, with the attributes set.
// partition_for_targets runs the stages up to POST_PARTITIONING_0 alone, to inspect them.
#pragma once

#include <string>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/uma/build_stages.h"
#include "uma/uma/partition_policy.h"
#include "uma/uma/target.h"

namespace uma {
class PartitionReport;
}  // namespace uma

// In namespace build, beside its stages: uma::build::build(module, targets).
namespace uma::build {

struct BuildTargets {
  std::vector<Target> backends;  // in priority order, the host's not among them
  Target host;
};

// Parses the targets of a build. Errors name the target text at fault: a kind without a
// registered backend, one its backend's check refuses, a kind named twice, two host
// targets.
Expected<BuildTargets> parse_targets(const Context& context, const std::vector<std::string>& texts);

// The compiler's options for the host target's code: `compiler` with the target's CPU
// (mcpu, when set; else the compiler's, this machine's by default) and features (mattr,
// comma-separated: "+avx2,-avx512f").
Expected<runtime::CCompilerOptions> host_compiler_options(const Target& host,
                                                          runtime::CCompilerOptions compiler = {});

struct BuildOptions {
  // Partitioning (see PartitionOptions).
  bool merge_regions = true;
  bool bind_constants = true;
  std::int64_t min_region_size = 0;
  std::vector<std::string> host_regions;
  // What of the matches the predicates accept is offloaded: all of them (greedy), or those
  // that cost no more than on the host (cost); and whether every accelerator target is
  // strict, as if its no_fallback were set (uma/uma/partition_policy.h).
  PartitionPolicy partition = PartitionPolicy::kGreedy;
  bool no_fallback = false;
  // Where partitioning records its decisions, when not null (begun anew for the targets).
  PartitionReport* report = nullptr;
  // Verification, --print-after and timing of graph and loop-IR passes, backends' too.
  PipelineOptions passes;
  // Where the build's C files go before they are compiled, when not empty.
  std::string emit_c;
  // The C compiler and its cache.
  runtime::CCompilerOptions compiler;
  std::size_t functions_per_file = 16;
  // When false, the build stops before the C compiler (HostBuildOptions::compile).
  bool compile = true;
};

// PRE_PARTITIONING, partitioning and POST_PARTITIONING_0 for the targets.
Status partition_for_targets(Module& module, const BuildTargets& targets,
                             const BuildOptions& options = {});

// The whole build. The module is changed in place (partitioned and fused). The result
// lists each generated function with the target that runs it.
Expected<HostBuild> build(Module& module, const BuildTargets& targets,
                          const BuildOptions& options = {});
Expected<HostBuild> build(Module& module, const std::vector<std::string>& targets,
                          const BuildOptions& options = {});

}  // namespace uma::build
