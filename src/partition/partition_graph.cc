// partition-graph: outlines each region of a host function into a function its target
// compiles, and calls that function in the region's place (see uma/partition/partition.h).
//
// Assumes: a verified module whose host functions carry `uma.target` on the nodes targets
// claimed and, when merge-compiler-regions ran, `uma.region` on them. A node with a
// uma.target but no uma.region is a region of its own.
// Guarantees:
// - each region becomes a function named "<module>_<target>_main_<i>" (i counts the
//   regions of the module in the order of their first node, skipping names already taken)
//   with attributes Compiler = target, global_symbol = its name and Primitive = 1;
// - its parameters are the values the region reads from outside, without duplicates, in
//   order of first use. Constants are cloned into it when options.bind_constants, else
//   passed like any other value; a host constant nothing else reads is then removed;
// - its outputs are the region's values read outside it (by the host, by other regions or
//   as the host function's outputs), in node order; the call has one result per output,
//   named like the value it replaces. It keeps the node's name when the region is a single
//   node; values keep their names inside the function;
// - regions with fewer nodes than options.min_region_size (a composite call counts the
//   nodes of its composite) stay on the host, and the report says why. So do regions
//   nothing reads: a function without outputs would compute nothing;
// - a region whose function would be named in options.host_regions is outlined into a
//   function of that name for the host: Primitive, without a Compiler;
// - the host function stays in topological order: a call is placed where its region's first
//   node was, and the nodes computing its inputs move up before it when they came later;
// - no node of a host function keeps a uma.target or uma.region.
// A module without annotations is left as it is. A region whose nodes reach one another
// through nodes outside it cannot be outlined: that is an error naming it.
#include <algorithm>
#include <map>

#include "annotations.h"
#include "uma/graph/outline.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"

namespace uma {
namespace {

struct Region {
  std::string target;
  std::vector<Node*> nodes;  // in function order
};

// The regions of `function` in the order of their first node.
Expected<std::vector<Region>> collect_regions(const Function& function) {
  std::vector<Region> regions;
  std::map<std::int64_t, std::size_t> by_id;
  for (const auto& owned : function.nodes()) {
    Node* node = owned.get();
    UMA_TRY_ASSIGN(std::optional<std::string> target, annotations::region_target_of(*node));
    if (!target) continue;
    UMA_TRY_ASSIGN(std::optional<std::int64_t> id, annotations::region_of(*node));
    std::size_t index = regions.size();
    if (id) index = by_id.emplace(*id, index).first->second;
    if (index == regions.size())
      regions.push_back(Region{*target, {}});
    else if (regions[index].target != *target)
      return make_error("{}: {} {} holds nodes of two targets, '{}' and '{}'", node->location(),
                        kRegionAttr, *id, regions[index].target, *target);
    regions[index].nodes.push_back(node);
  }
  return regions;
}

// How much of the graph a node stands for: a composite call stands for the nodes of its
// composite (constants aside, which are not nodes of the model's graph).
std::int64_t size_of(const Node& node) {
  const Function* callee = node.callee();
  if (callee == nullptr || !callee->attrs().has(kCompositeAttr)) return 1;
  std::int64_t size = 0;
  for (const auto& inner : callee->nodes()) size += inner->is_op("constant") ? 0 : 1;
  return size;
}

class Partitioner {
 public:
  Partitioner(Module& module, const PartitionOptions& options)
      : module_(module), options_(options) {}

  Expected<bool> run(Function& function) {
    UMA_TRY_ASSIGN(std::vector<Region> regions, collect_regions(function));
    bool outlined = false;
    for (std::size_t i = 0; i < regions.size(); ++i) {
      if (!large_enough(regions[i])) continue;
      UMA_TRY_ASSIGN(bool done, outline_region(function, regions[i], kept_on_host(regions[i])));
      outlined |= done;
    }
    bool changed = outlined;
    for (const auto& node : function.nodes()) changed |= annotations::erase_partition_attrs(*node);
    if (outlined) UMA_TRY(restore_topological_order(function));
    return changed;
  }

