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
// - the host function stays in topological order: a call is placed where its region's first
//   node was, and the nodes computing its inputs move up before it when they came later;
// - no node of a host function keeps a uma.target or uma.region.
// A module without annotations is left as it is. A region whose nodes reach one another
// through nodes outside it cannot be outlined: that is an error naming it.
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "annotations.h"
#include "uma/graph/rewriter.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"

namespace uma {
namespace {

struct Region {
  std::string target;
  std::vector<Node*> nodes;  // in function order
};

// The regions of `function` in the order of their first node; `member` maps each of their
// nodes to its region's index.
Expected<std::vector<Region>> collect_regions(
    const Function& function, std::unordered_map<const Node*, std::size_t>& member) {
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
    member.emplace(node, index);
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

// Moves nodes so that each comes after the nodes computing its operands. A node moves up
// only when an earlier node needs it, so the order stays the one the function had wherever
// it can. Errors when the nodes depend on one another in a cycle, naming a call on it.
Status restore_topological_order(Function& function) {
  std::vector<Node*> nodes = function.node_list();
  enum class State : std::uint8_t { kNew, kOnPath, kPlaced };
  std::unordered_map<const Node*, State> state;
  state.reserve(nodes.size());
  std::vector<Node*> order;
  order.reserve(nodes.size());
  struct Frame {
    Node* node;
    std::size_t next_operand;
  };
  std::vector<Frame> path;
  for (Node* root : nodes) {
    if (state[root] != State::kNew) continue;
    state[root] = State::kOnPath;
    path.push_back({root, 0});
    while (!path.empty()) {
      Frame& frame = path.back();
      if (frame.next_operand == frame.node->num_operands()) {
        state[frame.node] = State::kPlaced;
        order.push_back(frame.node);
        path.pop_back();
        continue;
      }
      Node* producer = frame.node->operand(frame.next_operand++)->producer();
      if (producer == nullptr) continue;
      State& seen = state[producer];
      if (seen == State::kNew) {
        seen = State::kOnPath;
        path.push_back({producer, 0});
      } else if (seen == State::kOnPath) {
        // The cycle is the part of the path from `producer` on.
        std::string culprit = producer->location();
        bool on_cycle = false;
        for (const Frame& f : path) {
          on_cycle |= f.node == producer;
          if (on_cycle && f.node->callee() != nullptr &&
              f.node->callee()->attrs().has(kCompilerAttr))
            culprit = "@" + f.node->callee()->name();
        }
        return make_error(
            "function @{}: outlining its regions creates a cycle through {}: a region's nodes "
            "reach one another through nodes outside it",
            function.name(), culprit);
      }
    }
  }
  if (order != nodes)
    for (Node* node : order) function.move_node(node, nullptr);
  return Status::success();
}

class Partitioner {
 public:
  Partitioner(Module& module, const PartitionOptions& options)
      : module_(module), options_(options) {}

  Expected<bool> run(Function& function) {
    std::unordered_map<const Node*, std::size_t> member;
    UMA_TRY_ASSIGN(std::vector<Region> regions, collect_regions(function, member));
    bool outlined = false;
    for (std::size_t i = 0; i < regions.size(); ++i) {
      if (!large_enough(regions[i])) continue;
      UMA_TRY_ASSIGN(bool done, outline(function, regions[i], [&](const Node* node) {
                       auto it = member.find(node);
                       return it != member.end() && it->second == i;
                     }));
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

  std::string fresh_name(const std::string& target) {
    std::string name;
    do {
      name = fmt::format("{}_{}_main_{}", module_.name(), target, next_index_++);
    } while (module_.find_function(name) != nullptr);
    return name;
  }

  // Replaces the region by a call to a new function; false when nothing reads the region.
  template <typename InRegion>
  Expected<bool> outline(Function& host, const Region& region, InRegion in_region) {
    std::vector<Value*> inputs;
    std::vector<Node*> constants;  // bound into the function
    std::unordered_set<const Value*> seen;
    for (const Node* node : region.nodes)
      for (Value* operand : node->operands()) {
        Node* producer = operand->producer();
        if ((producer != nullptr && in_region(producer)) || !seen.insert(operand).second) continue;
        if (options_.bind_constants && producer != nullptr && producer->is_op("constant"))
          constants.push_back(producer);
        else
          inputs.push_back(operand);
      }
    std::vector<Value*> outputs;
    for (const Node* node : region.nodes)
      for (Value* result : node->results())
        for (const Use& use : result->uses())
          if (use.user == nullptr || !in_region(use.user)) {
            outputs.push_back(result);
            break;
          }
    if (outputs.empty()) return false;

    std::string name = fresh_name(region.target);
    UMA_TRY_ASSIGN(Function * callee, module_.add_function(name));
    callee->mutable_attrs().set(std::string(kCompilerAttr), region.target);
    callee->mutable_attrs().set("global_symbol", name);
    callee->mutable_attrs().set("Primitive", std::int64_t{1});
    ValueMap mapping;
    for (Value* input : inputs) mapping[input] = callee->add_param(input->type(), input->name());
    Rewriter body(*callee);
    for (Node* clone : body.clone(constants, mapping)) annotations::erase_partition_attrs(*clone);
    for (Node* clone : body.clone(region.nodes, mapping))
      annotations::erase_partition_attrs(*clone);
    std::vector<Value*> returned;
    for (Value* output : outputs) returned.push_back(mapping.at(output));
    callee->set_outputs(std::move(returned));

    Rewriter rewriter(host);
    rewriter.set_insertion_point(region.nodes.front());
    std::string call_name = region.nodes.size() == 1 ? region.nodes.front()->name() : "";
    UMA_TRY_ASSIGN(Node * call, rewriter.try_call(callee, inputs, std::move(call_name)));
    if (options_.report != nullptr)
      for (const Node* node : region.nodes)
        for (NodeRecord* record : options_.report->records_of(node)) {
          record->target = region.target;
          record->region = name;
        }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      call->result(i)->set_name(outputs[i]->name());
      rewriter.replace_all_uses(outputs[i], call->result(i));
    }
    for (auto it = region.nodes.rbegin(); it != region.nodes.rend(); ++it) rewriter.erase(*it);
    for (Node* constant : constants)
      if (!constant->result()->has_uses()) rewriter.erase(constant);
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
