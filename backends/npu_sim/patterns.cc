// npu_sim's patterns and their predicate (see npu_sim.h).
#include <fmt/format.h>

#include <algorithm>

#include "backends/npu_sim/npu_sim.h"
#include "uma/graph/ir.h"
#include "uma/op/shape_util.h"

namespace uma::backends::npu_sim {
namespace {

// op(x, weight[, bias]) → optional add of a constant (either order) → optional relu or clip.
PatternPtr product(std::string_view op) {
  std::string name(op);
  PatternPtr with_bias = is_op(name, {wildcard(), is_constant(), is_constant()});
  PatternPtr plain = is_op(name, {wildcard(), is_constant()});
  PatternPtr layer = alt(with_bias, plain);
  PatternPtr added = alt(is_op("add", {layer, is_constant()}), is_op("add", {is_constant(), layer}));
  return optional(alt(added, layer), [](const PatternPtr& x) {
    return is_op(std::vector<std::string>{"nn.relu", "clip"}, {x});
  });
}


}  // namespace

PatternPtr conv2d_pattern() { return product("nn.conv2d"); }
PatternPtr conv1d_pattern() { return product("nn.conv1d"); }
PatternPtr dense_pattern() { return product("nn.dense"); }
PatternPtr matmul_pattern() { return product("nn.matmul"); }
PatternPtr pool2d_pattern() {
  return is_op(std::vector<std::string>{"nn.max_pool2d", "nn.avg_pool2d"}, {wildcard()});
}
PatternPtr global_pool_pattern() {
  return is_op(std::vector<std::string>{"nn.global_max_pool", "nn.global_avg_pool"}, {wildcard()});
}

Status check_layer(const Match& match, const Target& target) {
  UMA_TRY(check_target(target));
  auto found = std::find_if(match.nodes.begin(), match.nodes.end(),
                            [](const Node* node) { return is_layer(*node); });
  if (found == match.nodes.end()) return make_error("the match has no layer");
  const Node* layer = *found;
  for (const Node* node : match.nodes)
    for (const Value* value : node->operands())
      if (DType dtype = value->tensor_type().dtype; dtype != DType::f32)
        return make_error("{} has {} data; npu_sim runs f32", node->op_name(), dtype_name(dtype));
  const TensorType& out = layer->result()->tensor_type();
  std::string_view op = layer->op_name();
  if (op == "nn.max_pool2d" || op == "nn.avg_pool2d") {
    if (layer->attrs().get_int("ceil_mode") != 0)
      return make_error("{} has ceil_mode 1; the vector unit pools whole windows", op);
    if (op == "nn.max_pool2d")
      for (std::int64_t d : layer->attrs().get_ints("dilation"))
        if (d != 1) return make_error("{} has dilation {}; the vector unit pools dense windows", op, d);
  }
  if (op.starts_with("nn.global_") && layer->operand(0)->tensor_type().rank() != 4)
    return make_error("{} of {}-D data; npu_sim pools 2-D planes", op,
                      layer->operand(0)->tensor_type().rank());
  if ((op == "nn.matmul" || op == "nn.dense") && (layer->operand(0)->tensor_type().rank() != 2 ||
                                                  layer->operand(1)->tensor_type().rank() != 2))
    return make_error("{} of {}-D by {}-D; npu_sim multiplies 2-D matrices", op,
                      layer->operand(0)->tensor_type().rank(),
                      layer->operand(1)->tensor_type().rank());
  // The channels are axis 1 of every layer's output (a dense layer's units, a matmul's columns).
  for (const Node* node : match.nodes) {
    if (!node->is_op("add")) continue;
    if (!(node->result()->tensor_type() == out))
      return make_error("the add broadcasts the layer's result from {} to {}",
                        to_string(Type(out)), to_string(node->result()->type()));
    const Value* bias = node->operand(0) == layer->result() ? node->operand(1) : node->operand(0);
    if (!one_per_element_of(bias->tensor_type().shape, out.shape, 1))
      return make_error("the added bias has shape {}, not one value per output channel",
                        to_string(bias->tensor_type().shape));
  }
  return Status::success();
}

}  // namespace uma::backends::npu_sim
