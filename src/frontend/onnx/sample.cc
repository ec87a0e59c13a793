// Converters of ONNX's sampling ops, GridSample and RoiAlign, composed of ours: each output
// element is a weighted sum (RoiAlign's max mode: a maximum) of input pixels that `take`
// gathers at indices computed from sampling coordinates (floor and cast, bounded by clip),
// with `where` giving 0 for a pixel outside the image. So every backend that runs gathers
// and pointwise ops runs them, and compiled code gets each as loop nests of those.
//
// Both ops share the gathering of pixels and the taps of linear interpolation. Their
// arithmetic is ONNX's reference's, in f32 (f64 for f64 inputs: f16 and bf16 widen, so that
// the result is rounded to them once, not once per op):
// - GridSample (16): grid (N, H_out, W_out, 2) holds (x, y) normalized to [-1, 1] over the
//   image's extent: [-0.5, size - 0.5] in pixels, or [0, size - 1] with align_corners. A
//   coordinate outside that extent is clamped to [0, size - 1] (padding_mode border) or
//   reflected into the extent (reflection); nearest first rounds it half to even (as
//   PyTorch's nearbyint does). Each tap's pixel then reads 0 outside the image (zeros), the
//   nearest edge pixel (border) or its reflection (reflection). bilinear weighs 2 x 2 taps,
//   bicubic 4 x 4 by Keys' cubic convolution with a = -0.75; the sums run along x within
//   each row of taps, then along y, as the reference's do.
// - RoiAlign (10, 16): rois (R, 4) hold (x1, y1, x2, y2) of each region, scaled by
//   spatial_scale, less half a pixel under half_pixel (16's default; 10 has only
//   output_half_pixel, which also makes a region at least 1 x 1). Each of the
//   output_height x output_width bins averages (or takes the maximum of) a grid of
//   sampling_ratio x sampling_ratio points at the centres of its cells; sampling_ratio 0
//   takes ceil(region size / bins) points along each axis, which depends on the regions'
//   values: the rois must then be constants. A point more than one pixel outside the image
//   reads 0; the others are clamped into it and interpolated bilinearly. max mode takes the
//   maximum of the four weighted pixels of each point, as ONNX's reference does, not of
//   their sum.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "static_input.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// One pixel index along one axis that an interpolation reads, and its weight.
struct Tap {
  Value* index = nullptr;   // i64, within the image
  Value* weight = nullptr;  // the coordinates' dtype; nullptr: 1 (nearest)
  Value* inside = nullptr;  // bool: false where the pixel reads 0; nullptr: always read
};

Value* real(NodeContext& ctx, const Value* like, double value) {
  return scalar(ctx, like->tensor_type().dtype, value);
}

// The dtype that sampling computes in for values of `dtype`.
DType widened(DType dtype) {
  if (!is_float(dtype) || dtype == DType::f64) return dtype;
  return DType::f32;
}

Expected<Value*> clip(NodeContext& ctx, Value* value, double low, double high) {
  return ctx.emit_value("clip", {value}, attrs_of({{"a_min", low}, {"a_max", high}}));
}

// `value` with a trailing dimension of 1, to broadcast against the pixels' channels.
Expected<Value*> per_pixel(NodeContext& ctx, Value* value) {
  const auto rank = static_cast<std::int64_t>(shape_of(value).size());
  return ctx.emit_value("expand_dims", {value}, attrs_of({{"axes", Ints{rank}}}));
}

// `total` `op` `term` ("add", "maximum"), or `term` when there is no total yet.
Expected<Value*> accumulate(NodeContext& ctx, const char* op, Value* total, Value* term) {
  if (total == nullptr) return term;
  return ctx.emit_value(op, {total, term});
}

// ---- shared: pixels and linear taps ----

// The pixels of X (N, C, H, W) as rows of C values, one per (n, y, x) in row-major order,
// which `take` gathers by the index n * H * W + y * W + x; floats widened.
struct Pixels {
  Value* rows = nullptr;  // (N * H * W, C)
  std::int64_t width = 0;
  DType dtype = DType::f32;
};

Expected<Pixels> pixels_of(NodeContext& ctx, Value* x) {
  const Shape& s = shape_of(x);
  UMA_TRY_ASSIGN(Value * moved,
                 ctx.emit_value("transpose", {x}, attrs_of({{"axes", Ints{0, 2, 3, 1}}})));
  UMA_TRY_ASSIGN(Value * rows, reshaped(ctx, moved, {s[0] * s[2] * s[3], s[1]}));
  const DType dtype = widened(x->tensor_type().dtype);
  UMA_TRY_ASSIGN(rows, cast_to(ctx, rows, dtype));
  return Pixels{rows, s[3], dtype};
}

// The first row of each image of `pixels` that `images` (i64 indices of images) names.
Expected<Value*> image_rows(NodeContext& ctx, const Shape& x_shape, Value* images) {
  const std::int64_t n = x_shape[0], plane = x_shape[2] * x_shape[3];
  UMA_TRY(check_constant("the first row of each image of input 0 ('X')", {n}));
  auto firsts = std::make_shared<Tensor>(TensorType{DType::i64, {n}});
  for (std::int64_t i = 0; i < n; ++i) firsts->data<std::int64_t>()[i] = i * plane;
  return ctx.emit_value("take", {ctx.constant(std::move(firsts)), images},
                        attrs_of({{"axis", std::int64_t{0}}}));
}

