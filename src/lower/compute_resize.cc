// Compute rule of image.resize (src/op/resize.cc): one pointwise stage, "resize", that
// computes each output element from the input elements around its source coordinates.
//
// The reference kernel's arithmetic is repeated operation for operation, in double: the
// source coordinate x' of each output coordinate (one expression per spatial dimension,
// bound once per element), the nearest-neighbour rounding, the linear and cubic weights,
// and the separable sums, nested in the order the reference runs its passes (shrinking
// dimensions first), so that even the rounding of the sums is the same. The result is
// rounded once to the output type, as the reference stores it.
#include <algorithm>
#include <array>

#include "pointwise_util.h"
#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using tir::SelectNode;
using tir::Var;
using tir::VarNode;

// Expressions bound to variables in order, wrapped around a body as nested lets.
class Lets {
 public:
  Expr add(std::string name, const Expr& value) {
    Var var = VarNode::make(std::move(name), value.type());
    bindings_.emplace_back(var, value);
    return var;
  }
  Expr wrap(Expr body) const {
    for (auto it = bindings_.rbegin(); it != bindings_.rend(); ++it)
      body = tir::LetNode::make(it->first, it->second, body);
    return body;
  }

 private:
  std::vector<std::pair<Var, Expr>> bindings_;
};

// How one spatial dimension maps output coordinates to input coordinates (the reference's
// AxisMapping).
struct Axis {
  std::int64_t in = 0;    // input length
  std::int64_t out = 0;   // output length
  double scale = 1;       // the given scale, or out / in
  double out_length = 1;  // in * scale, not rounded
  double roi_start = 0, roi_end = 1;
};

struct Resize {
  std::string method, mode, nearest_mode;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
  std::vector<Axis> axes;
  bool crop() const { return mode == "tf_crop_and_resize"; }
};

Resize resize_of(const AttrMap& attrs, const Shape& in_shape) {
  Resize r;
  r.method = attrs.get_string("method");
  r.mode = attrs.get_string("coordinate_transformation_mode");
  r.nearest_mode = attrs.get_string("nearest_mode");
  r.cubic_a = attrs.get_float("cubic_coeff_a");
  r.exclude_outside = attrs.get_int("exclude_outside") == 1;
  r.extrapolation = attrs.get_float("extrapolation_value");
  const std::vector<std::int64_t>& size = attrs.get_ints("size");
  const std::vector<double>& scales = attrs.get_floats("scales");
  const std::vector<double>& roi = attrs.get_floats("roi");
  for (std::size_t d = 0; d < size.size(); ++d) {
    Axis axis;
    axis.in = in_shape[2 + d];
    axis.out = size[d];
    const double in = static_cast<double>(axis.in), out = static_cast<double>(size[d]);
    axis.scale = scales.empty() ? out / in : scales[d];
    axis.out_length = scales.empty() ? out : in * axis.scale;
    if (!roi.empty()) {
      axis.roi_start = roi[d];
      axis.roi_end = roi[size.size() + d];
    }
    r.axes.push_back(axis);
  }
  return r;
}

// The source coordinate x' of output coordinate `x` (an i64 index), in double. Every mode
// but tf_crop_and_resize clamps it to [-1, in].
Expr source(const Resize& r, const Axis& axis, const Expr& x) {
  const Expr xf = cast(DType::f64, x);
  const double last = static_cast<double>(axis.in - 1);
  auto f64 = [](double v) { return constant(DType::f64, v); };
  if (r.crop()) {
    if (axis.out_length == 1) return f64((axis.roi_start + axis.roi_end) / 2 * last);
    return f64(axis.roi_start * last) +
           xf * (axis.roi_end - axis.roi_start) * last / (axis.out_length - 1);
  }
  Expr s;
  if (r.mode == "half_pixel") {
    s = (xf + 0.5) / axis.scale - 0.5;
  } else if (r.mode == "pytorch_half_pixel") {
    s = axis.out_length > 1 ? (xf + 0.5) / axis.scale - 0.5 : f64(0);
  } else if (r.mode == "align_corners") {
    s = axis.out_length == 1 ? f64(0) : xf * last / (axis.out_length - 1);
  } else if (r.mode == "asymmetric") {
    s = xf / axis.scale;
  } else {  // tf_half_pixel_for_nn
    s = (xf + 0.5) / axis.scale;
  }
  // std::clamp(s, -1, in): `s < -1 ? -1 : in < s ? in : s`, which max and min print as.
  return tir::min(tir::max(s, f64(-1)), f64(static_cast<double>(axis.in)));
}

