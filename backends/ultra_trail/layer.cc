// UltraTrail's layers (see layer.h).
#include "layer.h"

#include <fmt/format.h>

#include <limits>

#include "uma/partition/partition.h"

namespace uma::backends::ultra_trail {
namespace {

// The accelerator computes in f32.
constexpr std::int64_t kElementBytes = 4;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Whether `bias`, broadcast against `out` (aligned at the right, numpy's way), holds one
// value per channel (axis 1) and is otherwise constant.
bool per_channel(const Shape& bias, const Shape& out) {
  if (bias.size() > out.size()) return false;
  std::size_t offset = out.size() - bias.size();
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < bias.size(); ++i) {
    if (bias[i] != 1 && !(offset + i == 1 && bias[i] == out[1])) return false;
    elements *= bias[i];
  }
  return elements == out[1];
}

Expected<std::int64_t> positive_attr(const Target& target, std::string_view attr,
                                     std::int64_t max) {
  UMA_TRY_ASSIGN(std::int64_t value, target.get_int(attr));
  if (value < 1 || value > max)
    return make_error("target '{}': attribute '{}' must be in [1, {}], not {}", target.str(), attr,
                      max, value);
  return value;
}

}  // namespace

Expected<LayerNodes> find_layer(std::span<const Node* const> nodes) {
  LayerNodes layer;
  for (const Node* node : nodes) {
    if (node->is_op("nn.conv1d"))
      layer.conv = node;
    else if (node->is_op("add"))
      layer.add = node;
    else if (node->is_op("nn.relu"))
      layer.relu = node;
    else if (!node->is_op("constant"))
      return make_error("{} is not part of an ultra_trail layer", node->location());
  }
  if (layer.conv == nullptr) return make_error("the layer has no nn.conv1d");
  if (layer.conv->num_operands() == 3) layer.bias = layer.conv->operand(2);
  if (layer.add != nullptr)
    for (const Value* operand : layer.add->operands())
      if (operand != layer.conv->result()) layer.bias = operand;
  return layer;
}

Expected<LayerNodes> find_layer(const Function& composite) {
  std::vector<const Node*> nodes;
  for (const auto& node : composite.nodes()) nodes.push_back(node.get());
  return find_layer(nodes);
}

std::vector<Function*> partitioned_functions(const Module& module) {
  std::vector<Function*> functions;
  for (Function* function : module.functions())
    if (function->attrs().string_or_none(kCompilerAttr) == kTargetName)
      functions.push_back(function);
  return functions;
}

Expected<LayerNodes> layer_of_call(const Node& node) {
  const Function* callee = node.callee();
  if (!node.is_op("call") || callee == nullptr ||
      callee->attrs().string_or_none(kCompositeAttr) != kComposite)
    return make_error(
        "{}: not a call of a composite {}, which is all an ultra_trail function holds",
        node.location(), kComposite);
  Expected<LayerNodes> layer = find_layer(*callee);
  if (!layer) return layer.error().with_context(node.location());
  return layer;
}

Expected<Hardware> hardware(const Target& target) {
  Hardware hw;
  UMA_TRY_ASSIGN(hw.dimension, positive_attr(target, "dimension", 1024));
  // Up to 1 GiB each: the element counts of what fits then stay within ut_run's 32-bit
  // arguments.
  constexpr std::int64_t kMaxKb = std::int64_t{1} << 20;
  UMA_TRY_ASSIGN(std::int64_t wmem_kb, positive_attr(target, "wmem_kb", kMaxKb));
  UMA_TRY_ASSIGN(std::int64_t fmem_kb, positive_attr(target, "fmem_kb", kMaxKb));
  UMA_TRY_ASSIGN(std::int64_t bmem_kb, positive_attr(target, "bmem_kb", kMaxKb));
  hw.wmem = wmem_kb * 1024;
  hw.fmem = fmem_kb * 1024;
  hw.bmem = bmem_kb * 1024;
  return hw;
}

Status check_layer(const LayerNodes& layer, const Hardware& hw) {
  const Node& conv = *layer.conv;
  DType dtype = conv.operand(0)->tensor_type().dtype;
  if (dtype != DType::f32)
    return make_error("the data is {}; ultra_trail runs f32", dtype_name(dtype));
  if (std::int64_t groups = conv.attrs().get_int("groups"); groups != 1)
    return make_error("groups is {}; ultra_trail runs groups 1", groups);
  if (std::int64_t dilation = conv.attrs().get_ints("dilation")[0]; dilation != 1)
    return make_error("dilation is {}; ultra_trail runs dilation 1", dilation);
  if (layer.add != nullptr) {
    const Shape& bias = layer.bias->tensor_type().shape;
    if (!per_channel(bias, conv.result()->tensor_type().shape))
      return make_error("the added bias has shape {}, not one value per output channel",
                        to_string(bias));
  }
  LayerConfig config = layer_config(layer, hw);
  // The rest is bounded by the memories; these are not.
  for (ConfigField field : {kStride, kPadLeft, kPadRight})
    if (config[field] > std::numeric_limits<std::int32_t>::max())
      return make_error("its stride {} or padding [{}, {}] exceeds the 32-bit registers",
                        config[kStride], config[kPadLeft], config[kPadRight]);
  LayerBytes bytes = layer_bytes(config);
  if (bytes.weights > hw.wmem)
    return make_error("its weights take {} bytes, more than wmem's {}", bytes.weights, hw.wmem);
  if (bytes.bias > hw.bmem)
    return make_error("its bias takes {} bytes, more than bmem's {}", bytes.bias, hw.bmem);
  if (bytes.input + bytes.output > hw.fmem)
    return make_error("a sample's features take {} bytes ({} in, {} out), more than fmem's {}",
                      bytes.input + bytes.output, bytes.input, bytes.output, hw.fmem);
  return Status::success();
}

LayerConfig layer_config(const LayerNodes& layer, const Hardware& hw) {
  const Node& conv = *layer.conv;
  const Shape& data = conv.operand(0)->tensor_type().shape;
  const Shape& weight = conv.operand(1)->tensor_type().shape;
  const Shape& out = conv.result()->tensor_type().shape;
  const std::vector<std::int64_t>& padding = conv.attrs().get_ints("padding");
  LayerConfig config{};
  config[kBatch] = data[0];
  config[kDimension] = hw.dimension;
  config[kChannelsIn] = data[1];
  config[kBlocksIn] = ceil_div(data[1], hw.dimension);
  config[kChannelsOut] = weight[0];
  config[kBlocksOut] = ceil_div(weight[0], hw.dimension);
  config[kKernel] = weight[2];
  config[kStride] = conv.attrs().get_ints("strides")[0];
  config[kPadLeft] = padding[0];
  config[kPadRight] = padding[1];
  config[kLengthIn] = data[2];
  config[kLengthOut] = out[2];
  config[kBias] = layer.bias != nullptr ? 1 : 0;
  config[kRelu] = layer.relu != nullptr ? 1 : 0;
  return config;
}

LayerBytes layer_bytes(const LayerConfig& c) {
  return {c[kChannelsOut] * c[kChannelsIn] * c[kKernel] * kElementBytes,
          c[kBias] ? c[kChannelsOut] * kElementBytes : 0,
          c[kChannelsIn] * c[kLengthIn] * kElementBytes,
          c[kChannelsOut] * c[kLengthOut] * kElementBytes};
}

Expected<std::vector<LayerConfig>> unpack_config(const std::vector<std::int64_t>& packed) {
  if (packed.size() % kConfigFields != 0)
    return make_error("attribute '{}' holds {} values, not a multiple of {}", kConfigAttr,
                      packed.size(), static_cast<std::size_t>(kConfigFields));
  std::vector<LayerConfig> layers(packed.size() / kConfigFields);
  for (std::size_t i = 0; i < packed.size(); ++i)
    layers[i / kConfigFields][i % kConfigFields] = packed[i];
  return layers;
}

}  // namespace uma::backends::ultra_trail
