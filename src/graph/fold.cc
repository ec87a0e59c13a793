// Folding one node to constants with its op's reference kernel.
#include "uma/graph/fold.h"

namespace uma {
namespace {

bool fits(const Node& node, std::int64_t max_elements) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < node.num_results(); ++i) {
    const Type& type = node.result(i)->type();
    if (!type.is_tensor()) return false;
    auto elements = type.tensor().checked_num_elements();
    if (!elements || *elements > max_elements - total) return false;
    total += *elements;
  }
  return true;
}

}  // namespace

std::optional<std::vector<TensorPtr>> constant_operands(const Node& node) {
  std::vector<TensorPtr> tensors;
  tensors.reserve(node.num_operands());
  for (const Value* operand : node.operands()) {
    const Node* producer = operand->producer();
    if (producer == nullptr || !producer->is_op("constant")) return std::nullopt;
    const TensorPtr& tensor = producer->attrs().get_tensor("value");
    if (tensor == nullptr || !tensor->has_data()) return std::nullopt;
    tensors.push_back(tensor);
  }
  return tensors;
}

Expected<std::optional<std::vector<Value*>>> fold_node(Rewriter& rewriter, Node* node,
                                                       std::int64_t max_elements) {
  using Folded = std::optional<std::vector<Value*>>;
  if (node->is_op("constant") || node->is_op("call") || node->is_op("tuple") ||
      node->op().kernel == nullptr)
    return Folded();
  std::optional<std::vector<TensorPtr>> inputs = constant_operands(*node);
  if (!inputs || !fits(*node, max_elements)) return Folded();
  std::vector<Type> types;
  for (const Value* result : node->results()) types.push_back(result->type());
  auto outputs = node->op().kernel(*inputs, node->attrs(), types);
  if (!outputs) return outputs.error();
  if (outputs->size() != types.size())
    return make_error("the reference kernel gave {} result(s) for {} (a bug in the kernel)",
                      outputs->size(), types.size());
  for (std::size_t i = 0; i < types.size(); ++i) {
    const TensorPtr& tensor = (*outputs)[i];
    if (tensor == nullptr || !tensor->has_data() || !(Type(tensor->type()) == types[i]))
      return make_error("the reference kernel's result {} is not a {} (a bug in the kernel)", i,
                        to_string(types[i]));
  }
  return Folded(replace_by_constants(rewriter, node, *outputs));
}

std::vector<Value*> replace_by_constants(Rewriter& rewriter, Node* node,
                                         const std::vector<TensorPtr>& tensors) {
  UMA_CHECK(tensors.size() == node->num_results(), "{} tensors for {} results", tensors.size(),
            node->num_results());
  std::vector<Value*> constants;
  Node* saved = rewriter.insertion_point();
  rewriter.set_insertion_point(node);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    Value* constant = rewriter.constant(tensors[i]);
    constant->set_name(node->result(i)->name());
    constants.push_back(constant);
  }
  rewriter.set_insertion_point(saved);
  rewriter.replace_node(node, constants);
  return constants;
}

}  // namespace uma
