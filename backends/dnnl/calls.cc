// Each dnnl composite's lowering: one call of the kernel's entry point for it
//
//   dnnl_kernel_conv(src, weights, bias, residual, dst, rank, batch, in_channels, out_channels,
//                    groups, in[3], kernel[3], out[3], strides[3], dilation[3], pad_begin[3],
//                    pad_end[3], algorithm, src_layout, dst_layout, has_sum, eltwise, alpha,
//                    beta, eltwise2, alpha2, beta2, bf16, ...)
//   dnnl_kernel_dense(src, weights, bias, residual, dst, batch, in_features, out_features,
//                     weights_in_out, has_sum, eltwise, alpha, beta, eltwise2, alpha2,
//                     beta2, bf16, ...)
//   dnnl_kernel_matmul(src, weights, bias, residual, dst, rank, src_dims[5], src_strides[5],
//                      weights_dims[5], weights_strides[5], dst_dims[5], has_sum, eltwise,
//                      alpha, beta, eltwise2, alpha2, beta2, ...)
//   dnnl_kernel_concat(srcs[inputs], dst, inputs, sizes[inputs], rank, dims[5], axis,
//                      src_layout, dst_layout)
//   dnnl_kernel_pool(src, dst, rank, batch, channels, in[3], kernel[3], out[3], strides[3],
//                    dilation[3], pad_begin[3], pad_end[3], algorithm, src_layout, dst_layout,
//                    ...)
//   dnnl_kernel_softmax(src, dst, outer, axis, inner, log, ...)
//   dnnl_kernel_binary(src, src1, dst, rank, dims[5], broadcast[5], algorithm, src_layout,
//                      dst_layout, ...)
//   dnnl_kernel_batch_norm(src, scale, shift, mean, variance, dst, rank, dims[5], epsilon,
//                          src_layout, dst_layout, relu, ...)
//   dnnl_kernel_layer_norm(src, scale, shift, dst, outer, inner, has_shift, epsilon, ...)
//   dnnl_kernel_eltwise(src, dst, elements, algorithm, alpha, beta, ...)
//
// where ... is max_isa, scratchpad_bytes, scratchpad (kernels/dnnl_ops.c), with sizes and
// attributes from the composite's nodes, layouts from its function's attributes (1 for
// channels last) and bf16 and max_isa (a rank: max_isa_rank) from the target; bias and
// residual are null when the composite has none. The scratchpad is the call's workspace, as
// large as the primitive made at build time wants. dnnl-load-state then puts the call's
// state slot first and calls the _init of the same arguments at load time.
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>

#include "backends/dnnl/dnnl.h"
#include "uma/lower/compute_util.h"
#include "uma/op/shape_util.h"
#include "uma/tir/array.h"

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
  args.push_back(Expr(static_cast<std::int64_t>(layouts.src)));
  args.push_back(Expr(static_cast<std::int64_t>(layouts.dst)));
}

// The call of `entry` with `args`, then the target's max_isa and the scratchpad of
// `primitive`: its size in bytes and the workspace the lowering allocates for it.
Expected<lower::ExternCall> extern_call(std::string_view entry, std::vector<Expr> args,
                                        const Target& target,
                                        const Expected<Primitive>& primitive) {
  UMA_TRY(check_implementation(entry, primitive));
  args.push_back(Expr(max_isa_rank(target)));
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
  args.push_back(Expr(epilogue.eltwise2));
  args.push_back(lower::constant(DType::f32, epilogue.alpha2));
  args.push_back(lower::constant(DType::f32, epilogue.beta2));
}

// The matmul's operand `index` as oneDNN reads it: the value the composite is given (the
// input of the composite's transpose that makes the operand, or the operand itself), and the
// operand's strides in it, in elements.
struct StridedOperand {
  const Value* value = nullptr;
  std::vector<std::int64_t> strides;
};

