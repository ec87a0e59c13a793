// Converters of ONNX's sampling ops, GridSample, composed of ours: each output element is a
// weighted sum of input pixels that `take` gathers at indices computed from sampling
// coordinates (floor and cast, bounded by clip), with `where` giving 0 for a pixel outside
// the image. So every backend that runs gathers and pointwise ops runs them, and compiled
// code gets each as loop nests of those.
//
// The arithmetic is ONNX's reference's, in the coordinates' dtype:
// - GridSample (16): grid (N, H_out, W_out, 2) holds (x, y) normalized to [-1, 1] over the
//   image's extent: [-0.5, size - 0.5] in pixels, or [0, size - 1] with align_corners. A
//   coordinate outside that extent is clamped to [0, size - 1] (padding_mode border) or
//   reflected into the extent (reflection); nearest first rounds it half to even (as
//   PyTorch's nearbyint does). Each tap's pixel then reads 0 outside the image (zeros), the
//   nearest edge pixel (border) or its reflection (reflection). bilinear weighs 2 x 2 taps,
//   bicubic 4 x 4 by Keys' cubic convolution with a = -0.75; the sums run along x within
//   each row of taps, then along y, as the reference's do.

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

Expected<Value*> cast_to(NodeContext& ctx, Value* value, DType dtype) {
  if (value->tensor_type().dtype == dtype) return value;
  return ctx.emit_value("cast", {value}, attrs_of({{"dtype", std::string(dtype_name(dtype))}}));
}

Expected<Value*> clip(NodeContext& ctx, Value* value, double low, double high) {
  return ctx.emit_value("clip", {value}, attrs_of({{"a_min", low}, {"a_max", high}}));
}

Expected<Value*> reshaped(NodeContext& ctx, Value* value, Ints shape) {
  return ctx.emit_value("reshape", {value},
                        attrs_of({{"newshape", std::move(shape)}, {"allowzero", std::int64_t{1}}}));
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
// which `take` gathers by the index n * H * W + y * W + x.
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
  return Pixels{rows, s[3], x->tensor_type().dtype};
}

// The first row of each image of `pixels` that `images` (i64 indices of images) names.
Expected<Value*> image_rows(NodeContext& ctx, const Shape& x_shape, Value* images) {
  const std::int64_t n = x_shape[0], plane = x_shape[2] * x_shape[3];
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
  return single(ctx.emit_value("transpose", {sum}, attrs_of({{"axes", Ints{0, 3, 1, 2}}})));
}

}  // namespace

void register_sample_converters(ConverterTable& table) {
  table.add("GridSample", 16, convert_grid_sample);
}

}  // namespace uma::onnx_import
