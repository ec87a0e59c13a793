// Activations: nn.leaky_relu, nn.elu, nn.selu, nn.hard_sigmoid, nn.hard_swish, nn.gelu,
// nn.softplus, nn.softsign, nn.celu, nn.thresholded_relu, nn.shrink, nn.prelu and clip.
// (nn.relu, sigmoid and tanh are unary ops of elementwise.cc.)
//
// The formulas are ONNX's, and so are the default parameters (nn.selu's are the float32
// constants ONNX specifies, exactly). The kernels compute in double and round once to the
// result dtype, like elementwise.cc.
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>

#include "elementwise_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using namespace elementwise;

// One element's function, with the node's attributes bound.
using ElementFn = std::function<double(double)>;

double hard_sigmoid(double x, double alpha, double beta) {
  return std::max(0.0, std::min(1.0, alpha * x + beta));
}

// A floating-point activation of one operand.
struct Activation {
  const char* name;
  std::vector<AttrDef> attrs;
  ElementFn (*bind)(const AttrMap& attrs);
  // Checks attribute values beyond their kinds; nullptr when any value is fine.
  Status (*check)(const AttrMap& attrs) = nullptr;
};

Status check_gelu(const AttrMap& attrs) {
  const std::string& approximate = attrs.get_string("approximate");
  if (approximate != "none" && approximate != "tanh")
    return make_error("attribute 'approximate' is \"{}\", but must be \"none\" or \"tanh\"",
                      approximate);
  return Status::success();
}

ElementFn bind_gelu(const AttrMap& attrs) {
  if (attrs.get_string("approximate") == "tanh")
    return [](double x) {
      const double k = std::sqrt(2.0 / std::numbers::pi);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    };
  return [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); };
}

const Activation kActivations[] = {
    {"nn.leaky_relu",
     {{"alpha", AttrKind::Float, 0.01}},
     [](const AttrMap& attrs) -> ElementFn {
       double alpha = attrs.get_float("alpha");
       return [alpha](double x) { return x < 0 ? alpha * x : x; };
     }},
    {"nn.elu",
     {{"alpha", AttrKind::Float, 1.0}},
     [](const AttrMap& attrs) -> ElementFn {
       double alpha = attrs.get_float("alpha");
       return [alpha](double x) { return x < 0 ? alpha * (std::exp(x) - 1.0) : x; };
     }},
    {"nn.selu",
     {{"alpha", AttrKind::Float, 1.67326319217681884765625},
      {"gamma", AttrKind::Float, 1.05070102214813232421875}},
     [](const AttrMap& attrs) -> ElementFn {
       double alpha = attrs.get_float("alpha"), gamma = attrs.get_float("gamma");
       return [alpha, gamma](double x) {
         return x <= 0 ? gamma * (alpha * std::exp(x) - alpha) : gamma * x;
       };
     }},
    {"nn.hard_sigmoid",
     {{"alpha", AttrKind::Float, 0.2}, {"beta", AttrKind::Float, 0.5}},
     [](const AttrMap& attrs) -> ElementFn {
       double alpha = attrs.get_float("alpha"), beta = attrs.get_float("beta");
       return [alpha, beta](double x) { return hard_sigmoid(x, alpha, beta); };
     }},
    {"nn.hard_swish",
     {},
     [](const AttrMap&) -> ElementFn {
       return [](double x) { return x * hard_sigmoid(x, 1.0 / 6.0, 0.5); };
     }},
    {"nn.gelu", {{"approximate", AttrKind::String, std::string("none")}}, bind_gelu, check_gelu},
    // log(1 + exp(x)), written so that exp never overflows where the result is finite.
    {"nn.softplus",
     {},
     [](const AttrMap&) -> ElementFn {
       return
           [](double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); };
     }},
    {"nn.softsign",
     {},
     [](const AttrMap&) -> ElementFn { return [](double x) { return x / (1 + std::fabs(x)); }; }},
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
    {"nn.celu",
     {{"alpha", AttrKind::Float, 1.0}},
     [](const AttrMap& attrs) -> ElementFn {
       double alpha = attrs.get_float("alpha");
       return [alpha](double x) { return x > 0 ? x : alpha * std::expm1(x / alpha); };
     }},
    {"nn.thresholded_relu",
     {{"alpha", AttrKind::Float, 1.0}},
     [](const AttrMap& attrs) -> ElementFn {
       double alpha = attrs.get_float("alpha");
       return [alpha](double x) { return x > alpha ? x : 0.0; };
     }},
    {"nn.shrink",
     {{"bias", AttrKind::Float, 0.0}, {"lambd", AttrKind::Float, 0.5}},
     [](const AttrMap& attrs) -> ElementFn {
       double bias = attrs.get_float("bias"), lambd = attrs.get_float("lambd");
       return [bias, lambd](double x) {
         if (x < -lambd) return x + bias;
         return x > lambd ? x - bias : 0.0;
       };
     }},
};

