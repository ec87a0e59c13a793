// Each dnnl composite's lowering: one call of the kernel's entry point for it
//
//   dnnl_kernel_conv(src, weights, bias, residual, dst, rank, batch, in_channels, out_channels,
//                    groups, in[3], kernel[3], out[3], strides[3], dilation[3], pad_begin[3],
//                    pad_end[3], algorithm, src_layout, dst_layout, has_sum, eltwise, alpha,
//                    beta, scratchpad_bytes, scratchpad)
//   dnnl_kernel_dense(src, weights, bias, residual, dst, batch, in_features, out_features,
//                     weights_in_out, has_sum, eltwise, alpha, beta, scratchpad_bytes, scratchpad)
//   dnnl_kernel_pool(src, dst, rank, batch, channels, in[3], kernel[3], out[3], strides[3],
//                    dilation[3], pad_begin[3], pad_end[3], algorithm, src_layout, dst_layout,
//                    scratchpad_bytes, scratchpad)
//   dnnl_kernel_softmax(src, dst, outer, axis, inner, log, scratchpad_bytes, scratchpad)
//
// (kernels/dnnl_ops.c), with sizes and attributes from the composite's nodes and layouts
// from its function's attributes (1 for channels last); bias and residual are null when the
// composite has none. The scratchpad is the call's workspace, as large as the primitive made
// at build time wants. dnnl-load-state then puts the call's state slot first and calls the
// _init of the same arguments at load time.
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>

#include "backends/dnnl/dnnl.h"
#include "uma/lower/compute_util.h"

namespace uma::backends::dnnl {
namespace {

using tir::Expr;

const Node* find(const std::vector<const Node*>& nodes, std::string_view op) {
  for (const Node* node : nodes)
    if (node->is_op(op)) return node;
  return nullptr;
}

// The first node of the composite that is no constant: its anchor.
const Node* anchor(const std::vector<const Node*>& nodes) {
  for (const Node* node : nodes)
    if (!node->is_op("constant")) return node;
  return nullptr;
}

const Node* find_conv(const std::vector<const Node*>& nodes) {
  for (std::string_view op : {"nn.conv1d", "nn.conv2d", "nn.conv3d"})
    if (const Node* conv = find(nodes, op)) return conv;
  return nullptr;
}

// The composite's one operand and one result, for the ops without weights.
Expected<std::vector<Expr>> src_dst_args(const lower::CompositeOperands& operands,
                                         const Node& node) {
  UMA_TRY_ASSIGN(Expr src, operands.address(*node.operand(0)));
  UMA_TRY_ASSIGN(Expr dst, operands.address(*operands.composite().outputs()[0]));
  return std::vector<Expr>{src, dst};
}

std::vector<const Node*> composite_nodes(const lower::CompositeOperands& operands) {
  std::vector<const Node*> nodes;
  for (const auto& node : operands.composite().nodes()) nodes.push_back(node.get());
  return nodes;
}

Status check_f32(const Node& anchor) {
  for (const Value* operand : anchor.operands())
    if (DType dtype = operand->tensor_type().dtype; dtype != DType::f32)
      return make_error("{} operands are not supported; the backend computes f32",
                        dtype_name(dtype));
  return Status::success();
}

// The arguments every call starts with: src, weights, bias, residual, dst.
Expected<std::vector<Expr>> data_args(const lower::CompositeOperands& operands, const Node& anchor,
                                      const Epilogue& epilogue) {
  UMA_TRY_ASSIGN(Expr src, operands.address(*anchor.operand(0)));
  UMA_TRY_ASSIGN(Expr weights, operands.address(*anchor.operand(1)));
  UMA_TRY_ASSIGN(Expr bias, operands.address_or_null(epilogue.bias));
  UMA_TRY_ASSIGN(Expr residual, operands.address_or_null(epilogue.residual));
  UMA_TRY_ASSIGN(Expr dst, operands.address(*operands.composite().outputs()[0]));
  return std::vector<Expr>{src, weights, bias, residual, dst};
}

void add_layout_args(const Layouts& layouts, std::vector<Expr>& args) {
  args.push_back(Expr(std::int64_t{layouts.src_channels_last}));
  args.push_back(Expr(std::int64_t{layouts.dst_channels_last}));
}

// The call of `entry` with `args`, then the scratchpad of `primitive`: its size in bytes
// and the workspace the lowering allocates for it.
Expected<lower::ExternCall> extern_call(std::string_view entry, std::vector<Expr> args,
                                       const Expected<Primitive>& primitive) {
  UMA_TRY(check_implementation(entry, primitive));
  args.push_back(Expr(primitive->scratchpad_bytes));
  return lower::ExternCall{.name = fmt::format("{}{}", kEntryPrefix, entry),
                           .args = std::move(args),
                           .workspace = primitive->scratchpad_bytes};
}

void add_epilogue_args(const Epilogue& epilogue, std::vector<Expr>& args) {
  args.push_back(Expr(std::int64_t{epilogue.residual != nullptr}));
  args.push_back(Expr(epilogue.eltwise));
  args.push_back(lower::constant(DType::f32, epilogue.alpha));
  args.push_back(lower::constant(DType::f32, epilogue.beta));
}

}  // namespace

Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(std::string winograd, target.get_string("winograd"));
  if (winograd != "auto" && winograd != "on" && winograd != "off")
    return make_error("winograd must be auto, on or off, not '{}'", winograd);
  return Status::success();
}