StridedOperand strided_operand(const Node& matmul, std::size_t index,
                               const std::vector<const Node*>& nodes) {
  const Value* operand = matmul.operand(index);
  const Node* producer = operand->producer();
  bool transposed = producer != nullptr && producer->is_op("transpose") &&
                    std::find(nodes.begin(), nodes.end(), producer) != nodes.end();
  if (!transposed) return {operand, row_major_strides(operand->tensor_type().shape)};
  // Operand dimension i is the input's dimension axes[i] (all of them reversed when no axes
  // are given; the transpose's verifier made them a permutation).
  const Value* input = producer->operand(0);
  std::vector<std::int64_t> input_strides = row_major_strides(input->tensor_type().shape);
  const auto& axes = producer->attrs().get_ints("axes");
  std::size_t rank = input_strides.size();
  std::vector<std::int64_t> strides(rank);
  for (std::size_t i = 0; i < rank; ++i)
    strides[i] = input_strides[axes.empty() ? rank - 1 - i : *normalize_axis(axes[i], rank)];
  return {input, strides};
}

}  // namespace

Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(std::string winograd, target.get_string("winograd"));
  if (winograd != "auto" && winograd != "on" && winograd != "off")
    return make_error("winograd must be auto, on or off, not '{}'", winograd);
  UMA_TRY_ASSIGN(std::string isa, target.get_string("max_isa"));
  if (isa != "all" && std::find(std::begin(kIsas), std::end(kIsas), isa) == std::end(kIsas))
    return make_error("max_isa must be all or one of oneDNN's instruction sets ({}), not '{}'",
                      fmt::join(kIsas, ", "), isa);
  return Status::success();
}

std::int64_t max_isa_rank(const Target& target) {
  Expected<std::string> isa = target.get_string("max_isa");
  if (!isa) return 0;
  auto it = std::find(std::begin(kIsas), std::end(kIsas), *isa);
  return it == std::end(kIsas) ? 0 : (it - std::begin(kIsas)) + 1;
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
  UMA_TRY_ASSIGN(std::string winograd, target.get_string("winograd"));
  const bool winograd_auto = winograd == "auto";
  call.algorithm = dnnl_convolution_direct;
  if (winograd == "on" && winograd_shape) call.algorithm = dnnl_convolution_winograd;
  UMA_TRY_ASSIGN(call.epilogue, epilogue(*conv, nodes, 1));
  UMA_TRY_ASSIGN(call.bf16, target.get_bool("bf16"));
  // auto: Winograd F(2,3) where it pays and holds the accuracy (its error measured at 2.5e-6
  // of the largest output): layers of 64 channels or more in and out, which oneDNN computes
  // in it with this epilogue; else direct.
  if (winograd_auto && winograd_shape && call.in_channels >= 64 && call.out_channels >= 64) {
    ConvCall trial = call;
    trial.algorithm = dnnl_convolution_winograd;
    if (conv_primitive(trial, target).ok()) call.algorithm = trial.algorithm;
  }
  return call;
}

Expected<DenseCall> dense_call(const std::vector<const Node*>& nodes, const Target& target) {
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
  UMA_TRY_ASSIGN(call.bf16, target.get_bool("bf16"));
  UMA_TRY_ASSIGN(call.epilogue, epilogue(*dense, nodes, data.size() - 1));
  return call;
}

Expected<MatmulCall> matmul_call(const std::vector<const Node*>& nodes) {
  const Node* matmul = find(nodes, "nn.matmul");
  if (matmul == nullptr) return make_error("the composite has no nn.matmul");
  UMA_TRY(check_f32(*matmul));
  const Shape& a = matmul->operand(0)->tensor_type().shape;
  const Shape& b = matmul->operand(1)->tensor_type().shape;
  const Shape& result = matmul->result()->tensor_type().shape;
  if (a.size() < 2 || b.size() < 2)
    return make_error(
        "nn.matmul of {} by {} has a vector operand; the backend takes matrices and batches of "
        "them",
        to_string(a), to_string(b));
  if (result.size() > 5)
    return make_error("the result has rank {}; the backend takes up to 5", result.size());
  MatmulCall call;
  call.rank = static_cast<std::int64_t>(result.size());
  // Fewer dimensions are leading ones of size 1 (oneDNN broadcasts them).
  auto place = [&](const Shape& shape, const std::vector<std::int64_t>& strides, std::int64_t* dims,
                   std::int64_t* out_strides) {
    std::size_t offset = result.size() - shape.size();
    for (std::size_t i = 0; i < shape.size(); ++i) {
      dims[offset + i] = shape[i];
      out_strides[offset + i] = strides[i];
    }
    for (std::size_t i = offset; i-- > 0;) out_strides[i] = out_strides[i + 1] * dims[i + 1];
  };
  place(a, strided_operand(*matmul, 0, nodes).strides, call.src_dims, call.src_strides);
  place(b, strided_operand(*matmul, 1, nodes).strides, call.weights_dims, call.weights_strides);
  for (std::size_t i = 0; i < result.size(); ++i) call.dst_dims[i] = result[i];
  // The epilogue reads the nodes after the matmul: not the transposes before it.
  std::vector<const Node*> after;
  for (const Node* node : nodes)
    if (!node->is_op("transpose")) after.push_back(node);
  UMA_TRY_ASSIGN(call.epilogue, epilogue(*matmul, after, result.size() - 1));
  return call;
}