// The pixel of the image starting at row `base` at taps (y, x): the taps' broadcast shape
// and the channels; 0 where either tap is outside.
Expected<Value*> pixel_at(NodeContext& ctx, const Pixels& pixels, Value* base, const Tap& y,
                          const Tap& x) {
  UMA_TRY_ASSIGN(Value * offset,
                 ctx.emit_value("multiply", {y.index, scalar(ctx, DType::i64,
                                                             static_cast<double>(pixels.width))}));
  UMA_TRY_ASSIGN(offset, ctx.emit_value("add", {offset, x.index}));
  UMA_TRY_ASSIGN(Value * row, ctx.emit_value("add", {base, offset}));
  UMA_TRY_ASSIGN(Value * value,
                 ctx.emit_value("take", {pixels.rows, row}, attrs_of({{"axis", std::int64_t{0}}})));
  Value* inside = y.inside != nullptr ? y.inside : x.inside;
  if (y.inside != nullptr && x.inside != nullptr && y.inside != x.inside) {
    UMA_TRY_ASSIGN(inside, ctx.emit_value("logical_and", {y.inside, x.inside}));
  }
  if (inside == nullptr) return value;
  UMA_TRY_ASSIGN(inside, per_pixel(ctx, inside));
  return ctx.emit_value("where", {inside, value, scalar(ctx, pixels.dtype, 0)});
}

// The two taps of linear interpolation at coordinates `c`: floor(c) and the pixel after it,
// weighted 1 - t and t for t = c - floor(c). Their indices are not bounded yet.
Expected<std::vector<Tap>> linear_taps(NodeContext& ctx, Value* c) {
  UMA_TRY_ASSIGN(Value * lower, ctx.emit_value("floor", {c}));
  UMA_TRY_ASSIGN(Value * t, ctx.emit_value("subtract", {c, lower}));
  UMA_TRY_ASSIGN(Value * first, cast_to(ctx, lower, DType::i64));
  UMA_TRY_ASSIGN(Value * second, ctx.emit_value("add", {first, scalar(ctx, DType::i64, 1)}));
  UMA_TRY_ASSIGN(Value * rest, ctx.emit_value("subtract", {real(ctx, c, 1), t}));
  return std::vector<Tap>{{first, rest}, {second, t}};
}

// ---- GridSample ----

struct GridSampling {
  std::string mode, padding;
  bool align_corners = false;
};

// Keys' cubic convolution kernel, a = -0.75, at distance d: for |d| <= 1 (`near`) or
// 1 < |d| < 2, written as ONNX's reference writes it.
Expected<Value*> cubic_weight(NodeContext& ctx, Value* d, bool near) {
  constexpr double a = -0.75;
  auto times = [&](Value* v, double k) { return ctx.emit_value("multiply", {v, real(ctx, d, k)}); };
  auto plus = [&](Value* v, double k) { return ctx.emit_value("add", {v, real(ctx, d, k)}); };
  if (near) {  // ((a + 2) d - (a + 3)) d d + 1
    UMA_TRY_ASSIGN(Value * v, times(d, a + 2));
    UMA_TRY_ASSIGN(v, plus(v, -(a + 3)));
    UMA_TRY_ASSIGN(v, ctx.emit_value("multiply", {v, d}));
    UMA_TRY_ASSIGN(v, ctx.emit_value("multiply", {v, d}));
    return plus(v, 1);
  }
  // ((a d - 5 a) d + 8 a) d - 4 a
  UMA_TRY_ASSIGN(Value * v, times(d, a));
  UMA_TRY_ASSIGN(v, plus(v, -5 * a));
  UMA_TRY_ASSIGN(v, ctx.emit_value("multiply", {v, d}));
  UMA_TRY_ASSIGN(v, plus(v, 8 * a));
  UMA_TRY_ASSIGN(v, ctx.emit_value("multiply", {v, d}));
  return plus(v, -4 * a);
}

// The four taps of cubic interpolation at `c`: floor(c) - 1 .. floor(c) + 2.
Expected<std::vector<Tap>> cubic_taps(NodeContext& ctx, Value* c) {
  UMA_TRY_ASSIGN(Value * lower, ctx.emit_value("floor", {c}));
  UMA_TRY_ASSIGN(Value * t, ctx.emit_value("subtract", {c, lower}));
  UMA_TRY_ASSIGN(Value * first, cast_to(ctx, lower, DType::i64));
  UMA_TRY_ASSIGN(Value * t_plus_1, ctx.emit_value("add", {t, real(ctx, c, 1)}));
  UMA_TRY_ASSIGN(Value * one_minus_t, ctx.emit_value("subtract", {real(ctx, c, 1), t}));
  UMA_TRY_ASSIGN(Value * two_minus_t, ctx.emit_value("subtract", {real(ctx, c, 2), t}));
  const std::pair<Value*, bool> distances[] = {
      {t_plus_1, false}, {t, true}, {one_minus_t, true}, {two_minus_t, false}};
  std::vector<Tap> taps;
  for (std::int64_t k = 0; k < 4; ++k) {
    UMA_TRY_ASSIGN(
        Value * index,
        ctx.emit_value("add", {first, scalar(ctx, DType::i64, static_cast<double>(k - 1))}));
    UMA_TRY_ASSIGN(Value * weight, cubic_weight(ctx, distances[k].first, distances[k].second));
    taps.push_back({index, weight});
  }
  return taps;
}