Expected<ConvCall> conv_call(const std::vector<const Node*>& nodes, const Target& target) {
  UMA_TRY(check_target(target));
  const Node* conv = find_conv(nodes);
  if (conv == nullptr) return make_error("the composite has no convolution");
  UMA_TRY(check_f32(*conv));
  const Shape& data = conv->operand(0)->tensor_type().shape;
  const Shape& weight = conv->operand(1)->tensor_type().shape;
  const Shape& result = conv->result()->tensor_type().shape;
  const AttrMap& attrs = conv->attrs();
  ConvCall call;
  call.rank = static_cast<std::int64_t>(data.size()) - 2;
  call.batch = data[0];
  call.in_channels = data[1];
  call.out_channels = weight[0];
  call.groups = attrs.get_int("groups");
  const auto& strides = attrs.get_ints("strides");
  const auto& dilation = attrs.get_ints("dilation");
  const auto& padding = attrs.get_ints("padding");
  auto rank = static_cast<std::size_t>(call.rank);
  for (std::size_t i = 0; i < rank; ++i) {
    call.in[i] = data[2 + i];
    call.kernel[i] = weight[2 + i];
    call.out[i] = result[2 + i];
    call.strides[i] = strides[i];
    call.dilation[i] = dilation[i];
    call.pad_begin[i] = padding[i];
    call.pad_end[i] = padding[rank + i];
  }
  // Winograd computes 3x3 stride-1 2-D convolutions only.
  bool winograd_shape = rank == 2 && call.groups == 1 && call.kernel[0] == 3 &&
                        call.kernel[1] == 3 && call.strides[0] == 1 && call.strides[1] == 1 &&
                        call.dilation[0] == 1 && call.dilation[1] == 1;
  std::string winograd = target.get_string("winograd").value();
  call.algorithm = dnnl_convolution_direct;
  if (winograd == "on" && winograd_shape) call.algorithm = dnnl_convolution_winograd;
  if (winograd == "auto" && winograd_shape) call.algorithm = dnnl_convolution_auto;
  UMA_TRY_ASSIGN(call.epilogue, epilogue(*conv, nodes, 1));
  return call;
}

Expected<DenseCall> dense_call(const std::vector<const Node*>& nodes) {
  const Node* dense = anchor(nodes);
  if (dense == nullptr || !(dense->is_op("nn.dense") || dense->is_op("nn.matmul")))
    return make_error("the composite has no nn.dense or nn.matmul");
  UMA_TRY(check_f32(*dense));
  const Shape& data = dense->operand(0)->tensor_type().shape;
  const Shape& weight = dense->operand(1)->tensor_type().shape;
  DenseCall call;
  call.weights_in_out = dense->is_op("nn.matmul");
  if (call.weights_in_out && (data.size() < 2 || weight.size() != 2))
    return make_error(
        "nn.matmul of {} by {}: the backend takes a matrix or a batch of them "
        "by one constant matrix",
        to_string(data), to_string(weight));
  call.batch = TensorType{DType::f32, data}.num_elements() / data.back();
  call.in_features = data.back();
  call.out_features = call.weights_in_out ? weight[1] : weight[0];
  UMA_TRY_ASSIGN(call.epilogue, epilogue(*dense, nodes, data.size() - 1));
  return call;
}