Expected<ConcatCall> concat_call(const std::vector<const Node*>& nodes) {
  const Node* concat = find(nodes, "concatenate");
  if (concat == nullptr) return make_error("the composite has no concatenation");
  UMA_TRY(check_f32(*concat));
  const Shape& result = concat->result()->tensor_type().shape;
  if (result.empty() || result.size() > 5)
    return make_error("the result has rank {}; the backend takes 1 to 5", result.size());
  ConcatCall call;
  call.rank = static_cast<std::int64_t>(result.size());
  call.axis =
      static_cast<std::int64_t>(*normalize_axis(concat->attrs().get_int("axis"), result.size()));
  for (std::size_t i = 0; i < result.size(); ++i) call.dims[i] = result[i];
  for (const Value* operand : concat->operands()) {
    std::int64_t size = operand->tensor_type().shape[static_cast<std::size_t>(call.axis)];
    // An operand of no elements may have no buffer to point to.
    if (size == 0) return make_error("an operand is empty along axis {}", call.axis);
    call.sizes.push_back(size);
  }
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

Expected<BinaryCall> binary_call(const std::vector<const Node*>& nodes) {
  const Node* op = anchor(nodes);
  if (op == nullptr) return make_error("the composite has no binary op");
  UMA_TRY(check_f32(*op));
  static const std::pair<std::string_view, dnnl_alg_kind_t> algorithms[] = {
      {"add", dnnl_binary_add},    {"subtract", dnnl_binary_sub}, {"multiply", dnnl_binary_mul},
      {"divide", dnnl_binary_div}, {"maximum", dnnl_binary_max},  {"minimum", dnnl_binary_min}};
  BinaryCall call;
  for (const auto& [name, algorithm] : algorithms)
    if (op->is_op(name)) call.algorithm = algorithm;
  if (call.algorithm == 0) return make_error("{} is no binary op oneDNN has", op->op_name());
  const Shape& out = op->result()->tensor_type().shape;
  Shape first = op->operand(0)->tensor_type().shape;
  Shape second = op->operand(1)->tensor_type().shape;
  if (out.empty() || out.size() > 5)
    return make_error("the result has rank {}; the backend takes 1 to 5", out.size());
  if (first != out) {
    bool commutes = !op->is_op("subtract") && !op->is_op("divide");
    if (second != out || !commutes)
      return make_error(
          "{} broadcasts its first operand from {} to {}; oneDNN broadcasts only "
          "the second",
          op->op_name(), to_string(first), to_string(out));
    std::swap(first, second);
    call.swapped = true;
  }
  call.rank = static_cast<std::int64_t>(out.size());
  std::size_t offset = out.size() - second.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    call.dims[i] = out[i];
    call.broadcast[i] = i < offset ? 1 : second[i - offset];
  }
  return call;
}

