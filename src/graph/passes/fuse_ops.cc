// fuse-ops: groups the nodes of host functions into Primitive functions, each of which
// lowers to one loop nest per anchor (see uma/lower/lower.h).
//
// Assumes: a verified module. Works on host functions: those with neither a Composite, a
// Compiler nor a Primitive attribute (so running it twice changes nothing).
// Guarantees:
// - every op node of a host function (constants, tuple, get_item and calls aside) is in
//   exactly one group, outlined into a function named "fused_<op>_<op>_<i>" (its first ops,
//   dots made underscores; i counts the groups of the module, skipping names already taken)
//   with attributes Primitive = 1 and global_symbol = its name, called from the host;
// - groups form in node order, by the ops' fusion categories (OpDef::fusion):
//   * an anchor (a reduction: convolution, dense, pool, sum, softmax, ...) starts a group,
//     taking in a group of injective ops (nn.pad) whose result only the anchor reads;
//   * an elementwise or injective node joins the groups of its operands whose last node's
//     results only it reads: the pointwise ops after an anchor, and chains (or trees) of
//     pointwise ops, but never two anchors in one group; then also those whose last node's
//     other readers are in the groups that joined: the diamonds of activations such as
//     x * sigmoid(x), hard-swish and GELU fuse into x's producer;
//   * an opaque op is a group of its own (an op with no compute rule is opaque, so nothing
//     is grouped that lowering cannot compile);
//   * a group holds at most kMaxGroupNodes nodes: lowering inlines a group's pointwise ops
//     into one expression, and the passes after it walk expressions recursively;
//   so within a group, every result but the last node's is read only inside it;
// - a constant of at most kMaxImmediateElements elements is bound into each group that reads
//   it; larger ones stay in the host and are passed as arguments;
// - the host stays in topological order.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <utility>

#include "uma/graph/outline.h"
#include "uma/graph/pass.h"

namespace uma {
namespace {

// Deep enough for any fusion a model gains from; it bounds the depth of a group's expression.
constexpr std::size_t kMaxGroupNodes = 256;

bool is_host_function(const Function& function) {
  const AttrMap& attrs = function.attrs();
  return !attrs.has("Composite") && !attrs.has("Compiler") && !attrs.has("Primitive");
}

bool is_structural(const Node& node) {
  return node.is_op("constant") || node.is_op("tuple") || node.is_op("get_item") ||
         node.is_op("call");
}

bool is_pointwise(FusionCategory category) {
  return category == FusionCategory::kElementwise || category == FusionCategory::kInjective;
}

struct Group {
  std::vector<Node*> nodes;
  Node* tail = nullptr;  // the last node: the only one whose results leave the group
  bool has_anchor = false;
  bool all_injective = true;
  bool open = true;  // whether nodes may join after its tail (not for opaque ops)
  Group* merged_into = nullptr;
};

class Grouper {
 public:
  std::vector<std::vector<Node*>> run(const Function& function) {
    for (const auto& owned : function.nodes()) {
      Node* node = owned.get();
      if (!is_structural(*node)) add(node);
    }
    // Groups in the order of their first node, their nodes in function order.
    std::unordered_map<const Node*, std::size_t> position;
    for (const auto& owned : function.nodes()) position.emplace(owned.get(), position.size());
    std::vector<std::vector<Node*>> groups;
    for (Group& group : groups_) {
      if (group.merged_into != nullptr) continue;
      std::sort(group.nodes.begin(), group.nodes.end(),
                [&](const Node* a, const Node* b) { return position[a] < position[b]; });
      groups.push_back(group.nodes);
    }
    std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
      return position[a.front()] < position[b.front()];
    });
    return groups;
  }

 private:
  // Compresses the path it walks, so that finding stays cheap however long the merges chain.
  Group* find(Group* group) {
    Group* root = group;
    while (root->merged_into != nullptr) root = root->merged_into;
    while (group != root) group = std::exchange(group->merged_into, root);
    return root;
  }

  // The open group whose tail produced `value`.
  Group* tail_group(const Value* value) {
    auto it = group_of_.find(value->producer());
    if (it == group_of_.end()) return nullptr;
    Group* group = find(it->second);
    return group->open && group->tail == value->producer() ? group : nullptr;
  }

  // Whether every reader of `producer`'s tail's results is `reader` or a node already in
  // `group` (the group `reader` starts).
  bool read_only_by(Group* producer, const Node* reader, Group* group) {
    for (const Value* result : producer->tail->results())
      for (const Use& use : result->uses()) {
        if (use.user == reader) continue;
        auto it = group_of_.find(use.user);
        if (it == group_of_.end() || find(it->second) != group) return false;
      }
    return true;
  }