Expected<PoolCall> pool_call(const std::vector<const Node*>& nodes) {
  const Node* pool = anchor(nodes);
  if (pool == nullptr) return make_error("the composite has no pooling");
  UMA_TRY(check_f32(*pool));
  const Shape& data = pool->operand(0)->tensor_type().shape;
  const Shape& result = pool->result()->tensor_type().shape;
  PoolCall call;
  call.rank = static_cast<std::int64_t>(data.size()) - 2;
  call.batch = data[0];
  call.channels = data[1];
  auto rank = static_cast<std::size_t>(call.rank);
  bool global = pool->op_name().starts_with("nn.global_");
  bool max = pool->op_name().find("max") != std::string::npos;
  const AttrMap& attrs = pool->attrs();
  bool count_pad = !max && !global && attrs.get_int("count_include_pad") == 1;
  call.algorithm = max         ? dnnl_pooling_max
                   : count_pad ? dnnl_pooling_avg_include_padding
                               : dnnl_pooling_avg_exclude_padding;
  for (std::size_t i = 0; i < rank; ++i) {
    call.in[i] = data[2 + i];
    call.out[i] = result[2 + i];
    if (global) {
      call.kernel[i] = data[2 + i];
      continue;
    }
    call.kernel[i] = attrs.get_ints("pool_size")[i];
    call.strides[i] = attrs.get_ints("strides")[i];
    if (max) call.dilation[i] = attrs.get_ints("dilation")[i];
    call.pad_begin[i] = attrs.get_ints("padding")[i];
    call.pad_end[i] = attrs.get_ints("padding")[rank + i];
    // A ceil-mode window that hangs past the trailing padding: oneDNN pads it further.
    std::int64_t reach = (call.out[i] - 1) * call.strides[i] +
                         (call.kernel[i] - 1) * call.dilation[i] + 1 - call.in[i] -
                         call.pad_begin[i];
    if (reach > call.pad_end[i]) {
      if (count_pad)
        return make_error(
            "an average counting the padding in ceil mode would count the "
            "windows' part past the padding, which ONNX does not");
      call.pad_end[i] = reach;
    }
  }
  return call;
}

Expected<SoftmaxCall> softmax_call(const std::vector<const Node*>& nodes) {
  const Node* softmax = anchor(nodes);
  if (softmax == nullptr) return make_error("the composite has no softmax");
  UMA_TRY(check_f32(*softmax));
  const Shape& data = softmax->operand(0)->tensor_type().shape;
  std::int64_t rank = static_cast<std::int64_t>(data.size());
  std::int64_t axis = softmax->attrs().get_int("axis");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return make_error("axis {} is out of range", axis);
  SoftmaxCall call;
  for (std::int64_t i = 0; i < rank; ++i) {
    std::int64_t size = data[static_cast<std::size_t>(i)];
    if (i < axis) call.outer *= size;
    if (i == axis) call.axis = size;
    if (i > axis) call.inner *= size;
  }
  call.log = softmax->is_op("nn.log_softmax");
  return call;
}

Expected<lower::ExternCall> lower_conv(const lower::CompositeOperands& operands,
                                       const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(ConvCall call, conv_call(nodes, target));
  call.layouts = layouts_of(operands.composite());
  UMA_TRY_ASSIGN(std::vector<Expr> args, data_args(operands, *find_conv(nodes), call.epilogue));
  for (std::int64_t size :
       {call.rank, call.batch, call.in_channels, call.out_channels, call.groups})
    args.push_back(Expr(size));
  for (const std::int64_t* sizes :
       {call.in, call.kernel, call.out, call.strides, call.dilation, call.pad_begin, call.pad_end})
    for (int i = 0; i < 3; ++i) args.push_back(Expr(sizes[i]));
  args.push_back(Expr(call.algorithm));
  add_layout_args(call.layouts, args);
  add_epilogue_args(call.epilogue, args);
  return extern_call("conv", std::move(args), conv_primitive(call));
}

Expected<lower::ExternCall> lower_dense(const lower::CompositeOperands& operands, const Target&) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(DenseCall call, dense_call(nodes));
  UMA_TRY_ASSIGN(std::vector<Expr> args, data_args(operands, *anchor(nodes), call.epilogue));
  for (std::int64_t size :
       {call.batch, call.in_features, call.out_features, std::int64_t{call.weights_in_out}})
    args.push_back(Expr(size));
  add_epilogue_args(call.epilogue, args);
  return extern_call("dense", std::move(args), dense_primitive(call));
}

Expected<lower::ExternCall> lower_pool(const lower::CompositeOperands& operands, const Target&) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(PoolCall call, pool_call(nodes));
  call.layouts = layouts_of(operands.composite());
  UMA_TRY_ASSIGN(std::vector<Expr> args, src_dst_args(operands, *anchor(nodes)));
  for (std::int64_t size : {call.rank, call.batch, call.channels}) args.push_back(Expr(size));
  for (const std::int64_t* sizes :
       {call.in, call.kernel, call.out, call.strides, call.dilation, call.pad_begin, call.pad_end})
    for (int i = 0; i < 3; ++i) args.push_back(Expr(sizes[i]));
  args.push_back(Expr(call.algorithm));
  add_layout_args(call.layouts, args);
  return extern_call("pool", std::move(args), pool_primitive(call));
}

Expected<lower::ExternCall> lower_softmax(const lower::CompositeOperands& operands, const Target&) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(SoftmaxCall call, softmax_call(nodes));
  UMA_TRY_ASSIGN(std::vector<Expr> args, src_dst_args(operands, *anchor(nodes)));
  for (std::int64_t size : {call.outer, call.axis, call.inner, std::int64_t{call.log}})
    args.push_back(Expr(size));
  return extern_call("softmax", std::move(args), softmax_primitive(call));
}

}  // namespace uma::backends::dnnl