Expr clamp_index(const Axis& axis, const Expr& i) {
  return tir::min(tir::max(i, Expr(0)), Expr(axis.in - 1));
}

// tf_crop_and_resize's test for the extrapolation value: x' outside [0, in - 1].
Expr extrapolates(const Axis& axis, const Expr& s) {
  return !(s >= 0.0 && s <= static_cast<double>(axis.in - 1));
}

// ONNX's rounding of a nearest-neighbour coordinate (the reference's round_nearest).
Expr round_nearest(const std::string& mode, const Expr& s, Lets& lets, std::size_t d) {
  if (mode == "floor") return cast(DType::i64, intrinsic("floor", {s}));
  if (mode == "ceil") return cast(DType::i64, intrinsic("ceil", {s}));
  Expr lower = lets.add(fmt::format("lower{}", d), intrinsic("floor", {s}));
  Expr ratio = s - lower;
  Expr down = cast(DType::i64, lower);
  Expr keep = mode == "round_prefer_floor" ? ratio <= 0.5 : ratio < 0.5;
  return SelectNode::make(keep, down, down + 1);
}

Stage nearest_stage(const Node& node, const Resize& r, const TensorView& data) {
  const TensorType& out = node.result()->tensor_type();
  const Expr fill = stored_constant(out.dtype, r.extrapolation);
  auto element = [r, data, fill](const Indices& idx) {
    Lets lets;
    Indices from = {idx[0], idx[1]};
    Expr outside;
    for (std::size_t d = 0; d < r.axes.size(); ++d) {
      const Axis& axis = r.axes[d];
      Expr s = lets.add(fmt::format("x{}", d), source(r, axis, idx[2 + d]));
      if (r.crop()) {
        outside = outside.defined() ? (outside || extrapolates(axis, s)) : extrapolates(axis, s);
        // Only a source inside the input is read; keep the others' conversion in range.
        s = tir::min(tir::max(s, constant(DType::f64, -1)),
                     constant(DType::f64, static_cast<double>(axis.in)));
      }
      from.push_back(clamp_index(axis, round_nearest(r.nearest_mode, s, lets, d)));
    }
    Expr value = data.at(from);
    if (outside.defined()) value = SelectNode::make(outside, fill, value);
    return lets.wrap(value);
  };
  // Nearest-neighbour resizing only picks elements: inlined even into reductions.
  return pointwise_stage("resize", out.dtype, out.shape, element, /*injective=*/true);
}

// One input element of a linear or cubic sum along one dimension: its index (clamped to the
// input) and its weight.
struct Tap {
  Expr index;
  Expr weight;
};