// `c` reflected by the borders `low` and `high` until it lies between them (the reference's
// _gs_reflect); unchanged where it does already.
Expected<Value*> reflect(NodeContext& ctx, Value* c, double low, double high) {
  UMA_TRY_ASSIGN(Value * below, ctx.emit_value("less", {c, real(ctx, c, low)}));
  UMA_TRY_ASSIGN(Value * above, ctx.emit_value("greater", {c, real(ctx, c, high)}));
  UMA_TRY_ASSIGN(Value * outside, ctx.emit_value("logical_or", {below, above}));
  // One pixel with align_corners: the borders meet, and every coordinate is that pixel's.
  if (high <= low) return ctx.emit_value("where", {outside, real(ctx, c, low), c});
  const double range = high - low;
  UMA_TRY_ASSIGN(Value * under, ctx.emit_value("subtract", {real(ctx, c, low), c}));
  UMA_TRY_ASSIGN(Value * over, ctx.emit_value("subtract", {c, real(ctx, c, high)}));
  UMA_TRY_ASSIGN(Value * distance, ctx.emit_value("where", {below, under, over}));
  // distance = flips * range + rest; an odd number of flips lands on the other border.
  UMA_TRY_ASSIGN(Value * flips, ctx.emit_value("divide", {distance, real(ctx, c, range)}));
  UMA_TRY_ASSIGN(flips, ctx.emit_value("floor", {flips}));
  UMA_TRY_ASSIGN(Value * whole, ctx.emit_value("multiply", {flips, real(ctx, c, range)}));
  UMA_TRY_ASSIGN(Value * rest, ctx.emit_value("subtract", {distance, whole}));
  UMA_TRY_ASSIGN(Value * parity, ctx.emit_value("floor_mod", {flips, real(ctx, c, 2)}));
  UMA_TRY_ASSIGN(Value * odd, ctx.emit_value("equal", {parity, real(ctx, c, 1)}));
  UMA_TRY_ASSIGN(Value * from_low, ctx.emit_value("add", {real(ctx, c, low), rest}));
  UMA_TRY_ASSIGN(Value * from_high, ctx.emit_value("subtract", {real(ctx, c, high), rest}));
  UMA_TRY_ASSIGN(Value * at_low, ctx.emit_value("logical_xor", {below, odd}));
  UMA_TRY_ASSIGN(Value * reflected, ctx.emit_value("where", {at_low, from_low, from_high}));
  return ctx.emit_value("where", {outside, reflected, c});
}

// A tap's index bounded as padding_mode says: 0 outside the image (zeros), the nearest
// edge (border), or reflected into the image (reflection).
Expected<Tap> bounded(NodeContext& ctx, Tap tap, Value* like, std::int64_t size, double low,
                      double high, const std::string& padding) {
  const double last = static_cast<double>(size - 1);
  if (padding == "zeros") {
    UMA_TRY_ASSIGN(Value * from_first,
                   ctx.emit_value("greater_equal", {tap.index, scalar(ctx, DType::i64, 0)}));
    UMA_TRY_ASSIGN(
        Value * before_end,
        ctx.emit_value("less", {tap.index, scalar(ctx, DType::i64, static_cast<double>(size))}));
    UMA_TRY_ASSIGN(tap.inside, ctx.emit_value("logical_and", {from_first, before_end}));
  } else if (padding == "reflection") {
    UMA_TRY_ASSIGN(Value * c, cast_to(ctx, tap.index, like->tensor_type().dtype));
    UMA_TRY_ASSIGN(c, reflect(ctx, c, low, high));
    UMA_TRY_ASSIGN(tap.index, cast_to(ctx, c, DType::i64));
  }
  // Reflected indices lie in the image already; the clip keeps every index a valid one.
  UMA_TRY_ASSIGN(tap.index, clip(ctx, tap.index, 0, last));
  return tap;
}

