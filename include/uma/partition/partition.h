// Graph partitioning: cut a module into regions that targets (accelerators, libraries)
// take, and the rest that stays on the host, with the semantics of the BYOC passes:
//
//   merge-composite → annotate-target → merge-compiler-regions → partition-graph
//
// Each is a graph pass of its own (one file each in src/partition/), runnable from
// `uma opt` with options, e.g.
//   uma opt m.uma --passes='merge-composite{targets=test_conv},annotate-target{targets=test_conv},
//                           merge-compiler-regions,partition-graph'
//
// The passes record their decisions in the IR, so each stage prints and parses back:
// - merge-composite replaces each match by a `call` to a function with attributes
//   Composite = "<target>.<pattern>" and PartitionedFromPattern = "nn.conv2d_add_nn.relu_";
// - annotate-target sets the node attribute `uma.target` = "<target>" on the nodes a target
//   claims (attributes with a '.' are outside op schemas; see is_discardable_attr);
// - merge-compiler-regions sets `uma.region` = <id> on annotated nodes: one id per region;
// - partition-graph outlines each region (each annotated node alone when regions were not
//   merged) into a function with attributes Compiler = "<target>", global_symbol =
//   "<module>_<target>_main_<i>" (also its name), Primitive = 1, and calls it from the host
//   function, then removes the `uma.*` attributes.
//
// The passes work on the host functions: those with neither a Composite nor a Compiler
// attribute.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/pass.h"
#include "uma/pattern/pattern.h"
#include "uma/support/error.h"

namespace uma {

class Context;
class PartitionReport;

// Names of the attributes the passes use.
inline constexpr std::string_view kTargetAttr = "uma.target";
inline constexpr std::string_view kRegionAttr = "uma.region";
inline constexpr std::string_view kCompositeAttr = "Composite";
inline constexpr std::string_view kCompilerAttr = "Compiler";

// One named pattern of a target. The composite it makes is named "<target>.<name>".
struct CompositePattern {
  std::string name;
  PatternPtr pattern;
  // Optional: accepts a match, or rejects it with a reason the report shows
  // ("grouped convolutions are not supported").
  std::function<Status(const Match&)> predicate;
};

// What partitioning needs to know of a target: its patterns, in priority order, and which
// single ops it runs outside composites.
struct PartitionTarget {
  std::string name;
  std::vector<CompositePattern> patterns;
  // Optional: whether the target runs `node` (an op node, not a composite call) by itself;
  // an error says why not. Without it, the target takes composites only.
  std::function<Status(const Node&)> supports_op;
};

// Targets by name. Belongs to a Context; safe to use from several threads.
class PartitionTargetRegistry {
 public:
  // Errors when the name is taken, empty, or holds a '.'.
  Status add(PartitionTarget target);
  // The target, or an error listing the known ones.
  Expected<std::shared_ptr<const PartitionTarget>> find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const PartitionTarget>, std::less<>> targets_;
};

struct PartitionOptions {
  // Target names in priority order: a node an earlier target claims is not offered to a
  // later one.
  std::vector<std::string> targets;
  // The targets themselves, used instead of looking `targets` up in the context's registry
  // when not empty: the UMA build driver gives a backend's target bound to the attributes
  // of the build's target, so that its predicates see them.
  std::vector<std::shared_ptr<const PartitionTarget>> resolved;
  // Run merge-compiler-regions; off leaves one region per claimed node or composite.
  bool merge_regions = true;
  // Constants at a region's boundary are bound into its function (true) or passed as
  // arguments (false).
  bool bind_constants = true;
  // Regions with fewer nodes (composite calls count their inner nodes) go back to the host.
  std::int64_t min_region_size = 0;
  // Regions whose function would get one of these names are outlined into it for the host
  // (Primitive, without a Compiler), so that every region keeps its name (`uma run --check
  // --bisect`).
  std::vector<std::string> host_regions;
  // Where the passes record their decisions, when not null.
  PartitionReport* report = nullptr;
};

// The passes, one file each in src/partition/.
std::unique_ptr<Pass> create_merge_composite_pass(PartitionOptions options);
std::unique_ptr<Pass> create_annotate_target_pass(PartitionOptions options);
std::unique_ptr<Pass> create_merge_compiler_regions_pass(PartitionOptions options);
std::unique_ptr<Pass> create_partition_graph_pass(PartitionOptions options);

// The four passes in order (merge-compiler-regions only when options.merge_regions).
PassManager create_partition_pipeline(const PartitionOptions& options,
                                      PipelineOptions pipeline_options = {});
// Runs the pipeline on `module`; whether it changed anything.
Expected<bool> partition(Module& module, const PartitionOptions& options);

// Registers the four passes, with their options (targets=a,b bind-constants=false
// min-region-size=N host-regions=f,g), in a pass registry.
void register_partition_passes(PassRegistry& registry);

}  // namespace uma