// The taps of one dimension at source coordinate s (the reference's taps_at), their weights
// bound once.
std::vector<Tap> taps_at(const Resize& r, const Axis& axis, const Expr& s, Lets& lets,
                         std::size_t d) {
  Expr lower = lets.add(fmt::format("lower{}", d), intrinsic("floor", {s}));
  Expr t = lets.add(fmt::format("t{}", d), s - lower);
  Expr first = lets.add(fmt::format("first{}", d), cast(DType::i64, lower));
  std::vector<Tap> taps;
  if (r.method == "linear") {
    taps = {{first, 1.0 - t}, {first + 1, t}};
  } else {
    // Keys' kernel, written as the reference's cubic_weights writes it.
    const double a = r.cubic_a;
    auto near = [a](const Expr& x) { return ((x * (a + 2) - (a + 3)) * x) * x + 1.0; };
    auto far = [a](const Expr& x) { return ((x * a - 5 * a) * x + 8 * a) * x - 4 * a; };
    const Expr one_minus_t = 1.0 - t;
    std::array<Expr, 4> weights = {far(t + 1.0), near(t), near(one_minus_t),
                                   far(one_minus_t + 1.0)};
    for (std::int64_t k = 0; k < 4; ++k) taps.push_back({first + (k - 1), weights[k]});
    if (r.exclude_outside) {
      // Weights of elements outside the input become 0; the rest are scaled to sum to 1.
      Expr sum = constant(DType::f64, 0);
      for (Tap& tap : taps) {
        Expr inside = tap.index >= 0 && tap.index < axis.in;
        tap.weight = SelectNode::make(inside, tap.weight, constant(DType::f64, 0));
        sum = sum + tap.weight;
      }
      Expr total = lets.add(fmt::format("sum{}", d), sum);
      for (Tap& tap : taps)
        tap.weight = SelectNode::make(total != 0.0, tap.weight / total, tap.weight);
    }
  }
  for (std::size_t k = 0; k < taps.size(); ++k) {
    taps[k].weight = lets.add(fmt::format("w{}_{}", d, k), taps[k].weight);
    taps[k].index = clamp_index(axis, taps[k].index);
  }
  return taps;
}

Stage separable_stage(const Node& node, const Resize& r, const TensorView& data) {
  const TensorType& out = node.result()->tensor_type();
  // The order of the reference's passes: shrinking dimensions first, each group in order.
  std::vector<std::size_t> order(r.axes.size());
  for (std::size_t d = 0; d < order.size(); ++d) order[d] = d;
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t d) { return r.axes[d].out < r.axes[d].in; });
  auto element = [r, data, order, dtype = out.dtype](const Indices& idx) {
    Lets lets;
    std::vector<std::vector<Tap>> taps(r.axes.size());
    std::vector<Expr> outside(r.axes.size());
    for (std::size_t d = 0; d < r.axes.size(); ++d) {
      const Axis& axis = r.axes[d];
      Expr s = lets.add(fmt::format("x{}", d), source(r, axis, idx[2 + d]));
      if (r.crop()) {
        outside[d] = extrapolates(axis, s);
        s = tir::min(tir::max(s, constant(DType::f64, -1)),
                     constant(DType::f64, static_cast<double>(axis.in)));
      }
      taps[d] = taps_at(r, axis, s, lets, d);
    }
    // The sum over the dimension of pass `level`, at input indices `from` (filled in for the
    // dimensions of later passes): sum = 0; sum += weight * value per tap, where a tap of
    // weight 0 adds nothing (x + -0.0 is x), as the reference skips it.
    std::function<Expr(std::size_t, Indices&)> pass = [&](std::size_t level,
                                                          Indices& from) -> Expr {
      if (level == 0) return cast(DType::f64, data.at(from));
      const std::size_t d = order[level - 1];
      Expr sum = constant(DType::f64, 0);
      for (const Tap& tap : taps[d]) {
        from[2 + d] = tap.index;
        Expr term = tap.weight * pass(level - 1, from);
        sum = sum + SelectNode::make(tap.weight != 0.0, term, constant(DType::f64, -0.0));
      }
      if (outside[d].defined())
        sum = SelectNode::make(outside[d], constant(DType::f64, r.extrapolation), sum);
      return sum;
    };
    Indices from = {idx[0], idx[1]};
    from.resize(idx.size(), Expr(0));
    return lets.wrap(cast(dtype, pass(order.size(), from)));
  };
  return pointwise_stage("resize", out.dtype, out.shape, element);
}

Expected<std::vector<Stage>> resize_rule(const Node& node, const std::vector<TensorView>& in,
                                         ComputeBuilder&) {
  const TensorView& data = in[0];
  const Resize r = resize_of(node.attrs(), data.shape);
  if (r.method == "nearest") return std::vector<Stage>{nearest_stage(node, r, data)};
  return std::vector<Stage>{separable_stage(node, r, data)};
}

}  // namespace

void register_resize_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("image.resize", resize_rule).ok());
}

}  // namespace uma::lower