// The taps along one axis of `size` pixels at normalized grid coordinates `g`.
Expected<std::vector<Tap>> grid_axis_taps(NodeContext& ctx, Value* g, std::int64_t size,
                                          const GridSampling& s) {
  const double n = static_cast<double>(size);
  const double low = s.align_corners ? 0 : -0.5, high = s.align_corners ? n - 1 : n - 0.5;
  UMA_TRY_ASSIGN(Value * c, ctx.emit_value("add", {g, real(ctx, g, 1)}));
  if (s.align_corners) {  // (g + 1) / 2 * (size - 1)
    UMA_TRY_ASSIGN(c, ctx.emit_value("divide", {c, real(ctx, g, 2)}));
    UMA_TRY_ASSIGN(c, ctx.emit_value("multiply", {c, real(ctx, g, n - 1)}));
  } else {  // ((g + 1) * size - 1) / 2
    UMA_TRY_ASSIGN(c, ctx.emit_value("multiply", {c, real(ctx, g, n)}));
    UMA_TRY_ASSIGN(c, ctx.emit_value("subtract", {c, real(ctx, g, 1)}));
    UMA_TRY_ASSIGN(c, ctx.emit_value("divide", {c, real(ctx, g, 2)}));
  }
  if (s.mode == "nearest") {
    UMA_TRY_ASSIGN(c, ctx.emit_value("round", {c}));
  }
  if (s.padding == "border") {
    UMA_TRY_ASSIGN(Value * below, ctx.emit_value("less", {c, real(ctx, g, low)}));
    UMA_TRY_ASSIGN(Value * above, ctx.emit_value("greater", {c, real(ctx, g, high)}));
    UMA_TRY_ASSIGN(Value * outside, ctx.emit_value("logical_or", {below, above}));
    UMA_TRY_ASSIGN(Value * clamped, clip(ctx, c, 0, n - 1));
    UMA_TRY_ASSIGN(c, ctx.emit_value("where", {outside, clamped, c}));
  } else if (s.padding == "reflection") {
    UMA_TRY_ASSIGN(c, reflect(ctx, c, low, high));
  }
  std::vector<Tap> taps;
  if (s.mode == "nearest") {
    UMA_TRY_ASSIGN(Value * index, cast_to(ctx, c, DType::i64));
    taps.push_back({index});
  } else if (s.mode == "bilinear") {
    UMA_TRY_ASSIGN(taps, linear_taps(ctx, c));
  } else {
    UMA_TRY_ASSIGN(taps, cubic_taps(ctx, c));
  }
  for (Tap& tap : taps) {
    UMA_TRY_ASSIGN(tap, bounded(ctx, tap, g, size, low, high, s.padding));
  }
  return taps;
}

// Coordinate `k` (0: x, 1: y) of every grid point: (N, H_out, W_out).
Expected<Value*> grid_coordinate(NodeContext& ctx, Value* grid, std::int64_t k) {
  UMA_TRY_ASSIGN(
      Value * slice,
      ctx.emit_value("strided_slice", {grid},
                     attrs_of({{"begin", Ints{k}}, {"end", Ints{k + 1}}, {"axes", Ints{3}}})));
  return ctx.emit_value("squeeze", {slice}, attrs_of({{"axes", Ints{3}}}));
}

// `pixels` times a tap's weight (none: 1), cast to the pixels' dtype and broadcast over
// their channels.
Expected<Value*> weighted(NodeContext& ctx, Value* pixels, Value* weight) {
  if (weight == nullptr) return pixels;
  UMA_TRY_ASSIGN(Value * w, cast_to(ctx, weight, pixels->tensor_type().dtype));
  UMA_TRY_ASSIGN(w, per_pixel(ctx, w));
  return ctx.emit_value("multiply", {w, pixels});
}

Expected<GridSampling> grid_sampling(const NodeContext& ctx) {
  GridSampling s;
  UMA_TRY_ASSIGN(s.mode, ctx.attr_string("mode", std::string("bilinear")));
  UMA_TRY_ASSIGN(s.padding, ctx.attr_string("padding_mode", std::string("zeros")));
  UMA_TRY_ASSIGN(std::int64_t align_corners, ctx.attr_int("align_corners", 0));
  s.align_corners = align_corners != 0;
  if (s.mode != "bilinear" && s.mode != "nearest" && s.mode != "bicubic")
    return make_error(
        "attribute 'mode' is \"{}\", but must be \"bilinear\", \"nearest\" or \"bicubic\"", s.mode);
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection")
    return make_error(
        "attribute 'padding_mode' is \"{}\", but must be \"zeros\", \"border\" or "
        "\"reflection\"",
        s.padding);
  return s;
}

