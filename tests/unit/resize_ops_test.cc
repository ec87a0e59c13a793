// Unit tests of image.resize: its schema, every inference error exactly, and the kernel on
// hand-computed cases (ONNX's Resize examples among them), against a multilinear
// interpolation written here as a sum over the corners of each output element's box (the
// kernel interpolates one dimension at a time), and, for cubic and tf_crop_and_resize, against
// numbers from ONNX's reference implementation.
#include <cmath>
#include <limits>

#include "op_test_fixture.h"

namespace uma {
namespace {

using test::expect_near;
using test::f32;
using test::make_attrs;
using test::make_tensor;
using test::values_of;
using Ints = std::vector<std::int64_t>;
using Values = std::vector<double>;
using Floats = std::vector<double>;

Type tensor(Shape shape, DType dtype = DType::f32) { return test::tensor_type(shape, dtype); }

class ResizeOpsTest : public test::OpTest {
 protected:
  // Resizes [1, 1, ...] `data` and returns the values.
  Values resize(TensorPtr data, Ints size, std::string method, std::string mode,
                std::string nearest = "round_prefer_floor", Floats scales = {}) {
    return values_of(*run1("image.resize", {std::move(data)},
                           make_attrs({{"size", size},
                                       {"scales", scales},
                                       {"method", method},
                                       {"coordinate_transformation_mode", mode},
                                       {"nearest_mode", nearest}})));
  }
};

TEST_F(ResizeOpsTest, Schema) {
  const OpDef& resize = op("image.resize");
  EXPECT_EQ(resize.min_inputs, 1);
  EXPECT_EQ(resize.max_inputs, 1);
  AttrMap attrs = make_attrs({{"size", Ints{2, 2}}});
  ASSERT_TRUE(resize.normalize_attrs(attrs).ok());
  EXPECT_EQ(attrs.get_floats("scales"), Floats{});
  EXPECT_EQ(attrs.get_string("method"), "nearest");
  EXPECT_EQ(attrs.get_string("coordinate_transformation_mode"), "half_pixel");
  EXPECT_EQ(attrs.get_string("nearest_mode"), "round_prefer_floor");
  EXPECT_EQ(attrs.get_float("cubic_coeff_a"), -0.75);
  EXPECT_EQ(attrs.get_int("exclude_outside"), 0);
  EXPECT_EQ(attrs.get_floats("roi"), Floats{});
  EXPECT_EQ(attrs.get_float("extrapolation_value"), 0.0);
  EXPECT_EQ(resize.fusion, FusionCategory::kInjective);
}

TEST_F(ResizeOpsTest, Inference) {
  EXPECT_EQ(infer1("image.resize", {tensor({2, 3, 4, 5})}, make_attrs({{"size", Ints{8, 1}}})),
            tensor({2, 3, 8, 1}));
  EXPECT_EQ(infer1("image.resize", {tensor({1, 2, 4}, DType::i8)}, make_attrs({{"size", Ints{0}}})),
            tensor({1, 2, 0}, DType::i8));
  EXPECT_EQ(infer1("image.resize", {tensor({1, 1, 2, 3, 4})},
                   make_attrs({{"size", Ints{4, 6, 8}},
                               {"scales", Floats{2.1, 2.2, 2.3}},
                               {"method", std::string("linear")}})),
            tensor({1, 1, 4, 6, 8}));
}

TEST_F(ResizeOpsTest, InferenceErrors) {
  Type data = tensor({1, 3, 4, 4});
  auto resize_error = [&](AttrMap attrs) {
    if (!attrs.has("size")) attrs.set("size", Ints{8, 8});
    return error("image.resize", {data}, std::move(attrs));
  };
  EXPECT_EQ(error("image.resize", {data}), "op image.resize requires attribute 'size'");
  EXPECT_EQ(error("image.resize", {tensor({4, 4})}, make_attrs({{"size", Ints{8, 8}}})),
            "data must have rank 3 or more (N, C, spatial...), got tensor<4x4xf32>");
  EXPECT_EQ(resize_error(make_attrs({{"size", Ints{8}}})),
            "attribute 'size' has 1 value(s), but data has 2 spatial dimension(s)");
  EXPECT_EQ(resize_error(make_attrs({{"size", Ints{8, -1}}})),
            "attribute 'size' must not be negative, got [8, -1]");
  EXPECT_EQ(resize_error(make_attrs({{"scales", Floats{2}}})),
            "attribute 'scales' has 1 value(s), but data has 2 spatial dimension(s)");
  EXPECT_EQ(resize_error(make_attrs({{"scales", Floats{2, 0}}})),
            "attribute 'scales' must be positive and finite, got [2, 0]");
  EXPECT_EQ(
      resize_error(make_attrs({{"scales", Floats{std::numeric_limits<double>::infinity(), 2}}})),
      "attribute 'scales' must be positive and finite, got [inf, 2]");
  EXPECT_EQ(resize_error(make_attrs({{"scales", Floats{std::nan(""), 2}}})),
            "attribute 'scales' must be positive and finite, got [nan, 2]");
  EXPECT_EQ(resize_error(make_attrs({{"method", std::string("bicubic")}})),
            "attribute 'method' is \"bicubic\", but must be one of nearest, linear, cubic");
  EXPECT_EQ(resize_error(make_attrs({{"coordinate_transformation_mode", std::string("crop")}})),
            "attribute 'coordinate_transformation_mode' is \"crop\", but must be one of "
            "half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, "
            "tf_crop_and_resize");
  const Attribute crop = std::string("tf_crop_and_resize");
  EXPECT_EQ(resize_error(make_attrs({{"coordinate_transformation_mode", crop}})),
            "attribute 'roi' has 0 value(s), but tf_crop_and_resize needs a start and an end for "
            "each of the 2 spatial dimension(s)");
  EXPECT_EQ(resize_error(make_attrs(
                {{"coordinate_transformation_mode", crop}, {"roi", Floats{0, 0, 1, 1, 1, 1}}})),
            "attribute 'roi' has 6 value(s), but tf_crop_and_resize needs a start and an end for "
            "each of the 2 spatial dimension(s)");
  EXPECT_EQ(resize_error(make_attrs({{"coordinate_transformation_mode", crop},
                                     {"roi", Floats{0, std::nan(""), 1, 1}}})),
            "attribute 'roi' must be finite, got [0, nan, 1, 1]");
  EXPECT_EQ(resize_error(make_attrs({{"roi", Floats{0, 0, 1, 1}}})),
            "attribute 'roi' is given, but only tf_crop_and_resize uses it");
  EXPECT_EQ(resize_error(make_attrs({{"cubic_coeff_a", -std::numeric_limits<double>::infinity()}})),
            "attribute 'cubic_coeff_a' must be finite, got -inf");
  EXPECT_EQ(resize_error(make_attrs({{"exclude_outside", std::int64_t{2}}})),
            "attribute 'exclude_outside' must be 0 or 1, got 2");
  EXPECT_EQ(error("image.resize", {tensor({1, 3, 4, 4}, DType::u8)},
                  make_attrs({{"size", Ints{8, 8}}, {"method", std::string("cubic")}})),
            "data is u8, but method cubic needs a floating-point type (f32, f16, bf16)");
  EXPECT_EQ(resize_error(make_attrs({{"nearest_mode", std::string("round")}})),
            "attribute 'nearest_mode' is \"round\", but must be one of round_prefer_floor, "
            "round_prefer_ceil, floor, ceil");
  EXPECT_EQ(error("image.resize", {tensor({1, 3, 4, 4}, DType::i32)},
                  make_attrs({{"size", Ints{8, 8}}, {"method", std::string("linear")}})),
            "data is i32, but method linear needs a floating-point type (f32, f16, bf16)");
  EXPECT_EQ(error("image.resize", {tensor({1, 3, 4, 0})}, make_attrs({{"size", Ints{8, 3}}})),
            "data dimension 3 is empty, so it cannot be resized to 3");
  EXPECT_EQ(resize_error(make_attrs({{"size", Ints{1LL << 40, 1LL << 40}}})),
            "result: shape 1x3x1099511627776x1099511627776 has more elements than fit in 64 bits");
  EXPECT_EQ(resize_error(make_attrs({{"size", std::int64_t{8}}})),
            "attribute 'size' of op image.resize must be ints, not int");
  EXPECT_EQ(error("image.resize", {data, data}, make_attrs({{"size", Ints{8, 8}}})),
            "op image.resize takes 1 operand(s), got 2");
  EXPECT_EQ(error("image.resize", {TupleType{}}, make_attrs({{"size", Ints{8, 8}}})),
            "operand 0 is tuple<>, not a tensor");
}

// ONNX's Resize examples (onnx/backend/test/case/node/resize.py), on [[1, 2], [3, 4]] and
// [[1, 2, 3, 4], [5, 6, 7, 8]].
TEST_F(ResizeOpsTest, OnnxExamples) {
  auto square = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto wide = f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(resize(square, {4, 6}, "nearest", "half_pixel"),
            (Values{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  // Scales 0.6 give sizes 1 and 2, but coordinates still divide by 0.6.
  EXPECT_EQ(resize(wide, {1, 2}, "nearest", "half_pixel", "round_prefer_floor", {0.6, 0.6}),
            (Values{1, 3}));
  expect_near(resize(square, {4, 4}, "linear", "half_pixel"),
              {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  const double third = 1.0 / 3;
  expect_near(resize(square, {4, 4}, "linear", "align_corners"),
              {1, 1 + third, 2 - third, 2, 2 - third, 2, 2 + third, 3 - third, 2 + third, 3 - third,
               3, 3 + third, 3, 3 + third, 4 - third, 4});
  expect_near(resize(wide, {1, 2}, "linear", "half_pixel", "round_prefer_floor", {0.6, 0.6}),
              {2 + 2 * third, 4 + third});
  // align_corners divides by in * scale - 1 = 1.4, not by size - 1 = 1: x' = 3 / 1.4.
  expect_near(resize(wide, {1, 2}, "linear", "align_corners", "round_prefer_floor", {0.6, 0.6}),
              {1, 1 + 3 / 1.4});
  // pytorch_half_pixel, sizes 3x1: down column 0 [1, 5, 9, 13], x' = (x + 0.5) * 4/3 - 0.5
  // = 1/6, 3/2, 17/6; across, x' = 0.
  auto four = f32({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  expect_near(resize(four, {3, 1}, "linear", "pytorch_half_pixel"), {1 + 4.0 / 6, 7, 12 + third});
}

// x' in one dimension of [10, 20, 30] for each coordinate mode and rounding.
TEST_F(ResizeOpsTest, NearestModes) {
  auto line = f32({1, 1, 3}, {10, 20, 30});
  // asymmetric, scale 2: x' = 0, 0.5, 1, 1.5, 2, 2.5; halves go down or up.
  EXPECT_EQ(resize(line, {6}, "nearest", "asymmetric", "round_prefer_floor"),
            (Values{10, 10, 20, 20, 30, 30}));
  EXPECT_EQ(resize(line, {6}, "nearest", "asymmetric", "round_prefer_ceil"),
            (Values{10, 20, 20, 30, 30, 30}));
  // half_pixel, scale 5/3: x' = -0.2, 0.4, 1, 1.6, 2.2.
  EXPECT_EQ(resize(line, {5}, "nearest", "half_pixel", "round_prefer_floor"),
            (Values{10, 10, 20, 30, 30}));
  EXPECT_EQ(resize(line, {5}, "nearest", "half_pixel", "floor"), (Values{10, 10, 20, 20, 30}));
  EXPECT_EQ(resize(line, {5}, "nearest", "half_pixel", "ceil"), (Values{10, 20, 20, 30, 30}));
  // tf_half_pixel_for_nn, scale 2: x' = 0.25, 0.75, 1.25, 1.75, 2.25, 2.75.
  EXPECT_EQ(resize(line, {6}, "nearest", "tf_half_pixel_for_nn"), (Values{10, 20, 20, 30, 30, 30}));
  // align_corners, size 5: x' = 0, 0.5, 1, 1.5, 2.
  EXPECT_EQ(resize(line, {5}, "nearest", "align_corners", "round_prefer_ceil"),
            (Values{10, 20, 20, 30, 30}));
  // A single output element: x' = 1.0 for half_pixel; 0 for pytorch_half_pixel and
  // align_corners.
  EXPECT_EQ(resize(line, {1}, "nearest", "half_pixel"), (Values{20}));
  EXPECT_EQ(resize(line, {1}, "nearest", "pytorch_half_pixel"), (Values{10}));
  EXPECT_EQ(resize(line, {1}, "nearest", "align_corners"), (Values{10}));
  EXPECT_EQ(resize(line, {1}, "linear", "half_pixel"), (Values{20}));
  EXPECT_EQ(resize(line, {1}, "linear", "pytorch_half_pixel"), (Values{10}));
  // A tiny scale sends x' far past the end; it clamps to the last element.
  EXPECT_EQ(resize(line, {2}, "nearest", "asymmetric", "floor", {1e-300}), (Values{10, 30}));
  EXPECT_EQ(resize(line, {2}, "linear", "asymmetric", "floor", {1e-300}), (Values{10, 30}));
  // Zero output elements.
  EXPECT_EQ(resize(line, {0}, "linear", "half_pixel"), (Values{}));
}

TEST_F(ResizeOpsTest, LinearClampsAtTheEdges) {
  // half_pixel, scale 4: x' = -0.375, -0.125, 0.125, 0.375, 0.625, 0.875, 1.125, 1.375.
  auto line = f32({1, 1, 2}, {0, 8});
  EXPECT_EQ(resize(line, {8}, "linear", "half_pixel"), (Values{0, 0, 1, 3, 5, 7, 8, 8}));
  // An infinite neighbour does not leak into an element hit exactly.
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(resize(f32({1, 1, 2}, {1, inf}), {4}, "linear", "asymmetric"),
            (Values{1, inf, inf, inf}));
  EXPECT_EQ(resize(f32({1, 1, 2}, {1, inf}), {2}, "linear", "asymmetric")[0], 1);
}

TEST_F(ResizeOpsTest, NearestCopiesAnyDtypeExactly) {
  auto big = std::make_shared<Tensor>(TensorType{DType::i64, {1, 2, 2}});
  big->data<std::int64_t>()[0] = (1LL << 60) + 1;
  big->data<std::int64_t>()[1] = -7;
  big->data<std::int64_t>()[2] = 5;
  big->data<std::int64_t>()[3] = std::numeric_limits<std::int64_t>::min();
  TensorPtr out = run1("image.resize", {big}, make_attrs({{"size", Ints{4}}}));
  ASSERT_EQ(out->num_elements(), 8);
  const std::int64_t* y = out->data<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(y, y + 8),
            (std::vector<std::int64_t>{(1LL << 60) + 1, (1LL << 60) + 1, -7, -7, 5, 5,
                                       std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::min()}));
  auto flags = make_tensor(DType::boolean, {1, 1, 1, 2}, {1, 0});
  EXPECT_EQ(values_of(*run1("image.resize", {flags}, make_attrs({{"size", Ints{2, 4}}}))),
            (Values{1, 1, 0, 0, 1, 1, 0, 0}));
}

// Trilinear interpolation over 2x3x4 planes (two channels), every output element computed as
// the weighted sum over the eight corners of its box.
TEST_F(ResizeOpsTest, TrilinearMatchesTheCornerSum) {
  const Shape in = {1, 2, 2, 3, 4};
  const Ints size = {3, 2, 7};
  Values data;
  for (int i = 0; i < 48; ++i) data.push_back(std::sin(i * 0.9) * 10);
  Values y = values_of(*run1("image.resize", {f32(in, data)},
                             make_attrs({{"size", size}, {"method", std::string("linear")}})));
  ASSERT_EQ(y.size(), 2u * 3 * 2 * 7);
  auto stored = [&](std::int64_t c, std::int64_t z, std::int64_t r, std::int64_t x) {
    return static_cast<double>(static_cast<float>(data[((c * 2 + z) * 3 + r) * 4 + x]));
  };
  // (lower index, upper index, weight of the upper) in one dimension, half_pixel.
  struct Tap {
    std::int64_t lo, hi;
    double t;
  };
  auto tap = [](std::int64_t x, std::int64_t in_len, std::int64_t out_len) {
    double source = (x + 0.5) * static_cast<double>(in_len) / static_cast<double>(out_len) - 0.5;
    source = std::max(source, 0.0);
    auto lo = static_cast<std::int64_t>(source);
    lo = std::min(lo, in_len - 1);
    return Tap{lo, std::min(lo + 1, in_len - 1), std::min(source - static_cast<double>(lo), 1.0)};
  };
  std::size_t i = 0;
  for (std::int64_t c = 0; c < 2; ++c) {
    for (std::int64_t z = 0; z < 3; ++z) {
      for (std::int64_t r = 0; r < 2; ++r) {
        for (std::int64_t x = 0; x < 7; ++x) {
          Tap tz = tap(z, 2, 3), tr = tap(r, 3, 2), tx = tap(x, 4, 7);
          double expected = 0;
          for (int corner = 0; corner < 8; ++corner) {
            bool uz = corner & 4, ur = corner & 2, ux = corner & 1;
            double w = (uz ? tz.t : 1 - tz.t) * (ur ? tr.t : 1 - tr.t) * (ux ? tx.t : 1 - tx.t);
            expected += w * stored(c, uz ? tz.hi : tz.lo, ur ? tr.hi : tr.lo, ux ? tx.hi : tx.lo);
          }
          EXPECT_NEAR(y[i++], expected, 1e-5) << c << " " << z << " " << r << " " << x;
        }
      }
    }
  }
}

// Cubic resizing against ONNX's reference: the expected numbers were computed once with
// interpolate_nd and cubic_coeffs of onnx 1.12's onnx/backend/test/case/node/resize.py, e.g.
//   interpolate_nd(np.array([[[0, 1, 4, 9]]], dtype=np.float64), cubic_coeffs,
//                  output_size=[1, 1, 6], coordinate_transformation_mode="half_pixel")
// (scale_factors=[1, 1, 0.6] for the given scale, lambda r: cubic_coeffs(r, A=-0.5) and
// exclude_outside=True for the options).
TEST_F(ResizeOpsTest, CubicMatchesOnnxReference) {
  auto line = f32({1, 1, 4}, {0, 1, 4, 9});
  auto cubic = [&](Ints size, std::string mode, Floats scales = {}, double a = -0.75,
                   std::int64_t exclude_outside = 0) {
    return values_of(*run1("image.resize", {line},
                           make_attrs({{"size", size},
                                       {"scales", scales},
                                       {"method", std::string("cubic")},
                                       {"coordinate_transformation_mode", mode},
                                       {"cubic_coeff_a", a},
                                       {"exclude_outside", exclude_outside}})));
  };
  const Values half_pixel = {-0.08680555555555536, 0.21875, 1.4305555555555476,
                             3.1527777777777755,   6.78125, 9.43402777777778};
  expect_near(cubic({6}, "half_pixel"), half_pixel);
  expect_near(cubic({6}, "pytorch_half_pixel"), half_pixel);
  expect_near(cubic({6}, "align_corners"), {0, 0.288, 1.504, 3.016, 6.264, 9});
  expect_near(cubic({6}, "asymmetric"),
              {0, 0.35185185185185164, 1.7777777777777795, 4, 7.592592592592592, 9.55555555555555});
  // Scale 0.6 gives size 2, but coordinates divide by 0.6 (and align_corners by 2.4 - 1).
  expect_near(cubic({2}, "half_pixel", {0.6}), {0.14814814814814548, 4});
  expect_near(cubic({2}, "align_corners", {0.6}), {0, 4.841107871720121});
  expect_near(cubic({6}, "half_pixel", {}, -0.5), {-0.05787037037037024, 0.3125, 1.361111111111117,
                                                   3.3611111111111085, 6.6875, 9.289351851851848});
  // exclude_outside: the weights of elements before 0 and after 3 go to the others.
  expect_near(cubic({6}, "half_pixel", {}, -0.5, 1),
              {-0.06578947368421037, 0.29411764705882354, 1.3611111111111156, 3.3611111111111116,
               6.8235294117647065, 9.328947368421053});

  // Bicubic, one dimension shrinking and the other growing.
  auto square = f32({1, 1, 3, 3}, {1, 2, 0, 4, 3, 5, -1, 6, 2});
  expect_near(
      values_of(*run1("image.resize", {square},
                      make_attrs({{"size", Ints{2, 4}}, {"method", std::string("cubic")}}))),
      {1.8364028930664062, 2.122364044189453, 1.8321533203125, 1.1749153137207031,
       -0.12901687622070312, 3.7861404418945312, 5.016780853271484, 2.676025390625});
}

// tf_crop_and_resize against ONNX's reference (interpolate_nd with roi and
// extrapolation_value=-7 of the same resize.py), on the 3x3 square above resized to 3x3 within
// roi [0, 0, 0.2, -0.1, 1, 1, 0.9, 0.7]: rows at x' = 0.4, 1.1, 1.8 and columns at
// x' = -0.2 (outside, so the whole column is -7), 0.6, 1.4.
TEST_F(ResizeOpsTest, CropAndResizeMatchesOnnxReference) {
  auto square = f32({1, 1, 3, 3}, {1, 2, 0, 4, 3, 5, -1, 6, 2});
  auto crop = [&](std::string method, Ints size, Floats roi) {
    return values_of(
        *run1("image.resize", {square},
              make_attrs({{"size", size},
                          {"method", method},
                          {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                          {"roi", roi},
                          {"extrapolation_value", -7.0}})));
  };
  const Floats roi = {0.2, -0.1, 0.9, 0.7};
  expect_near(crop("linear", {3, 3}, roi), {-7, 2.32, 2.24, -7, 3.38, 3.86, -7, 3.24, 4.28});
  expect_near(crop("cubic", {3, 3}, roi),
              {-7, 2.3103039999999995, 2.1277759999999994, -7, 3.298256000000005,
               3.9358640000000054, -7, 3.6525120000000015, 4.989727999999999});
  EXPECT_EQ(crop("nearest", {3, 3}, roi), (Values{-7, 2, 2, -7, 3, 3, -7, 6, 6}));
  // One output row: x' = (0.25 + 0.75) / 2 * 2 = 1, the middle row exactly.
  expect_near(crop("cubic", {1, 3}, {0.25, 0, 0.75, 1}), {4, 3, 5});
  // Nearest copies any dtype, and extrapolates with the value converted to it: x' = 0.5
  // (rounding down to 0), 1, and 1.5 past the last element.
  auto bytes = make_tensor(DType::u8, {1, 1, 2}, {10, 20});
  EXPECT_EQ(values_of(*run1(
                "image.resize", {bytes},
                make_attrs({{"size", Ints{3}},
                            {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                            {"roi", Floats{0.5, 1.5}},
                            {"extrapolation_value", 3.0}}))),
            (Values{10, 20, 3}));
}

}  // namespace
}  // namespace uma