 private:
  bool large_enough(const Region& region) {
    std::int64_t size = 0;
    for (const Node* node : region.nodes) size += size_of(*node);
    if (size >= options_.min_region_size) return true;
    if (options_.report != nullptr) {
      std::string detail =
          fmt::format("{} node(s), the minimum is {}", size, options_.min_region_size);
      for (const Node* node : region.nodes) {
        options_.report->reject(node, region.target, RejectionKind::RegionTooSmall, detail);
        for (NodeRecord* record : options_.report->records_of(node)) record->target.clear();
      }
    }
    return false;
  }

  // Whether the region's function is one options.host_regions names.
  bool kept_on_host(const Region& region) {
    if (options_.host_regions.empty()) return false;
    std::size_t index = next_index_;
    std::string name = fresh_name(region.target);
    next_index_ = index;  // outline_region takes the name
    const std::vector<std::string>& kept = options_.host_regions;
    if (std::find(kept.begin(), kept.end(), name) == kept.end()) return false;
    if (options_.report != nullptr)
      for (const Node* node : region.nodes)
        options_.report->reject(node, region.target, RejectionKind::KeptOnHost, "@" + name);
    return true;
  }

  std::string fresh_name(const std::string& target) {
    std::string name;
    do {
      name = fmt::format("{}_{}_main_{}", module_.name(), target, next_index_++);
    } while (module_.find_function(name) != nullptr);
    return name;
  }

  // Replaces the region by a call to a new function; false when nothing reads the region. A
  // region kept on the host becomes a Primitive function of the host's (the host lowers the
  // composites in it as their nodes).
  Expected<bool> outline_region(Function& host, const Region& region, bool on_host) {
    OutlineOptions options;
    if (options_.bind_constants) options.bind_constant = [](const Node&) { return true; };
    if (region.nodes.size() == 1) options.call_name = region.nodes.front()->name();
    // The records are keyed by the nodes, which outlining erases.
    std::vector<NodeRecord*> records;
    if (options_.report != nullptr)
      for (const Node* node : region.nodes)
        for (NodeRecord* record : options_.report->records_of(node)) records.push_back(record);
    UMA_TRY_ASSIGN(Outlined outlined,
                   outline(
                       host, region.nodes, [&] { return fresh_name(region.target); }, options));
    if (outlined.callee == nullptr) return false;
    Function& callee = *outlined.callee;
    if (!on_host) callee.mutable_attrs().set(std::string(kCompilerAttr), region.target);
    callee.mutable_attrs().set("global_symbol", callee.name());
    callee.mutable_attrs().set("Primitive", std::int64_t{1});
    for (const auto& node : callee.nodes()) annotations::erase_partition_attrs(*node);
    for (NodeRecord* record : records) {
      record->target = on_host ? "" : region.target;
      record->region = callee.name();
    }
    return true;
  }

  Module& module_;
  const PartitionOptions& options_;
  std::size_t next_index_ = 0;
};

class PartitionGraphPass final : public Pass {
 public:
  explicit PartitionGraphPass(PartitionOptions options) : options_(std::move(options)) {}

  std::string_view name() const override { return "partition-graph"; }

  Expected<bool> run(Module& module) override {
    Partitioner partitioner(module, options_);
    bool changed = false;
    // The functions it adds are not host functions; the snapshot leaves them out anyway.
    for (Function* function : module.functions()) {
      if (!annotations::is_host_function(*function)) continue;
      UMA_TRY_ASSIGN(bool partitioned, partitioner.run(*function));
      changed |= partitioned;
    }
    return changed;
  }

 private:
  PartitionOptions options_;
};

}  // namespace

std::unique_ptr<Pass> create_partition_graph_pass(PartitionOptions options) {
  return std::make_unique<PartitionGraphPass>(std::move(options));
}

}  // namespace uma