Expected<Values> convert_grid_sample(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(Value * grid, required_input(ctx, 1, "grid"));
  UMA_TRY_ASSIGN(GridSampling s, grid_sampling(ctx));
  const Shape& xs = shape_of(x);
  const Shape& gs = shape_of(grid);
  if (xs.size() != 4)
    return make_error("input 0 ('X') has shape {}, but must be 4-D (N, C, H, W)", to_string(xs));
  if (gs.size() != 4)
    return make_error("input 1 ('grid') has shape {}, but must be 4-D (N, H_out, W_out, 2)",
                      to_string(gs));
  if (gs[3] != 2)
    return make_error("input 1 ('grid') has shape {}, but its last dimension must be 2 (x, y)",
                      to_string(gs));
  if (gs[0] != xs[0])
    return make_error("input 1 ('grid') has shape {}, but input 0 ('X') has {}: the batches differ",
                      to_string(gs), to_string(xs));
  const DType dtype = x->tensor_type().dtype;
  if (!is_float(grid->tensor_type().dtype))
    return make_error("input 1 ('grid') is {}, but must be a floating-point type",
                      dtype_name(grid->tensor_type().dtype));
  if (s.mode != "nearest" && !is_float(dtype))
    return make_error("input 0 ('X') is {}, but mode {} needs a floating-point type",
                      dtype_name(dtype), s.mode);
  if ((xs[2] == 0 || xs[3] == 0) && xs[1] * gs[1] * gs[2] != 0)
    return make_error("input 0 ('X') has shape {}: its images have no pixels to sample",
                      to_string(xs));

  UMA_TRY_ASSIGN(Pixels pixels, pixels_of(ctx, x));
  UMA_TRY_ASSIGN(Value * images, ctx.emit_value("arange", {},
                                                attrs_of({{"stop", static_cast<double>(xs[0])},
                                                          {"dtype", std::string("i64")}})));
  UMA_TRY_ASSIGN(Value * base, image_rows(ctx, xs, images));
  UMA_TRY_ASSIGN(base, reshaped(ctx, base, {xs[0], 1, 1}));
  UMA_TRY_ASSIGN(grid, cast_to(ctx, grid, widened(grid->tensor_type().dtype)));
  UMA_TRY_ASSIGN(Value * gx, grid_coordinate(ctx, grid, 0));
  UMA_TRY_ASSIGN(Value * gy, grid_coordinate(ctx, grid, 1));
  UMA_TRY_ASSIGN(std::vector<Tap> along_x, grid_axis_taps(ctx, gx, xs[3], s));
  UMA_TRY_ASSIGN(std::vector<Tap> along_y, grid_axis_taps(ctx, gy, xs[2], s));

  // Sums along x within each row of taps, then along y.
  Value* sum = nullptr;
  for (const Tap& y : along_y) {
    Value* row = nullptr;
    for (const Tap& tx : along_x) {
      UMA_TRY_ASSIGN(Value * term, pixel_at(ctx, pixels, base, y, tx));
      UMA_TRY_ASSIGN(term, weighted(ctx, term, tx.weight));
      UMA_TRY_ASSIGN(row, accumulate(ctx, "add", row, term));
    }
    UMA_TRY_ASSIGN(row, weighted(ctx, row, y.weight));
    UMA_TRY_ASSIGN(sum, accumulate(ctx, "add", sum, row));
  }
  UMA_TRY_ASSIGN(sum, cast_to(ctx, sum, dtype));
  return single(ctx.emit_value("transpose", {sum}, attrs_of({{"axes", Ints{0, 3, 1, 2}}})));
}

// ---- RoiAlign ----

struct RoiSampling {
  std::string mode;
  std::int64_t height = 1, width = 1;  // bins of the output
  std::int64_t sampling_ratio = 0;
  double spatial_scale = 1;
  bool half_pixel = false;
};

Expected<RoiSampling> roi_sampling(const NodeContext& ctx) {
  RoiSampling s;
  UMA_TRY_ASSIGN(s.mode, ctx.attr_string("mode", std::string("avg")));
  UMA_TRY_ASSIGN(s.height, ctx.attr_int("output_height", 1));
  UMA_TRY_ASSIGN(s.width, ctx.attr_int("output_width", 1));
  UMA_TRY_ASSIGN(s.sampling_ratio, ctx.attr_int("sampling_ratio", 0));
  UMA_TRY_ASSIGN(s.spatial_scale, ctx.attr_float("spatial_scale", 1.0));
  std::string transformation = "output_half_pixel";
  if (ctx.opset() >= 16) {
    UMA_TRY_ASSIGN(transformation,
                   ctx.attr_string("coordinate_transformation_mode", std::string("half_pixel")));
  }
  if (s.mode != "avg" && s.mode != "max")
    return make_error("attribute 'mode' is \"{}\", but must be \"avg\" or \"max\"", s.mode);
  if (transformation != "half_pixel" && transformation != "output_half_pixel")
    return make_error(
        "attribute 'coordinate_transformation_mode' is \"{}\", but must be \"half_pixel\" or "
        "\"output_half_pixel\"",
        transformation);
  s.half_pixel = transformation == "half_pixel";
  if (s.height < 1 || s.width < 1)
    return make_error(
        "attributes 'output_height' and 'output_width' are {} and {}, but must be positive",
        s.height, s.width);
  if (s.sampling_ratio < 0)
    return make_error("attribute 'sampling_ratio' is {}, but must not be negative",
                      s.sampling_ratio);
  if (!std::isfinite(s.spatial_scale))
    return make_error("attribute 'spatial_scale' is {}, but must be finite", s.spatial_scale);
  return s;
}

// The grids of sample points of each region's bins: rows along y, columns along x.
struct SampleGrids {
  Ints rows, columns;  // per region; 0 when the region samples nothing
  std::int64_t max_rows = 1, max_columns = 1;
  bool varies = false;  // some region's grid is smaller than the largest
};

// The largest grid of samples per bin that adaptive sampling takes.
constexpr double kMaxSamplesPerAxis = 256;