Expected<NormCall> norm_call(const std::vector<const Node*>& nodes) {
  const Node* norm = anchor(nodes);
  if (norm == nullptr) return make_error("the composite has no normalization");
  UMA_TRY(check_f32(*norm));
  const Shape& data = norm->operand(0)->tensor_type().shape;
  auto rank = static_cast<std::int64_t>(data.size());
  std::int64_t axis = norm->attrs().get_int("axis");
  if (axis < 0) axis += rank;
  NormCall call;
  call.layer = norm->is_op("nn.layer_norm");
  call.relu = find(nodes, "nn.relu") != nullptr;
  call.epsilon = static_cast<float>(norm->attrs().get_float("epsilon"));
  call.rank = rank;
  for (std::int64_t i = 0; i < rank; ++i) {
    auto size = data[static_cast<std::size_t>(i)];
    (i < axis ? call.outer : call.inner) *= size;
  }
  if (!call.layer) {
    if (axis != 1 || rank < 2 || rank > 5)
      return make_error(
          "a batch normalization of rank {} along axis {}; oneDNN's takes rank 2 "
          "to 5 along axis 1",
          rank, axis);
    for (std::int64_t i = 0; i < rank; ++i) call.dims[i] = data[static_cast<std::size_t>(i)];
    return call;
  }
  call.has_shift = norm->num_operands() == 3;
  for (std::size_t i = 1; i < norm->num_operands(); ++i) {
    const TensorType& param = norm->operand(i)->tensor_type();
    if (param.num_elements() != call.inner)
      return make_error(
          "the layer normalization's {} of shape {} broadcasts; oneDNN takes one "
          "value per normalized element ({})",
          i == 1 ? "scale" : "shift", to_string(param.shape), call.inner);
  }
  return call;
}

Expected<EltwiseCall> eltwise_call(const std::vector<const Node*>& nodes) {
  const Node* op = anchor(nodes);
  if (op == nullptr) return make_error("the composite has no elementwise op");
  UMA_TRY(check_f32(*op));
  EltwiseCall call;
  call.elements = op->result()->tensor_type().num_elements();
  UMA_TRY_ASSIGN(call.op, eltwise_of(*op));
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
  args.push_back(Expr(std::int64_t{call.bf16}));
  return extern_call("conv", std::move(args), target, conv_primitive(call, target));
}

Expected<lower::ExternCall> lower_dense(const lower::CompositeOperands& operands,
                                        const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(DenseCall call, dense_call(nodes, target));
  UMA_TRY_ASSIGN(std::vector<Expr> args, data_args(operands, *anchor(nodes), call.epilogue));
  for (std::int64_t size :
       {call.batch, call.in_features, call.out_features, std::int64_t{call.weights_in_out}})
    args.push_back(Expr(size));
  add_epilogue_args(call.epilogue, args);
  args.push_back(Expr(std::int64_t{call.bf16}));
  return extern_call("dense", std::move(args), target, dense_primitive(call, target));
}

Expected<lower::ExternCall> lower_matmul(const lower::CompositeOperands& operands,
                                         const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(MatmulCall call, matmul_call(nodes));
  const Node& matmul = *find(nodes, "nn.matmul");
  UMA_TRY_ASSIGN(Expr src, operands.address(*strided_operand(matmul, 0, nodes).value));
  UMA_TRY_ASSIGN(Expr weights, operands.address(*strided_operand(matmul, 1, nodes).value));
  UMA_TRY_ASSIGN(Expr bias, operands.address_or_null(call.epilogue.bias));
  UMA_TRY_ASSIGN(Expr residual, operands.address_or_null(call.epilogue.residual));
  UMA_TRY_ASSIGN(Expr dst, operands.address(*operands.composite().outputs()[0]));
  std::vector<Expr> args = {src, weights, bias, residual, dst, Expr(call.rank)};
  for (const std::int64_t* sizes :
       {call.src_dims, call.src_strides, call.weights_dims, call.weights_strides, call.dst_dims})
    for (int i = 0; i < 5; ++i) args.push_back(Expr(sizes[i]));
  add_epilogue_args(call.epilogue, args);
  return extern_call("matmul", std::move(args), target, matmul_primitive(call, target));
}

Expected<lower::ExternCall> lower_concat(const lower::CompositeOperands& operands, const Target&) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(ConcatCall call, concat_call(nodes));
  call.layouts = layouts_of(operands.composite());
  std::vector<Expr> srcs, sizes;
  for (const Value* operand : find(nodes, "concatenate")->operands()) {
    UMA_TRY_ASSIGN(Expr src, operands.address(*operand));
    srcs.push_back(src);
  }
  for (std::int64_t size : call.sizes) sizes.push_back(Expr(size));
  UMA_TRY_ASSIGN(Expr dst, operands.address(*operands.composite().outputs()[0]));
  std::vector<Expr> args = {tir::make_array(std::move(srcs)), dst,
                            Expr(static_cast<std::int64_t>(call.sizes.size())),
                            tir::make_array(std::move(sizes)), Expr(call.rank)};
  for (std::int64_t size : call.dims) args.push_back(Expr(size));
  args.push_back(Expr(call.axis));
  add_layout_args(call.layouts, args);
  // A copy: no primitive, so no instruction set or scratchpad.
  return lower::ExternCall{.name = fmt::format("{}concat", kEntryPrefix), .args = std::move(args)};
}

