// The test targets (see test_targets.h): pattern tables of three hypothetical backends,
// shaped after what the ONNX importer produces for real CNNs and transformers, so that
// tests and `uma partition` can partition real models.
// - test_conv: convolutions (1-D, 2-D) with a constant weight, an optional constant bias
//   (the operand the importer makes, or an add of a per-channel constant) and an optional
//   activation (relu, clip as in relu6, x * sigmoid(x) as in SiLU); 2-D ones also with a
//   residual add before the activation (ResNet's block ends). Its kernel runs f32, groups 1
//   or depthwise.
// - test_dense: nn.dense and nn.matmul, and 1x1 convolutions of stride 1 (matrix products
//   too, as GEMM libraries run them), with an optional bias add (a constant with one value
//   per unit or channel, in either operand order, as torch exports Linear) and an optional
//   relu or gelu. f32 only. It competes with test_conv for 1x1 convolutions: the target
//   listed first gets them.
// - test_elem: no patterns; runs f32 elementwise unary and binary ops one by one.
// - test_int8: integer 2-D convolutions with their scales and zero points (QLinearConv, and
//   QDQ convolutions), u8 or i8 in and out, as an int8 accelerator claims them.
#include "test_targets.h"

#include <algorithm>

#include "uma/graph/ir.h"
#include "uma/pattern/quantized.h"