// sampling_ratio along both axes, or, when it is 0, ceil(region size / bins) along each
// axis of each region, from the regions' constant values.
Expected<SampleGrids> sample_grids(const NodeContext& ctx, const RoiSampling& s,
                                   std::int64_t regions) {
  UMA_TRY(check_constant("the sample counts of the regions of input 1 ('rois')", {regions}));
  SampleGrids g;
  if (s.sampling_ratio > 0) {
    g.rows.assign(static_cast<std::size_t>(regions), s.sampling_ratio);
    g.columns = g.rows;
    g.max_rows = g.max_columns = s.sampling_ratio;
    return g;
  }
  UMA_TRY_ASSIGN(TensorPtr rois,
                 ctx.require_constant_input(1, "rois",
                                            "attribute 'sampling_ratio' is 0, so the number of "
                                            "samples per bin depends on each region's size"));
  const double offset = s.half_pixel ? 0.5 : 0;
  auto count = [&](std::int64_t r, std::int64_t start,
                   std::int64_t bins) -> Expected<std::int64_t> {
    double size = (rois->get(r * 4 + start + 2) * s.spatial_scale - offset) -
                  (rois->get(r * 4 + start) * s.spatial_scale - offset);
    if (!s.half_pixel) size = std::max(size, 1.0);
    double samples = std::ceil(size / static_cast<double>(bins));
    if (std::isnan(samples) || samples > kMaxSamplesPerAxis)
      return make_error(
          "input 1 ('rois') holds region {} of size {}, which would take {} samples along an "
          "axis of each bin (sampling_ratio 0), more than the {} supported",
          r, size, samples, kMaxSamplesPerAxis);
    return samples > 0 ? static_cast<std::int64_t>(samples) : 0;
  };
  for (std::int64_t r = 0; r < regions; ++r) {
    UMA_TRY_ASSIGN(std::int64_t rows, count(r, 1, s.height));
    UMA_TRY_ASSIGN(std::int64_t columns, count(r, 0, s.width));
    g.rows.push_back(rows);
    g.columns.push_back(columns);
    g.max_rows = std::max(g.max_rows, rows);
    g.max_columns = std::max(g.max_columns, columns);
  }
  for (std::size_t r = 0; r < g.rows.size(); ++r)
    g.varies |= g.rows[r] != g.max_rows || g.columns[r] != g.max_columns;
  return g;
}

// Column `k` of the rois, scaled and shifted: (R, 1, 1).
Expected<Value*> roi_edge(NodeContext& ctx, Value* rois, std::int64_t k, const RoiSampling& s) {
  const std::int64_t regions = shape_of(rois)[0];
  UMA_TRY_ASSIGN(
      Value * column,
      ctx.emit_value("strided_slice", {rois},
                     attrs_of({{"begin", Ints{k}}, {"end", Ints{k + 1}}, {"axes", Ints{1}}})));
  UMA_TRY_ASSIGN(column, reshaped(ctx, column, {regions, 1, 1}));
  UMA_TRY_ASSIGN(column, ctx.emit_value("multiply", {column, real(ctx, rois, s.spatial_scale)}));
  if (!s.half_pixel) return column;
  return ctx.emit_value("subtract", {column, real(ctx, rois, 0.5)});
}

// The sample coordinates along one axis, (R, bins, samples): start + b * bin + (i + 0.5) *
// bin / grid for bin b and sample i, where the region starts at column `first` of the rois
// and ends at column first + 2, and `grid` (a scalar or (R, 1, 1)) is its samples per bin.
Expected<Value*> sample_coordinates(NodeContext& ctx, Value* rois, std::int64_t first,
                                    std::int64_t bins, std::int64_t samples, Value* grid,
                                    const RoiSampling& s) {
  const std::string dtype(dtype_name(rois->tensor_type().dtype));
  UMA_TRY_ASSIGN(Value * start, roi_edge(ctx, rois, first, s));
  UMA_TRY_ASSIGN(Value * end, roi_edge(ctx, rois, first + 2, s));
  UMA_TRY_ASSIGN(Value * size, ctx.emit_value("subtract", {end, start}));
  if (!s.half_pixel) {  // a malformed region becomes 1 x 1
    UMA_TRY_ASSIGN(size, ctx.emit_value("maximum", {size, real(ctx, rois, 1)}));
  }
  UMA_TRY_ASSIGN(Value * bin,
                 ctx.emit_value("divide", {size, real(ctx, rois, static_cast<double>(bins))}));
  UMA_TRY_ASSIGN(Value * b,
                 ctx.emit_value("arange", {},
                                attrs_of({{"stop", static_cast<double>(bins)}, {"dtype", dtype}})));
  UMA_TRY_ASSIGN(b, reshaped(ctx, b, {1, bins, 1}));
  UMA_TRY_ASSIGN(Value * i, ctx.emit_value("arange", {},
                                           attrs_of({{"start", 0.5},
                                                     {"stop", static_cast<double>(samples) + 0.5},
                                                     {"dtype", dtype}})));
  UMA_TRY_ASSIGN(i, reshaped(ctx, i, {1, 1, samples}));
  UMA_TRY_ASSIGN(Value * bin_start, ctx.emit_value("multiply", {b, bin}));
  UMA_TRY_ASSIGN(bin_start, ctx.emit_value("add", {start, bin_start}));
  UMA_TRY_ASSIGN(Value * within, ctx.emit_value("multiply", {i, bin}));
  UMA_TRY_ASSIGN(within, ctx.emit_value("divide", {within, grid}));
  return ctx.emit_value("add", {bin_start, within});
}

