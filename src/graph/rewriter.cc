// The rewriter passes change functions through.
#include "uma/graph/rewriter.h"

namespace uma {

void Rewriter::replace_all_uses(Value* from, Value* to) {
  UMA_CHECK(from->type() == to->type(), "replacing {} by {}", to_string(from->type()),
            to_string(to->type()));
  if (from == to || !from->has_uses()) return;
  from->replace_all_uses_with(to);
  changed_ = true;
}

void Rewriter::replace_node(Node* node, const std::vector<Value*>& values) {
  UMA_CHECK(values.size() == node->num_results(), "replacing {} results by {} values",
            node->num_results(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) replace_all_uses(node->result(i), values[i]);
  erase(node);
}

void Rewriter::erase(Node* node) {
  if (insertion_point() == node) set_insertion_point(function().node_after(node));
  function().erase_node(node);
  changed_ = true;
}

std::vector<Node*> Rewriter::clone(std::span<Node* const> nodes, ValueMap& mapping) {
  std::vector<Node*> clones;
  clones.reserve(nodes.size());
  for (Node* node : nodes) {
    std::vector<Value*> operands;
    operands.reserve(node->num_operands());
    for (Value* v : node->operands()) {
      auto it = mapping.find(v);
      operands.push_back(it == mapping.end() ? v : it->second);
    }
    std::vector<Type> types;
    for (Value* r : node->results()) types.push_back(r->type());
    Node* copy = function().insert_node(insertion_point(), &node->op(), std::move(operands),
                                        node->attrs(), std::move(types));
    copy->set_callee(node->callee());
    copy->set_name(node->name());
    for (std::size_t i = 0; i < node->num_results(); ++i) {
      copy->result(i)->set_name(node->result(i)->name());
      mapping[node->result(i)] = copy->result(i);
    }
    clones.push_back(copy);
  }
  if (!clones.empty()) changed_ = true;
  return clones;
}

}  // namespace uma
