// ultra_trail.conv1d's pattern and predicate (see ultra_trail.h).
#include "backends/ultra_trail/ultra_trail.h"

#include <algorithm>
#include <limits>

#include "uma/op/shape_util.h"

namespace uma::backends::ultra_trail {
Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t dimension, target.get_int("dimension"));
  if (dimension < 1 || dimension > kMaxDimension)
    return make_error("dimension must be between 1 and {}, not {}", kMaxDimension, dimension);
  return Status::success();
}

PatternPtr conv1d_pattern() {
  PatternPtr with_bias = is_op("nn.conv1d", {wildcard(), is_constant(), is_constant()});
  PatternPtr conv = is_op("nn.conv1d", {wildcard(), is_constant()});
  // A bias added as exporters write it: add(conv, b) or add(b, conv), b of shape [C, 1]
  // or [1, C, 1] (the predicate checks the shape).
  PatternPtr added = alt(is_op("add", {conv, is_constant()}), is_op("add", {is_constant(), conv}));
  PatternPtr biased = alt(with_bias, alt(added, conv));
  return optional(biased, [](const PatternPtr& x) { return is_op("nn.relu", {x}); });
}

Status check_conv1d(const Match& match, const Target&) {
  const Node* conv = nullptr;
  const Node* add = nullptr;
  for (const Node* node : match.nodes) {
    if (node->is_op("nn.conv1d")) conv = node;
    if (node->is_op("add")) add = node;
  }
  if (conv == nullptr) return make_error("the match has no nn.conv1d");
  DType dtype = conv->operand(0)->tensor_type().dtype;
  if (dtype != DType::f32)
    return make_error("the data is {}; ultra_trail runs f32", dtype_name(dtype));
  if (std::int64_t groups = conv->attrs().get_int("groups"); groups != 1)
    return make_error("groups is {}; ultra_trail runs groups 1", groups);
  if (std::int64_t dilation = conv->attrs().get_ints("dilation")[0]; dilation != 1)
    return make_error("dilation is {}; ultra_trail runs dilation 1", dilation);
  // The array's registers are 32 bits wide; the memories bound the rest.
  std::int64_t stride = conv->attrs().get_ints("strides")[0];
  const std::vector<std::int64_t>& padding = conv->attrs().get_ints("padding");
  if (std::max({stride, padding[0], padding[1]}) > std::numeric_limits<std::int32_t>::max())
    return make_error("its stride {} or padding [{}, {}] exceeds the 32-bit registers", stride,
                      padding[0], padding[1]);
  if (add != nullptr) {
    const Value* bias = add->operand(0) == conv->result() ? add->operand(1) : add->operand(0);
    if (!one_per_element_of(bias->tensor_type().shape, conv->result()->tensor_type().shape, 1))
      return make_error("the added bias has shape {}, not one value per output channel",
                        to_string(bias->tensor_type().shape));
  }
  return Status::success();
}

}  // namespace uma::backends::ultra_trail
