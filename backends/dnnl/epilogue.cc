// What follows a composite's anchor, as oneDNN fuses it: the bias, a residual sum (the sum
// post-op) and one activation (the eltwise post-op; swish, x * sigmoid(x), is one too); and
// an elementwise op alone as oneDNN's eltwise (a unary op, or power by a constant), or why
// oneDNN would compute it otherwise.
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.h>

#include "backends/dnnl/dnnl.h"
#include "uma/op/shape_util.h"

namespace uma::backends::dnnl {
namespace {

bool is_constant(const Value* value) {
  return value->producer() != nullptr && value->producer()->is_op("constant");
}

// The activation `node` as an eltwise post-op, or an error for one oneDNN has not.
Status set_activation(const Node& node, Epilogue& out) {
  const AttrMap& attrs = node.attrs();
  auto set = [&](dnnl_alg_kind_t alg, double alpha = 0, double beta = 0) {
    out.eltwise = alg;
    out.alpha = static_cast<float>(alpha);
    out.beta = static_cast<float>(beta);
    return Status::success();
  };
  if (node.is_op("nn.relu")) return set(dnnl_eltwise_relu);
  if (node.is_op("nn.leaky_relu")) return set(dnnl_eltwise_relu, attrs.get_float("alpha"));
  if (node.is_op("clip"))
    return set(dnnl_eltwise_clip, attrs.get_float("a_min"), attrs.get_float("a_max"));
  if (node.is_op("sigmoid")) return set(dnnl_eltwise_logistic);
  if (node.is_op("tanh")) return set(dnnl_eltwise_tanh);
  if (node.is_op("nn.elu")) return set(dnnl_eltwise_elu, attrs.get_float("alpha"));
  if (node.is_op("nn.hard_swish")) return set(dnnl_eltwise_hardswish);
  if (node.is_op("nn.gelu"))
    return set(attrs.get_string("approximate") == "tanh" ? dnnl_eltwise_gelu_tanh
                                                         : dnnl_eltwise_gelu_erf);
  // oneDNN 2.6 has no hardsigmoid: alpha * x + beta, then clipped to [0, 1], as two post-ops.
  if (node.is_op("nn.hard_sigmoid")) {
    out.eltwise2 = dnnl_eltwise_clip;
    out.alpha2 = 0;
    out.beta2 = 1;
    return set(dnnl_eltwise_linear, attrs.get_float("alpha"), attrs.get_float("beta"));
  }
  return make_error("{} is no activation oneDNN fuses", node.op_name());
}

// The math functions oneDNN's eltwise computes too, beyond the activations: its algorithm
// with alpha and beta. round rounds halves to even, as std::nearbyint does; negative is
// linear, -x + 0; reciprocal is pow, 1 * x^-1, which oneDNN divides exactly.
struct Math {
  std::string_view op;
  dnnl_alg_kind_t algorithm;
  float alpha = 0, beta = 0;
};
const Math kMath[] = {{"abs", dnnl_eltwise_abs},
                      {"sqrt", dnnl_eltwise_sqrt},
                      {"exp", dnnl_eltwise_exp},
                      {"round", dnnl_eltwise_round},
                      {"negative", dnnl_eltwise_linear, -1, 0},
                      {"reciprocal", dnnl_eltwise_pow, 1, -1}};

// The unary ops oneDNN 2.6 has but computes otherwise than uma, beyond what ONNX's tests
// allow (1e-7 plus 1e-3 of the value), and why: its vector kernels approximate them.
// dnnl.eltwise's pattern takes them so that the partition report says why they stay on the
// host.
const std::pair<std::string_view, std::string_view> kInexact[] = {
    {"log", "oneDNN's log is off by 1.4e-6 at log(1) = 0, where ONNX's tests allow 1e-7"},
    {"nn.softplus",
     "oneDNN's soft_relu is off by up to 7.6e-6 below x = -7.9, where softplus is under 3.7e-4 "
     "and ONNX's tests allow 1e-7 plus 1e-3 of it"},
};

// power by the one value of its constant exponent as oneDNN's pow, 1 * x^exponent: powf for
// most exponents, which gives std::pow's results (rounded to f32), special values and the
// NaN of a negative base under a non-integer exponent too; exact products or a division for
// the exponents 0, 1, 2 and -1. Not 0.5, which oneDNN takes as sqrt(x): NaN at -inf, where
// pow is +inf.
Status set_power(const Node& node, Epilogue& out) {
  const Node* exponent = node.operand(1)->producer();
  if (exponent == nullptr || !exponent->is_op("constant"))
    return make_error("power's exponent is computed; oneDNN's pow takes one constant value");
  const TensorPtr& value = exponent->attrs().get_tensor("value");
  if (value == nullptr || !value->has_data() || value->num_elements() != 1)
    return make_error("power's exponent of shape {} is no single value; oneDNN's pow takes one",
                      to_string(node.operand(1)->tensor_type().shape));
  double beta = value->get(0);
  if (beta == 0.5)
    return make_error(
        "power by 0.5: oneDNN computes sqrt(x), which is NaN at -inf where pow is +inf");
  out.eltwise = dnnl_eltwise_pow;
  out.alpha = 1.0f;
  out.beta = static_cast<float>(beta);
  return Status::success();
}

// Whether the sigmoid `node` is the one of a swish among `nodes`: a multiply of them reads it.
bool is_swish_sigmoid(const Node& node, const std::vector<const Node*>& nodes) {
  for (const Node* user : nodes)
    if (user->is_op("multiply") &&
        (user->operand(0) == node.result() || user->operand(1) == node.result()))
      return true;
  return false;
}

}  // namespace

std::vector<std::string> eltwise_ops() {
  std::vector<std::string> ops = {"nn.relu", "nn.leaky_relu", "clip",    "sigmoid",        "tanh",
                                  "nn.elu",  "nn.hard_swish", "nn.gelu", "nn.hard_sigmoid"};
  for (const Math& math : kMath) ops.emplace_back(math.op);
  for (const auto& [name, reason] : kInexact) ops.emplace_back(name);
  return ops;
}

Expected<Epilogue> eltwise_of(const Node& node) {
  Epilogue out;
  for (const Math& math : kMath)
    if (node.is_op(math.op)) {
      out.eltwise = math.algorithm;
      out.alpha = math.alpha;
      out.beta = math.beta;
      return out;
    }
  for (const auto& [name, reason] : kInexact)
    if (node.is_op(name)) return make_error("{}", reason);
  if (node.is_op("power")) {
    UMA_TRY(set_power(node, out));
    return out;
  }
  UMA_TRY(set_activation(node, out));
  // An eltwise primitive with an eltwise post-op is oneDNN's reference one.
  if (out.eltwise2 != 0)
    return make_error(
        "{} is two eltwise steps, which oneDNN fuses only after a convolution, "
        "dense layer or matrix product",
        node.op_name());
  return out;
}

Expected<Epilogue> epilogue(const Node& anchor, const std::vector<const Node*>& nodes,
                            std::size_t channel_axis) {
  Epilogue out;
  const TensorType& result = anchor.result()->tensor_type();
  if (anchor.num_operands() == 3) out.bias = anchor.operand(2);
  const Value* chain = anchor.result();
  for (const Node* node : nodes) {
    if (node == &anchor || node->is_op("constant")) continue;
    if (out.eltwise != 0)
      return make_error("{} follows the activation; oneDNN fuses one, last", node->op_name());
    // Swish, x * sigmoid(x): the sigmoid is part of it.
    if (node->is_op("sigmoid") && is_swish_sigmoid(*node, nodes)) continue;
    if (node->is_op("multiply")) {
      const Value* other = node->operand(0) == chain ? node->operand(1) : node->operand(0);
      if (other->producer() == nullptr || !other->producer()->is_op("sigmoid") ||
          other->producer()->operand(0) != chain)
        return make_error("the multiply is no swish (x * sigmoid(x))");
      out.eltwise = dnnl_eltwise_swish;
      out.alpha = 1.0f;
      chain = node->result();
      continue;
    }
    if (!node->is_op("add")) {
      UMA_TRY(set_activation(*node, out));
      chain = node->result();
      continue;
    }
    if (!(node->result()->tensor_type() == result))
      return make_error("the add broadcasts the result from {} to {}", to_string(Type(result)),
                        to_string(node->result()->type()));
    const Value* other = node->operand(0) == chain ? node->operand(1) : node->operand(0);
    if (other->tensor_type().dtype != DType::f32)
      return make_error("the add's {} operand is not supported; oneDNN computes f32 here",
                        dtype_name(other->tensor_type().dtype));
    if (out.bias == nullptr && out.residual == nullptr && is_constant(other) &&
        one_per_element_of(other->tensor_type().shape, result.shape, channel_axis)) {
      out.bias = other;
    } else if (out.residual == nullptr && other->tensor_type().shape == result.shape) {
      out.residual = other;
    } else {
      return make_error(
          "the add's operand of shape {} is neither a bias of one value per "
          "output channel nor a residual of the result's shape {}",
          to_string(other->tensor_type().shape), to_string(result.shape));
    }
    chain = node->result();
  }
  return out;
}

}  // namespace uma::backends::dnnl
