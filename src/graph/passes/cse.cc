// cse: merges nodes that compute the same thing.
//
// Assumes: a verified module; every op is pure (calls included), so two nodes with the
// same op, the same operands, equal attributes and the same callee give equal results.
// Guarantees: within each function, no two nodes remain that are equal in that sense
// (attributes compare with attr_equal, so constants holding equal tensors merge too). The
// first node is kept and uses of a later one go to it; nodes are visited in order, so
// after merging a pair, their users become equal and merge in the same run. Linear in
// the function's size on average: nodes are found through a hash of their op, operands,
// callee and attributes.
#include <unordered_set>

#include "uma/graph/ir.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

std::size_t combine(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

// Hashing all of a large tensor's bytes would cost as much as comparing them; its type
// and a few bytes spread across it separate real weights just as well.
std::size_t hash_tensor(const TensorPtr& tensor) {
  if (tensor == nullptr) return 0;
  std::size_t h = combine(static_cast<std::size_t>(tensor->dtype()), tensor->shape().size());
  for (std::int64_t dim : tensor->shape()) h = combine(h, std::hash<std::int64_t>()(dim));
  if (!tensor->has_data()) return combine(h, std::hash<std::string>()(tensor->name));
  std::span<const std::byte> bytes = tensor->bytes();
  constexpr std::size_t kSamples = 32;
  std::size_t step = bytes.size() / kSamples + 1;
  for (std::size_t i = 0; i < bytes.size(); i += step)
    h = combine(h, static_cast<std::size_t>(bytes[i]));
  return h;
}

// Consistent with attr_equal: only what equal attributes share goes in.
std::size_t hash_attr(const Attribute& value) {
  std::size_t h = value.index();
  if (const auto* i = std::get_if<std::int64_t>(&value))
    return combine(h, std::hash<std::int64_t>()(*i));
  if (const auto* s = std::get_if<std::string>(&value))
    return combine(h, std::hash<std::string>()(*s));
  if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&value)) {
    for (std::int64_t i : *ints) h = combine(h, std::hash<std::int64_t>()(i));
    return h;
  }
  if (const auto* t = std::get_if<TensorPtr>(&value)) return combine(h, hash_tensor(*t));
  return h;  // floats: 0.0 == -0.0 differ in bits, so their values stay out
}

struct NodeHash {
  std::size_t operator()(const Node* node) const {
    std::size_t h = std::hash<const OpDef*>()(&node->op());
    h = combine(h, std::hash<const Function*>()(node->callee()));
    for (const Value* v : node->operands()) h = combine(h, std::hash<const Value*>()(v));
    for (const auto& [name, value] : node->attrs())
      h = combine(combine(h, std::hash<std::string>()(name)), hash_attr(value));
    return h;
  }
};

struct NodeEqual {
  bool operator()(const Node* a, const Node* b) const {
    if (&a->op() != &b->op() || a->callee() != b->callee() || a->operands() != b->operands() ||
        a->num_results() != b->num_results() || !(a->attrs() == b->attrs()))
      return false;
    // Equal inputs infer equal types; comparing them keeps a stale type from being merged
    // into a replacement of another type.
    for (std::size_t i = 0; i < a->num_results(); ++i)
      if (!(a->result(i)->type() == b->result(i)->type())) return false;
    return true;
  }
};

bool merge_equal_nodes(Function& function) {
  Rewriter rewriter(function);
  std::unordered_set<Node*, NodeHash, NodeEqual> seen;
  seen.reserve(function.num_nodes());
  // A node's operands are final when it is reached: they come earlier and were merged
  // already, so its hash does not change while it is in the set.
  for (Node* node : function.node_list()) {
    auto [it, inserted] = seen.insert(node);
    if (!inserted) rewriter.replace_node(node, (*it)->results());
  }
  return rewriter.changed();
}

class CsePass final : public Pass {
 public:
  std::string_view name() const override { return "cse"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) changed |= merge_equal_nodes(*function);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_cse_pass() { return std::make_unique<CsePass>(); }

}  // namespace uma