  // Moves `producer` into `group` when their categories allow it.
  bool join(Group* producer, Group* group, FusionCategory category) {
    if (producer == group) return false;
    bool joins = category == FusionCategory::kAnchor
                     ? producer->all_injective
                     : is_pointwise(category) && !(producer->has_anchor && group->has_anchor);
    if (!joins || producer->nodes.size() + group->nodes.size() > kMaxGroupNodes) return false;
    // The smaller list moves into the larger one, so a long chain merges in linear time.
    if (producer->nodes.size() > group->nodes.size()) std::swap(producer->nodes, group->nodes);
    group->nodes.insert(group->nodes.end(), producer->nodes.begin(), producer->nodes.end());
    group->has_anchor |= producer->has_anchor;
    group->all_injective &= producer->all_injective;
    producer->merged_into = group;
    return true;
  }

  void add(Node* node) {
    FusionCategory category = node->op().fusion;
    groups_.emplace_back();
    Group* group = &groups_.back();
    group->nodes = {node};
    group->tail = node;
    group->has_anchor = category == FusionCategory::kAnchor;
    group->all_injective = category == FusionCategory::kInjective;
    group->open = category != FusionCategory::kOpaque;
    group_of_[node] = group;
    if (category == FusionCategory::kOpaque) return;
    // The operands' groups whose tail only this node reads join it. Then, for a pointwise
    // node, so does a group whose tail's other readers have joined it: a diamond such as
    // x * sigmoid(x) becomes one group with x's producer once sigmoid's group has joined.
    std::vector<Group*> waiting;
    for (const Value* operand : node->operands()) {
      Group* producer = tail_group(operand);
      if (producer == nullptr || producer == group) continue;
      if (read_only_by(producer, node, group))
        join(producer, group, category);
      else if (is_pointwise(category))
        waiting.push_back(producer);
    }
    for (bool joined = true; joined;) {
      joined = false;
      for (Group*& producer : waiting) {
        if (producer == nullptr || find(producer) == group) continue;
        producer = find(producer);
        if (read_only_by(producer, node, group) && join(producer, group, category)) {
          joined = true;
          producer = nullptr;
        }
      }
    }
  }

  std::deque<Group> groups_;  // deque: pointers stay valid
  std::unordered_map<const Node*, Group*> group_of_;
};

// "fused_nn_conv2d_add_nn_relu": the group's first ops, so that names stay short. C
// identifiers are cut at 64 characters (src/codegen/c/names.cc): the stem leaves room for
// the index that makes the name unique, so that two functions never share a symbol.
std::string group_stem(const std::vector<Node*>& nodes) {
  constexpr std::size_t kMaxOps = 4;
  constexpr std::size_t kMaxStem = 48;
  std::string stem = "fused";
  for (std::size_t i = 0; i < nodes.size() && i < kMaxOps; ++i) {
    std::string op = nodes[i]->op_name();
    std::replace(op.begin(), op.end(), '.', '_');
    if (stem.size() + 1 + op.size() > kMaxStem) break;
    stem += "_" + op;
  }
  return stem;
}

class FuseOpsPass final : public Pass {
 public:
  std::string_view name() const override { return "fuse-ops"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    std::size_t next_index = 0;
    for (Function* function : module.functions()) {
      if (!is_host_function(*function)) continue;
      bool outlined = false;
      for (const std::vector<Node*>& group : Grouper().run(*function)) {
        OutlineOptions options;
        options.bind_constant = [](const Node& constant) {
          return constant.result()->tensor_type().num_elements() <= kMaxImmediateElements;
        };
        if (group.size() == 1) options.call_name = group.front()->name();
        auto make_name = [&] {
          std::string stem = group_stem(group), name;
          do {
            name = fmt::format("{}_{}", stem, next_index++);
          } while (module.find_function(name) != nullptr);
          return name;
        };
        UMA_TRY_ASSIGN(Outlined fused, outline(*function, group, make_name, options));
        if (fused.callee == nullptr) continue;
        fused.callee->mutable_attrs().set("Primitive", std::int64_t{1});
        fused.callee->mutable_attrs().set("global_symbol", fused.callee->name());
        outlined = true;
      }
      if (outlined) UMA_TRY(restore_topological_order(*function));
      changed |= outlined;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_fuse_ops_pass() { return std::make_unique<FuseOpsPass>(); }

}  // namespace uma
