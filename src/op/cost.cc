// The cost of a node: multiply-accumulates and bytes touched. Only the ops whose cost is
// dominated by products count MACs.
#include "uma/op/cost.h"

#include <limits>
#include <string_view>
#include <unordered_map>

#include "uma/graph/ir.h"

namespace uma {
namespace {

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::numeric_limits<std::int64_t>::max();
  return product;
}

NodeCost& operator+=(NodeCost& total, const NodeCost& cost) {
  total.macs = saturating_add(total.macs, cost.macs);
  total.bytes = saturating_add(total.bytes, cost.bytes);
  return total;
}

std::int64_t type_bytes(const Type& type) {
  if (type.is_tensor()) return type.tensor().num_bytes();
  std::int64_t total = 0;
  for (const Type& field : type.tuple().fields) total = saturating_add(total, type_bytes(field));
  return total;
}

// The product of a weight's dimensions from 1 on: the channels of a group times the kernel's
// taps.
std::int64_t taps_per_element(const Shape& weight) {
  std::int64_t taps = 1;
  for (std::size_t i = 1; i < weight.size(); ++i) taps = saturating_mul(taps, weight[i]);
  return taps;
}

std::int64_t op_macs(const Node& node) {
  std::string_view op = node.op_name();
  bool conv = op.starts_with("nn.conv");
  if (!conv && op != "nn.dense" && op != "nn.dense_packed" && op != "nn.matmul") return 0;
  // Verified modules give these ops tensor operands and one tensor result; a malformed node
  // costs nothing rather than crashing a report.
  if (node.num_operands() < 2 || node.num_results() != 1 || !node.result()->type().is_tensor() ||
      !node.operand(0)->type().is_tensor() || !node.operand(1)->type().is_tensor())
    return 0;
  const TensorType& data = node.operand(0)->tensor_type();
  const TensorType& weight = node.operand(1)->tensor_type();
  const TensorType& result = node.result()->tensor_type();
  if (conv) {
    // A convolution's weight is (O, C / groups, kernel...): each output element sums C /
    // groups times the kernel's taps. A transposed convolution's is (C, O / groups,
    // kernel...): each input element scatters into O / groups times the kernel's taps.
    // A packed one (nn.conv2d_packed, nn.conv2d_nchwc), (O / b, C / groups, kernel..., b),
    // holds b output channels per row.
    const TensorType& per = op.ends_with("_transpose") ? data : result;
    Shape taps = weight.shape;
    if ((op == "nn.conv2d_packed" || op == "nn.conv2d_nchwc") && !taps.empty()) taps.pop_back();
    return saturating_mul(per.num_elements(), taps_per_element(taps));
  }
  // nn.dense (and nn.dense_packed): each output element sums the data's last dimension (the
  // input features);
  // nn.matmul: each output element sums a's last dimension (its columns), whatever the
  // batch dimensions and the 1-D cases.
  if (data.rank() == 0) return 0;
  return saturating_mul(result.num_elements(), data.shape.back());
}

// Each callee's cost is computed once: a function may be called from many places, and
// summing it again per call would be exponential in the nesting depth.
using FunctionCosts = std::unordered_map<const Function*, NodeCost>;

// `callees` null: a call costs its results, as other nodes do, and not its callee.
NodeCost cost(const Node& node, FunctionCosts* callees) {
  NodeCost total;
  if (!node.is_op("call") || callees == nullptr) {
    total.macs = op_macs(node);
    for (std::size_t i = 0; i < node.num_results(); ++i)
      total.bytes = saturating_add(total.bytes, type_bytes(node.result(i)->type()));
  } else if (const Function* callee = node.callee()) {
    auto it = callees->find(callee);
    if (it == callees->end()) {
      NodeCost inner;
      for (const auto& n : callee->nodes())
        if (!n->is_op("constant")) inner += cost(*n, callees);
      it = callees->emplace(callee, inner).first;
    }
    total = it->second;
  }
  for (const Value* operand : node.operands())
    if (operand->producer() != nullptr && operand->producer()->is_op("constant"))
      total.bytes = saturating_add(total.bytes, type_bytes(operand->type()));
  return total;
}

}  // namespace

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::numeric_limits<std::int64_t>::max();
  return sum;
}

NodeCost node_cost(const Node& node) {
  FunctionCosts callees;
  return cost(node, &callees);
}

NodeCost own_cost(const Node& node) { return cost(node, nullptr); }

}  // namespace uma
