// Unit tests of the ONNX converters of the sampling ops (src/frontend/onnx/sample.cc): what
// ONNX's node tests leave out (nearest's rounding of halves, reflection beyond one period)
// and every import error with its message.
#include <gtest/gtest.h>

#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OneNode;
using test::values_of;
using Values = std::vector<double>;

// One 2 x 3 image of 0..5: rows y, columns x.
TensorPtr image() { return f32({1, 1, 2, 3}, {0, 1, 2, 3, 4, 5}); }
// A grid of one row of points, (x, y) each.
TensorPtr points(const Values& xy) {
  return f32({1, 1, static_cast<std::int64_t>(xy.size() / 2), 2}, xy);
}

OneNode grid_sample(const TensorPtr& x, const TensorPtr& grid, const char* mode,
                    const char* padding = "zeros") {
  OneNode node("GridSample", 16);
  node.input(x)
      .input(grid)
      .attr("mode", std::string(mode))
      .attr("padding_mode", std::string(padding))
      .attr("align_corners", std::int64_t{1});
  return node;
}

TEST(OnnxGridSample, NearestRoundsHalvesToEven) {
  // With align_corners, x = g + 1 over 3 columns and y = (g + 1) / 2 over 2 rows: x 0.5
  // rounds to 0, x 1.5 to 2, y 0.5 to 0.
  EXPECT_EQ(values_of(*grid_sample(image(), points({-0.5, 0, 0.5, 1, 0, 0}), "nearest").run1()),
            (Values{0, 5, 1}));
}

TEST(OnnxGridSample, ReflectionFoldsCoordinatesBackAndForth) {
  // Row 0; columns span [0, 2]. x = 5 is 3 past the end: back to 2, then forward to 1. x =
  // -3.5 is 3.5 before the start: forward to 2, then back to 0.5. x = 3.5 comes back to 0.5.
  EXPECT_EQ(
      values_of(*grid_sample(image(), points({4, -1, -4.5, -1, 2.5, -1}), "bilinear", "reflection")
                     .run1()),
      (Values{1, 0.5, 0.5}));
  // Nearest rounds first: x = -3.5 becomes -4, which folds back to column 0.
  EXPECT_EQ(values_of(*grid_sample(image(), points({-4.5, -1}), "nearest", "reflection").run1()),
            (Values{0}));
  // One column with align_corners: every x is that column.
  EXPECT_EQ(
      values_of(
          *grid_sample(f32({1, 1, 1, 1}, {7}), points({3, -1}), "bilinear", "reflection").run1()),
      (Values{7}));
}

TEST(OnnxGridSample, Errors) {
  auto error = [](const TensorPtr& x, const TensorPtr& grid, const char* mode = "bilinear",
                  const char* padding = "zeros") {
    return grid_sample(x, grid, mode, padding).error();
  };
  const std::string at = "m.onnx: node 'n' (GridSample): ";
  EXPECT_EQ(error(f32({1, 2, 3}, Values(6)), points({0, 0})),
            at + "input 0 ('X') has shape 1x2x3, but must be 4-D (N, C, H, W)");
  EXPECT_EQ(error(image(), f32({1, 2, 2}, Values(4))),
            at + "input 1 ('grid') has shape 1x2x2, but must be 4-D (N, H_out, W_out, 2)");
  EXPECT_EQ(error(image(), f32({1, 1, 1, 3}, Values(3))),
            at + "input 1 ('grid') has shape 1x1x1x3, but its last dimension must be 2 (x, y)");
  EXPECT_EQ(error(image(), f32({2, 1, 1, 2}, Values(4))),
            at + "input 1 ('grid') has shape 2x1x1x2, but input 0 ('X') has 1x1x2x3: "
                 "the batches differ");
  EXPECT_EQ(error(image(), points({0, 0}), "linear"),
            at + "attribute 'mode' is \"linear\", but must be \"bilinear\", \"nearest\" or "
                 "\"bicubic\"");
  EXPECT_EQ(error(image(), points({0, 0}), "bilinear", "wrap"),
            at + "attribute 'padding_mode' is \"wrap\", but must be \"zeros\", \"border\" or "
                 "\"reflection\"");
  EXPECT_EQ(error(image(), make_tensor(DType::i64, {1, 1, 1, 2}, {0, 0})),
            at + "input 1 ('grid') is i64, but must be a floating-point type");
  auto integers = make_tensor(DType::i32, {1, 1, 2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(error(integers, points({0, 0}), "bicubic"),
            at + "input 0 ('X') is i32, but mode bicubic needs a floating-point type");
  // Nearest only copies pixels: any dtype.
  EXPECT_EQ(values_of(*grid_sample(integers, points({1, 1}), "nearest").run1()), (Values{5}));
  EXPECT_EQ(error(f32({1, 1, 0, 3}, {}), points({0, 0})),
            at + "input 0 ('X') has shape 1x1x0x3: its images have no pixels to sample");
}

}  // namespace
}  // namespace uma