Expected<std::vector<TensorPtr>> run_activation(const Activation& op,
                                                const std::vector<TensorPtr>& inputs,
                                                const AttrMap& attrs,
                                                const std::vector<Type>& result_types) {
  const Tensor& x = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  ElementFn fn = op.bind(attrs);
  for (std::int64_t i = 0; i < out->num_elements(); ++i) out->set(i, fn(x.get(i)));
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- nn.prelu ----

// slope broadcasts to data's shape (ONNX's unidirectional broadcasting): the result has
// data's shape, whatever slope's is.
Expected<std::vector<Type>> infer_prelu(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& slope = inputs[1].tensor();
  UMA_TRY(check_dtype(data.dtype, Accepts::Numbers, "data is"));
  if (slope.dtype != data.dtype)
    return make_error("slope is {}, but data is {}", dtype_name(slope.dtype),
                      dtype_name(data.dtype));
  Expected<Shape> shape = broadcast_shapes(data.shape, slope.shape);
  if (!shape || *shape != data.shape)
    return make_error("slope of shape {} does not broadcast to data's shape {}",
                      to_string(slope.shape), to_string(data.shape));
  return std::vector<Type>{data};
}

Expected<std::vector<TensorPtr>> prelu_kernel(const std::vector<TensorPtr>& inputs, const AttrMap&,
                                              const std::vector<Type>& result_types) {
  const Tensor& data = *inputs[0];
  const Tensor& slope = *inputs[1];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = out->shape();
  std::vector<std::int64_t> slope_strides = broadcast_strides(slope.shape(), shape);
  bool floats = is_float(out->dtype());
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    std::int64_t is = strided_offset(i, shape, slope_strides);
    if (floats) {
      double x = data.get(i);
      out->set(i, x < 0 ? slope.get(is) * x : x);
    } else {
      std::int64_t x = get_int(data, i);
      set_int(*out, i, int_less(data.dtype(), x, 0) ? int_multiply(get_int(slope, is), x) : x);
    }
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- clip ----

// min(max(x, a_min), a_max), like numpy.clip: when a_min > a_max every element is a_max.
Expected<std::vector<Type>> infer_clip(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  UMA_TRY(check_dtype(inputs[0].tensor().dtype, Accepts::Numbers, "operand is"));
  for (const char* bound : {"a_min", "a_max"})
    if (std::isnan(attrs.get_float(bound)))
      return make_error("attribute '{}' is nan, but must be a number", bound);
  return std::vector<Type>{inputs[0]};
}

Expected<std::vector<TensorPtr>> clip_kernel(const std::vector<TensorPtr>& inputs,
                                             const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  const Tensor& x = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  double a_min = attrs.get_float("a_min"), a_max = attrs.get_float("a_max");
  if (is_float(out->dtype())) {
    for (std::int64_t i = 0; i < out->num_elements(); ++i) {
      double v = x.get(i);
      out->set(i, std::isnan(v) ? v : std::min(std::max(v, a_min), a_max));
    }
    return std::vector<TensorPtr>{std::move(out)};
  }
  // For an integer x, x >= a exactly when x >= ceil(a), and x <= a when x <= floor(a). The
  // bounds, saturated to the dtype's range (which x is in), then compare exactly, also for
  // i64 and u64 values beyond 2^53.
  DType dtype = x.dtype();
  std::int64_t lo = saturating_int(std::ceil(a_min), dtype);
  std::int64_t hi = saturating_int(std::floor(a_max), dtype);
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    std::int64_t v = get_int(x, i);
    if (int_less(dtype, v, lo)) v = lo;
    if (int_less(dtype, hi, v)) v = hi;
    set_int(*out, i, v);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_activation_ops(OpRegistry& registry) {
  for (const Activation& op : kActivations) {
    OpDef def{.name = op.name,
              .min_inputs = 1,
              .max_inputs = 1,
              .attrs = op.attrs,
              .infer = [&op](const std::vector<Type>& inputs,
                             const AttrMap& attrs) -> Expected<std::vector<Type>> {
                UMA_TRY(check_tensor_operands(inputs));
                UMA_TRY(check_dtype(inputs[0].tensor().dtype, Accepts::Floats, "operand is"));
                if (op.check != nullptr) UMA_TRY(op.check(attrs));
                return std::vector<Type>{inputs[0]};
              },
              .kernel =
                  [&op](const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
                        const std::vector<Type>& result_types) {
                    return run_activation(op, inputs, attrs, result_types);
                  },
              .fusion = FusionCategory::kElementwise};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", op.name);
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::vector<OpDef> ops = {
      {.name = "nn.prelu",
       .min_inputs = 2,
       .max_inputs = 2,
       .infer = infer_prelu,
       .kernel = prelu_kernel,
       .fusion = FusionCategory::kElementwise},
      {.name = "clip",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"a_min", AttrKind::Float, -kInf}, {"a_max", AttrKind::Float, kInf}},
       .infer = infer_clip,
       .kernel = clip_kernel,
       .fusion = FusionCategory::kElementwise},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