// RoiAlign's taps along an axis of `size` pixels at sample coordinates `c`: a sample more
// than a pixel outside the image reads nothing; the others are clamped into the image and
// interpolated between floor(c) and the next pixel (the last one itself at the edge).
Expected<std::vector<Tap>> roi_axis_taps(NodeContext& ctx, Value* c, std::int64_t size) {
  const double last = static_cast<double>(size - 1);
  UMA_TRY_ASSIGN(Value * from, ctx.emit_value("greater_equal", {c, real(ctx, c, -1)}));
  UMA_TRY_ASSIGN(Value * to,
                 ctx.emit_value("less_equal", {c, real(ctx, c, static_cast<double>(size))}));
  UMA_TRY_ASSIGN(Value * inside, ctx.emit_value("logical_and", {from, to}));
  UMA_TRY_ASSIGN(Value * clamped, clip(ctx, c, 0, last));
  UMA_TRY_ASSIGN(std::vector<Tap> taps, linear_taps(ctx, clamped));
  UMA_TRY_ASSIGN(taps[1].index, clip(ctx, taps[1].index, 0, last));
  for (Tap& tap : taps) tap.inside = inside;
  return taps;
}

Status check_roi_inputs(const Shape& xs, const Value* x, const Value* rois, const Value* indices) {
  if (xs.size() != 4)
    return make_error("input 0 ('X') has shape {}, but must be 4-D (N, C, H, W)", to_string(xs));
  const DType dtype = x->tensor_type().dtype;
  if (!is_float(dtype))
    return make_error("input 0 ('X') is {}, but must be a floating-point type", dtype_name(dtype));
  const Shape& rs = shape_of(rois);
  if (rs.size() != 2 || rs[1] != 4)
    return make_error("input 1 ('rois') has shape {}, but must be (num_rois, 4)", to_string(rs));
  if (rois->tensor_type().dtype != dtype)
    return make_error("input 1 ('rois') is {}, but input 0 ('X') is {}",
                      dtype_name(rois->tensor_type().dtype), dtype_name(dtype));
  const TensorType& it = indices->tensor_type();
  if (it.shape != Shape{rs[0]})
    return make_error("input 2 ('batch_indices') has shape {}, but must be [{}] (one per roi)",
                      to_string(it.shape), rs[0]);
  if (it.dtype != DType::i64 && it.dtype != DType::i32)
    return make_error("input 2 ('batch_indices') is {}, but must be i64 or i32",
                      dtype_name(it.dtype));
  if ((xs[2] == 0 || xs[3] == 0) && rs[0] * xs[1] != 0)
    return make_error("input 0 ('X') has shape {}: its images have no pixels to sample",
                      to_string(xs));
  return Status::success();
}

// One number per region from its grid of samples, as a constant of `dtype` and `shape`.
Value* per_region(NodeContext& ctx, DType dtype, Shape shape, const SampleGrids& g,
                  const std::function<double(std::int64_t rows, std::int64_t columns)>& f) {
  auto tensor = std::make_shared<Tensor>(TensorType{dtype, std::move(shape)});
  for (std::size_t r = 0; r < g.rows.size(); ++r)
    tensor->set(static_cast<std::int64_t>(r), f(g.rows[r], g.columns[r]));
  return ctx.constant(std::move(tensor));
}

// Whether each sample index of a varying grid is one of its region's: (R, 1, 1, rows,
// columns).
Expected<Value*> samples_taken(NodeContext& ctx, const SampleGrids& g) {
  const auto regions = static_cast<std::int64_t>(g.rows.size());
  auto axis = [&](bool rows) -> Expected<Value*> {
    const std::int64_t most = rows ? g.max_rows : g.max_columns;
    UMA_TRY_ASSIGN(Value * i, ctx.emit_value("arange", {},
                                             attrs_of({{"stop", static_cast<double>(most)},
                                                       {"dtype", std::string("i64")}})));
    UMA_TRY_ASSIGN(i, reshaped(ctx, i, rows ? Ints{1, 1, 1, most, 1} : Ints{1, 1, 1, 1, most}));
    Value* count = per_region(
        ctx, DType::i64, {regions, 1, 1, 1, 1}, g,
        [rows](std::int64_t r, std::int64_t c) { return static_cast<double>(rows ? r : c); });
    return ctx.emit_value("less", {i, count});
  };
  UMA_TRY_ASSIGN(Value * rows, axis(true));
  UMA_TRY_ASSIGN(Value * columns, axis(false));
  return ctx.emit_value("logical_and", {rows, columns});
}