namespace uma {
namespace {

// ---- Pattern pieces ----

// add(x, constant) in either operand order.
PatternPtr bias_add(const PatternPtr& x) {
  return alt(is_op("add", {x, is_constant()}), is_op("add", {is_constant(), x}));
}

// x * sigmoid(x) in either operand order: SiLU, as exporters write it.
PatternPtr silu(const PatternPtr& x) {
  return alt(is_op("multiply", {x, is_op("sigmoid", {x})}),
             is_op("multiply", {is_op("sigmoid", {x}), x}));
}

// `op` with a constant weight and, optionally, a constant bias operand.
PatternPtr with_constant_weight(const std::string& op) {
  return alt(is_op(op, {wildcard(), is_constant(), is_constant()}),
             is_op(op, {wildcard(), is_constant()}));
}

PatternPtr relu_or_clip(const PatternPtr& x) {
  return is_op(std::vector<std::string>{"nn.relu", "clip"}, {x});
}

PatternPtr conv_chain(const std::string& op) {
  PatternPtr biased = optional(with_constant_weight(op), bias_add);
  return optional(biased, [](const PatternPtr& x) { return alt(relu_or_clip(x), silu(x)); });
}

// conv → optional bias → add(·, residual) in either order → optional relu or clip.
PatternPtr conv_residual() {
  PatternPtr biased = optional(with_constant_weight("nn.conv2d"), bias_add);
  PatternPtr sum = alt(is_op("add", {biased, wildcard()}), is_op("add", {wildcard(), biased}));
  return optional(sum, relu_or_clip);
}

// A 2-D convolution that is a matrix product: 1x1 kernel, stride 1, no padding, one group.
PatternPtr conv_1x1() {
  PatternPtr weight = has_type(
      is_constant(),
      [](const Type& type) {
        return type.is_tensor() && type.tensor().rank() == 4 && type.tensor().shape[2] == 1 &&
               type.tensor().shape[3] == 1;
      },
      "is a 1x1 kernel");
  PatternPtr conv = alt(is_op("nn.conv2d", {wildcard(), weight, is_constant()}),
                        is_op("nn.conv2d", {wildcard(), weight}));
  conv = has_attr(conv, "groups", Attribute(std::int64_t{1}));
  conv = has_attr(conv, "strides", Attribute(std::vector<std::int64_t>{1, 1}));
  return has_attr(conv, "padding", Attribute(std::vector<std::int64_t>{0, 0, 0, 0}));
}

PatternPtr dense_chain(const PatternPtr& product) {
  PatternPtr biased = optional(product, bias_add);
  return optional(biased, [](const PatternPtr& x) {
    return is_op(std::vector<std::string>{"nn.relu", "nn.gelu"}, {x});
  });
}

// ---- Predicates: what the hypothetical kernels cannot do ----

// The match's node of one of `ops`; patterns guarantee there is one.
const Node* find_node(const Match& m, std::initializer_list<std::string_view> ops) {
  for (const Node* node : m.nodes)
    for (std::string_view op : ops)
      if (node->is_op(op)) return node;
  UMA_CHECK(false, "the match holds none of the pattern's ops");
  return nullptr;
}

// The constant the match adds as a bias, or nullptr when it has no bias add.
const Value* added_bias(const Match& m) {
  for (const Node* node : m.nodes) {
    if (!node->is_op("add")) continue;
    for (const Value* operand : node->operands())
      if (operand->producer() != nullptr && operand->producer()->is_op("constant")) return operand;
  }
  return nullptr;
}

// Whether `bias`, broadcast against `out` (aligned at the right, numpy's way), varies at
// most along `axis`: one value per channel or unit, or a single value.
bool varies_only_along(const Shape& bias, const Shape& out, std::size_t axis) {
  if (bias.size() > out.size()) return false;
  std::size_t offset = out.size() - bias.size();
  for (std::size_t i = 0; i < bias.size(); ++i)
    if (bias[i] != 1 && !(offset + i == axis && bias[i] == out[axis])) return false;
  return true;
}

Status check_f32(const Node& node) {
  DType dtype = node.result()->tensor_type().dtype;
  if (dtype != DType::f32) return make_error("{} is not supported", dtype_name(dtype));
  return Status::success();
}

Status check_conv(const Match& m) {
  const Node* conv = find_node(m, {"nn.conv2d", "nn.conv1d"});
  UMA_TRY(check_f32(*conv));
  std::int64_t groups = conv->attrs().get_int("groups");
  std::int64_t channels = conv->operand(0)->tensor_type().shape[1];
  if (groups != 1 && groups != channels)
    return make_error("groups is {}; test_conv runs groups 1 or depthwise", groups);
  const Type& out = conv->result()->type();
  if (const Value* bias = added_bias(m);
      bias && !varies_only_along(bias->tensor_type().shape, out.tensor().shape, 1))
    return make_error("the added bias has shape {}, not one value per output channel",
                      to_string(bias->tensor_type().shape));
  // A residual add must not broadcast the convolution's result to a larger shape.
  for (const Node* node : m.nodes)
    if (node->is_op("add") && !(node->result()->type() == out))
      return make_error("the add broadcasts the convolution's result from {} to {}", to_string(out),
                        to_string(node->result()->type()));
  return Status::success();
}

// The residual of conv2d_residual is a value the model computes: an add of a constant is a
// bias, which conv2d takes.
Status check_conv_residual(const Match& m) {
  UMA_TRY(check_conv(m));
  const Node* sum = nullptr;
  for (const Node* node : m.nodes)
    if (node->is_op("add")) sum = node;  // the last add: the residual's
  for (const Value* operand : sum->operands())
    if (operand->producer() != nullptr && operand->producer()->is_op("constant"))
      return make_error("the residual is a constant");
  return Status::success();
}

// Dense and matmul add a bias per unit (the last axis), 1x1 convolutions per channel.
Status check_product(const Match& m) {
  const Node* product = find_node(m, {"nn.dense", "nn.matmul", "nn.conv2d"});
  UMA_TRY(check_f32(*product));
  const Shape& out = product->result()->tensor_type().shape;
  bool conv = product->is_op("nn.conv2d");
  if (const Value* bias = added_bias(m);
      bias && !varies_only_along(bias->tensor_type().shape, out, conv ? 1 : out.size() - 1))
    return make_error("the added bias has shape {}, not one value per {}",
                      to_string(bias->tensor_type().shape), conv ? "output channel" : "unit");
  return Status::success();
}

// test_elem runs an op alone when it is elementwise, unary or binary, and all f32.
Status supports_elementwise(const Node& node) {
  if (node.op().fusion != FusionCategory::kElementwise)
    return make_error("{} is not elementwise", node.op_name());
  if (node.num_operands() < 1 || node.num_operands() > 2)
    return make_error("{} takes {} operands; test_elem runs unary and binary ops", node.op_name(),
                      node.num_operands());
  std::vector<const Value*> values(node.operands().begin(), node.operands().end());
  for (const Value* result : node.results()) values.push_back(result);
  for (const Value* value : values) {
    if (!value->type().is_tensor()) return make_error("tuples are not supported");
    DType dtype = value->tensor_type().dtype;
    if (dtype != DType::f32) return make_error("{} is not supported", dtype_name(dtype));
  }
  return Status::success();
}

// test_int8's kernel reads and writes 8-bit integers: the composite's input (the quantized
// data) and its result.
Status check_int8(const Match& m) {
  for (const Value* value : {m.inputs.front(), m.root}) {
    DType dtype = value->tensor_type().dtype;
    if (dtype != DType::u8 && dtype != DType::i8)
      return make_error("{} is not supported; test_int8 runs u8 and i8", dtype_name(dtype));
  }
  return Status::success();
}

PartitionTarget conv_target() {
  return {.name = "test_conv",
          .patterns = {{"conv2d_residual", conv_residual(), check_conv_residual},
                       {"conv2d", conv_chain("nn.conv2d"), check_conv},
                       {"conv1d", conv_chain("nn.conv1d"), check_conv}}};
}

PartitionTarget dense_target() {
  PatternPtr dense = with_constant_weight("nn.dense");
  // A constant right-hand side (a weight) first, so that it is cloned into the composite.
  PatternPtr matmul = alt(is_op("nn.matmul", {wildcard(), is_constant()}),
                          is_op("nn.matmul", {wildcard(), wildcard()}));
  return {.name = "test_dense",
          .patterns = {{"dense", dense_chain(dense), check_product},
                       {"matmul", dense_chain(matmul), check_product},
                       {"conv2d_1x1", dense_chain(conv_1x1()), check_product}}};
}

PartitionTarget int8_target() {
  return {.name = "test_int8", .patterns = {{"qconv2d", quantized_conv("nn.conv2d"), check_int8}}};
}

PartitionTarget elem_target() {
  return {.name = "test_elem", .patterns = {}, .supports_op = supports_elementwise};
}

}  // namespace

void register_test_targets(PartitionTargetRegistry& registry) {
  for (PartitionTarget target : {conv_target(), dense_target(), elem_target(), int8_target()}) {
    std::string name = target.name;
    UMA_CHECK(registry.add(std::move(target)).ok(), "partition target {} registered twice", name);
  }
}

}  // namespace uma