Expected<lower::ExternCall> lower_pool(const lower::CompositeOperands& operands,
                                       const Target& target) {
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
  return extern_call("pool", std::move(args), target, pool_primitive(call, target));
}

Expected<lower::ExternCall> lower_softmax(const lower::CompositeOperands& operands,
                                          const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(SoftmaxCall call, softmax_call(nodes));
  UMA_TRY_ASSIGN(std::vector<Expr> args, src_dst_args(operands, *anchor(nodes)));
  for (std::int64_t size : {call.outer, call.axis, call.inner, std::int64_t{call.log}})
    args.push_back(Expr(size));
  return extern_call("softmax", std::move(args), target, softmax_primitive(call, target));
}

Expected<lower::ExternCall> lower_binary(const lower::CompositeOperands& operands,
                                         const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(BinaryCall call, binary_call(nodes));
  call.layouts = layouts_of(operands.composite());
  const Node& op = *anchor(nodes);
  UMA_TRY_ASSIGN(Expr full, operands.address(*op.operand(call.swapped ? 1 : 0)));
  UMA_TRY_ASSIGN(Expr broadcast, operands.address(*op.operand(call.swapped ? 0 : 1)));
  UMA_TRY_ASSIGN(Expr dst, operands.address(*operands.composite().outputs()[0]));
  std::vector<Expr> args = {full, broadcast, dst, Expr(call.rank)};
  for (const std::int64_t* sizes : {call.dims, call.broadcast})
    for (int i = 0; i < 5; ++i) args.push_back(Expr(sizes[i]));
  args.push_back(Expr(call.algorithm));
  add_layout_args(call.layouts, args);
  return extern_call("binary", std::move(args), target, binary_primitive(call, target));
}

Expected<lower::ExternCall> lower_norm(const lower::CompositeOperands& operands,
                                       const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(NormCall call, norm_call(nodes));
  const Node& norm = *anchor(nodes);
  std::vector<Expr> args;
  for (std::size_t i = 0; i < norm.num_operands(); ++i) {
    UMA_TRY_ASSIGN(Expr operand, operands.address(*norm.operand(i)));
    args.push_back(operand);
  }
  if (call.layer && !call.has_shift) {
    UMA_TRY_ASSIGN(Expr no_shift, operands.address_or_null(nullptr));
    args.push_back(no_shift);
  }
  UMA_TRY_ASSIGN(Expr dst, operands.address(*operands.composite().outputs()[0]));
  args.push_back(dst);
  if (call.layer) {
    for (std::int64_t size : {call.outer, call.inner, std::int64_t{call.has_shift}})
      args.push_back(Expr(size));
    args.push_back(lower::constant(DType::f32, call.epsilon));
    return extern_call("layer_norm", std::move(args), target, norm_primitive(call, target));
  }
  call.layouts = layouts_of(operands.composite());
  args.push_back(Expr(call.rank));
  for (std::int64_t size : call.dims) args.push_back(Expr(size));
  args.push_back(lower::constant(DType::f32, call.epsilon));
  add_layout_args(call.layouts, args);
  args.push_back(Expr(std::int64_t{call.relu}));
  return extern_call("batch_norm", std::move(args), target, norm_primitive(call, target));
}

Expected<lower::ExternCall> lower_eltwise(const lower::CompositeOperands& operands,
                                          const Target& target) {
  std::vector<const Node*> nodes = composite_nodes(operands);
  UMA_TRY_ASSIGN(EltwiseCall call, eltwise_call(nodes));
  UMA_TRY_ASSIGN(std::vector<Expr> args, src_dst_args(operands, *anchor(nodes)));
  args.push_back(Expr(call.elements));
  args.push_back(Expr(call.op.eltwise));
  args.push_back(lower::constant(DType::f32, call.op.alpha));
  args.push_back(lower::constant(DType::f32, call.op.beta));
  return extern_call("eltwise", std::move(args), target, eltwise_primitive(call, target));
}

}  // namespace uma::backends::dnnl