// Every sample of every bin of every region: the four pixels around it, weighted, and
// summed (avg) or their maximum (max): (R, bins along y, bins along x, sample rows, sample
// columns, C).
Expected<Value*> roi_samples(NodeContext& ctx, Value* x, Value* rois, Value* indices,
                             const RoiSampling& s, const SampleGrids& g) {
  const Shape& image = shape_of(x);
  const std::int64_t regions = shape_of(rois)[0];
  // Samples per bin along an axis as a divisor: sampling_ratio, or each region's (at least
  // 1, for regions that sample nothing).
  auto divisor = [&](bool rows) {
    if (s.sampling_ratio > 0) return real(ctx, rois, static_cast<double>(s.sampling_ratio));
    return per_region(ctx, rois->tensor_type().dtype, {regions, 1, 1}, g,
                      [rows](std::int64_t r, std::int64_t c) {
                        return static_cast<double>(std::max<std::int64_t>(rows ? r : c, 1));
                      });
  };
  UMA_TRY_ASSIGN(Value * ys,
                 sample_coordinates(ctx, rois, 1, s.height, g.max_rows, divisor(true), s));
  UMA_TRY_ASSIGN(ys, reshaped(ctx, ys, {regions, s.height, 1, g.max_rows, 1}));
  UMA_TRY_ASSIGN(Value * xs,
                 sample_coordinates(ctx, rois, 0, s.width, g.max_columns, divisor(false), s));
  UMA_TRY_ASSIGN(xs, reshaped(ctx, xs, {regions, 1, s.width, 1, g.max_columns}));
  UMA_TRY_ASSIGN(std::vector<Tap> along_y, roi_axis_taps(ctx, ys, image[2]));
  UMA_TRY_ASSIGN(std::vector<Tap> along_x, roi_axis_taps(ctx, xs, image[3]));

  UMA_TRY_ASSIGN(Pixels pixels, pixels_of(ctx, x));
  UMA_TRY_ASSIGN(Value * images, cast_to(ctx, indices, DType::i64));
  UMA_TRY_ASSIGN(Value * base, image_rows(ctx, image, images));
  UMA_TRY_ASSIGN(base, reshaped(ctx, base, {regions, 1, 1, 1, 1}));
  Value* sample = nullptr;
  for (const Tap& y : along_y) {
    for (const Tap& tx : along_x) {
      UMA_TRY_ASSIGN(Value * w, ctx.emit_value("multiply", {y.weight, tx.weight}));
      UMA_TRY_ASSIGN(Value * term, pixel_at(ctx, pixels, base, y, tx));
      UMA_TRY_ASSIGN(term, weighted(ctx, term, w));
      UMA_TRY_ASSIGN(sample, accumulate(ctx, s.mode == "avg" ? "add" : "maximum", sample, term));
    }
  }
  return sample;
}

Expected<Values> convert_roi_align(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(Value * rois, required_input(ctx, 1, "rois"));
  UMA_TRY_ASSIGN(Value * indices, required_input(ctx, 2, "batch_indices"));
  UMA_TRY_ASSIGN(RoiSampling s, roi_sampling(ctx));
  UMA_TRY(check_roi_inputs(shape_of(x), x, rois, indices));
  const DType dtype = x->tensor_type().dtype;
  const std::int64_t regions = shape_of(rois)[0];
  UMA_TRY_ASSIGN(SampleGrids g, sample_grids(ctx, s, regions));
  UMA_TRY_ASSIGN(rois, cast_to(ctx, rois, widened(dtype)));
  UMA_TRY_ASSIGN(Value * sample, roi_samples(ctx, x, rois, indices, s, g));

  const bool average = s.mode == "avg";
  if (g.varies) {  // samples beyond a region's grid count for nothing
    UMA_TRY_ASSIGN(Value * taken, samples_taken(ctx, g));
    UMA_TRY_ASSIGN(taken, per_pixel(ctx, taken));
    const double none = average ? 0 : -std::numeric_limits<double>::infinity();
    UMA_TRY_ASSIGN(sample, ctx.emit_value("where", {taken, sample, real(ctx, rois, none)}));
  }
  UMA_TRY_ASSIGN(Value * bin,
                 ctx.emit_value(average ? "sum" : "max", {sample},
                                attrs_of({{"axes", Ints{3, 4}}, {"keepdims", std::int64_t{0}}})));
  if (average) {
    Value* count =
        per_region(ctx, rois->tensor_type().dtype, {regions, 1, 1, 1}, g,
                   [](std::int64_t rows, std::int64_t columns) {
                     return static_cast<double>(std::max<std::int64_t>(rows * columns, 1));
                   });
    UMA_TRY_ASSIGN(bin, ctx.emit_value("divide", {bin, count}));
  } else if (g.varies) {  // a region without samples gives 0, as the reference's
    Value* sampled = per_region(
        ctx, DType::boolean, {regions, 1, 1, 1}, g,
        [](std::int64_t rows, std::int64_t columns) { return rows * columns > 0 ? 1.0 : 0.0; });
    UMA_TRY_ASSIGN(bin, ctx.emit_value("where", {sampled, bin, real(ctx, rois, 0)}));
  }
  UMA_TRY_ASSIGN(bin, cast_to(ctx, bin, dtype));
  return single(ctx.emit_value("transpose", {bin}, attrs_of({{"axes", Ints{0, 3, 1, 2}}})));
}

}  // namespace

void register_sample_converters(ConverterTable& table) {
  table.add("GridSample", 16, convert_grid_sample);
  table.add("RoiAlign", 10, convert_roi_align);
}

}  // namespace uma::onnx_import
