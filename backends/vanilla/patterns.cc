// vanilla.conv2d: what the kernel runs, and the predicate that says why it does not run the
// rest. nn.conv2d has one layout (NCHW data, OIHW weights), the kernel's, so layouts need no
// check; what varies is the dtype, groups, dilation and the epilogue's bias.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "backends/vanilla/vanilla.h"
#include "uma/graph/ir.h"
#include "uma/op/shape_util.h"

namespace uma::backends::vanilla {
namespace {

Error reject(std::string_view reason) { return make_error("vanilla.conv2d: {}", reason); }

// add(x, constant) in either operand order: a bias as exporters write it.
PatternPtr bias_add(const PatternPtr& x) {
  return alt(is_op("add", {x, is_constant()}), is_op("add", {is_constant(), x}));
}

PatternPtr activation(const PatternPtr& x) {
  return is_op(std::vector<std::string>{"nn.relu", "clip"}, {x});
}

const Node* conv_node(const Match& m) {
  for (const Node* node : m.nodes)
    if (node->is_op("nn.conv2d")) return node;
  UMA_CHECK(false, "a vanilla.conv2d match without its nn.conv2d");
  return nullptr;
}

}  // namespace

PatternPtr conv2d_pattern() {
  PatternPtr conv = alt(is_op("nn.conv2d", {wildcard(), is_constant(), is_constant()}),
                        is_op("nn.conv2d", {wildcard(), is_constant()}));
  return optional(optional(conv, bias_add), activation);
}

Status check_conv2d(const Match& match, const Target&) {
  const Node& conv = *conv_node(match);
  const TensorType& out = conv.result()->tensor_type();
  for (const Value* operand : conv.operands())
    if (DType dtype = operand->tensor_type().dtype; dtype != DType::f32)
      return reject(fmt::format("{} is not supported; the kernel computes f32", dtype_name(dtype)));
  if (std::int64_t groups = conv.attrs().get_int("groups"); groups != 1)
    return reject(fmt::format("grouped convolutions (groups={}) are not supported", groups));
  if (const auto& dilation = conv.attrs().get_ints("dilation");
      std::any_of(dilation.begin(), dilation.end(), [](std::int64_t d) { return d != 1; }))
    return reject(fmt::format("dilated convolutions (dilation={}) are not supported", dilation));
  for (const Node* node : match.nodes) {
    if (!node->is_op("add")) continue;
    if (conv.num_operands() == 3)
      return reject("the kernel adds one bias, and the convolution has its own besides the add");
    // The add's result type checks the bias broadcasts to nothing larger than the output.
    if (!(node->result()->tensor_type() == out))
      return reject(fmt::format("the add broadcasts the convolution's result from {} to {}",
                                to_string(Type(out)), to_string(node->result()->type())));
    for (const Value* operand : node->operands()) {
      if (operand->producer() == nullptr || !operand->producer()->is_op("constant")) continue;
      const TensorType& bias = operand->tensor_type();
      if (bias.dtype != DType::f32)
        return reject(fmt::format("a {} bias is not supported; the kernel computes f32",
                                  dtype_name(bias.dtype)));
      if (!one_per_element_of(bias.shape, out.shape, 1))
        return reject(fmt::format("the added bias has shape {}, not one value per output channel",
                                  to_string(bias.shape)));
    }
  }
  return Status::success();
}

}  // namespace uma::backends::vanilla
