// The small API passes change a function through: insert, replace, erase, clone.
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "uma/graph/builder.h"

namespace uma {

using ValueMap = std::unordered_map<const Value*, Value*>;

// A Builder that also records whether it changed anything, so a pass can report it.
class Rewriter : public Builder {
 public:
  using Builder::Builder;

  // Every use of `from` now uses `to`. Types must match.
  void replace_all_uses(Value* from, Value* to);
  // Replaces each result of `node` by the matching value, then erases `node`.
  void replace_node(Node* node, const std::vector<Value*>& values);
  // Erases a node whose results are unused.
  void erase(Node* node);
  // Clones `nodes` (in topological order) at the insertion point. Operands found in
  // `mapping` are remapped; others are used as they are. Adds each clone's results to
  // `mapping` and returns the clones. Tensors in attributes are shared, not copied.
  std::vector<Node*> clone(std::span<Node* const> nodes, ValueMap& mapping);

  bool changed() const { return changed_; }
  void notify_changed() { changed_ = true; }

 private:
  bool changed_ = false;
};

}  // namespace uma
