// A layer's geometry (see npu_sim.h): what npu_conv and npu_pool take, and what the
// performance model counts.
#include "backends/npu_sim/npu_sim.h"

namespace uma::backends::npu_sim {

Geometry geometry(const Node& layer) {
  const Shape& data = layer.operand(0)->tensor_type().shape;
  const Shape& out = layer.result()->tensor_type().shape;
  Geometry g;
  std::string_view op = layer.op_name();
  if (op == "nn.dense" || op == "nn.matmul") {
    // (M, K) by (N, K) or (K, N): M pixels of K channels, 1 x 1 taps.
    g.batch = data[0];
    g.channels = data[1];
    g.out_channels = out[1];
    g.weight_kn = op == "nn.matmul" ? 1 : 0;
    return g;
  }
  g.batch = data[0];
  g.channels = data[1];
  g.out_channels = out[1];
  if (op.starts_with("nn.global_")) {
    g.height = g.kh = data[2];
    g.width = g.kw = data[3];
    return g;
  }
  const AttrMap& attrs = layer.attrs();
  const std::vector<std::int64_t>& strides = attrs.get_ints("strides");
  const std::vector<std::int64_t>& padding = attrs.get_ints("padding");
  std::vector<std::int64_t> dilation = attrs.has("dilation") ? attrs.get_ints("dilation")
                                                              : std::vector<std::int64_t>{1, 1};
  Shape kernel = op.starts_with("nn.conv") ? Shape(layer.operand(1)->tensor_type().shape.begin() + 2,
                                                   layer.operand(1)->tensor_type().shape.end())
                                           : Shape(attrs.get_ints("pool_size"));
  if (op.starts_with("nn.conv")) g.groups = attrs.get_int("groups");
  if (data.size() == 3) {  // 1-D: height 1
    g.width = data[2];
    g.out_w = out[2];
    g.kw = kernel[0];
    g.stride_w = strides[0];
    g.pad_left = padding[0];
    g.pad_right = padding[1];
    g.dilation_w = dilation[0];
    return g;
  }
  g.height = data[2];
  g.width = data[3];
  g.out_h = out[2];
  g.out_w = out[3];
  g.kh = kernel[0];
  g.kw = kernel[1];
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.pad_top = padding[0];
  g.pad_left = padding[1];
  g.pad_bottom = padding[2];
  g.pad_right = padding[3];
  g.dilation_h = dilation[0];
  g.dilation_w = dilation[1];
  return g;
}

bool is_layer(const Node& node) {
  return !node.is_op("constant") && !node.is_op("add") && !node.is_op("nn.relu") &&
         !node.is_op("clip");
}

const Node* layer_of(const Function& composite) {
  for (const auto& node : composite.nodes())
    if (is_layer(*node)) return node.get();
  return nullptr;
}

}  // namespace uma::backends::npu_sim
