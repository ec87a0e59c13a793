// Small matching helpers shared by the canonicalization passes.
#include "match.h"

#include <cmath>

namespace uma::match {

Node* producer(const Value* value, std::string_view op) {
  Node* node = value->producer();
  return node != nullptr && node->is_op(op) ? node : nullptr;
}

const Tensor* constant(const Value* value) {
  const Node* node = producer(value, "constant");
  if (node == nullptr) return nullptr;
  const TensorPtr& tensor = node->attrs().get_tensor("value");
  return tensor->has_data() ? tensor.get() : nullptr;
}

bool is_splat(const Value* value, double expected, double relative_tolerance) {
  const Tensor* tensor = constant(value);
  if (tensor == nullptr || tensor->num_elements() == 0) return false;
  for (std::int64_t i = 0; i < tensor->num_elements(); ++i)
    if (std::abs(tensor->get(i) - expected) > relative_tolerance * std::abs(expected)) return false;
  return true;
}

Value* other_operand(const Node* node, const Value* known) {
  if (node->num_operands() != 2) return nullptr;
  if (node->operand(0) == known) return node->operand(1);
  if (node->operand(1) == known) return node->operand(0);
  return nullptr;
}

}  // namespace uma::match
