// Unit tests of the ONNX converters of the sampling ops (src/frontend/onnx/sample.cc): what
// ONNX's node tests leave out (nearest's rounding of halves, reflection beyond one period,
// RoiAlign's opset 10 coordinates, adaptive grids that differ per region) and every import
// error with its message.
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

TEST(OnnxGridSample, HalfFloatsComputeInF32) {
  // f16 operands give the f32 result rounded once to f16, not an f16 rounding per op.
  auto grid = make_tensor(DType::f16, {1, 1, 2, 2}, {0.3, -0.7, 0.55, 0.1});
  auto half = make_tensor(DType::f16, {1, 1, 2, 3}, {0, 1, 2, 3, 4, 5});
  TensorPtr wide = grid_sample(image(), f32({1, 1, 2, 2}, values_of(*grid)), "bicubic").run1();
  TensorPtr narrow = grid_sample(half, grid, "bicubic").run1();
  EXPECT_EQ(narrow->dtype(), DType::f16);
  EXPECT_EQ(values_of(*narrow),
            values_of(*make_tensor(DType::f16, {1, 1, 1, 2}, values_of(*wide))));
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

// ---- RoiAlign ----

// 0, 1, ..., 15 in one 4 x 4 image.
TensorPtr iota4() {
  Values values;
  for (int i = 0; i < 16; ++i) values.push_back(i);
  return f32({1, 1, 4, 4}, values);
}
TensorPtr regions(const Values& boxes) {
  return f32({static_cast<std::int64_t>(boxes.size() / 4), 4}, boxes);
}
TensorPtr first_images(std::int64_t n) {
  return make_tensor(DType::i64, {n}, Values(static_cast<std::size_t>(n), 0));
}

TEST(OnnxRoiAlign, OpsetTenShiftsNoHalfPixel) {
  // One sample per bin. Opset 10 (output_half_pixel) samples (0, 0)-(1, 1) at its centre
  // (0.5, 0.5), between 0, 1, 4 and 5; opset 16's half_pixel shifts it to pixel (0, 0).
  auto run = [](int opset) {
    return values_of(*OneNode("RoiAlign", opset)
                          .input(iota4())
                          .input(regions({0, 0, 1, 1}))
                          .input(first_images(1))
                          .attr("sampling_ratio", std::int64_t{1})
                          .run1());
  };
  EXPECT_EQ(run(10), (Values{2.5}));
  EXPECT_EQ(run(16), (Values{0}));
}

TEST(OnnxRoiAlign, AdaptiveGridsDifferPerRegion) {
  // sampling_ratio 0: region (0, 0)-(1, 1) takes 1 sample, (0, 0)-(2, 2) a 2 x 2 grid at
  // 0.5 and 1.5 (2.5, 3.5, 6.5 and 7.5).
  auto run = [](int opset, const Values& boxes, const char* mode) {
    return values_of(*OneNode("RoiAlign", opset)
                          .input(iota4())
                          .constant(regions(boxes))
                          .input(first_images(2))
                          .attr("mode", std::string(mode))
                          .run1());
  };
  EXPECT_EQ(run(10, {0, 0, 1, 1, 0, 0, 2, 2}, "avg"), (Values{2.5, 5}));
  // max takes the largest weighted pixel: a quarter of 5, then of 10.
  EXPECT_EQ(run(10, {0, 0, 1, 1, 0, 0, 2, 2}, "max"), (Values{1.25, 2.5}));
  // Under half_pixel an empty region samples nothing and gives 0; (1, 1)-(2, 2) samples
  // pixel (1, 1) alone.
  EXPECT_EQ(run(16, {1, 1, 2, 2, 2, 2, 2, 2}, "avg"), (Values{5, 0}));
  EXPECT_EQ(run(16, {1, 1, 2, 2, 2, 2, 2, 2}, "max"), (Values{5, 0}));
  EXPECT_EQ(OneNode("RoiAlign", 16)
                .input(iota4())
                .input(regions({0, 0, 1, 1}))
                .input(first_images(1))
                .error(),
            "m.onnx: node 'n' (RoiAlign): input 1 ('rois') must be a constant: attribute "
            "'sampling_ratio' is 0, so the number of samples per bin depends on each region's "
            "size; it is the model's input 'in1', so give its value with --bind in1=FILE");
}

TEST(OnnxRoiAlign, BatchIndicesOutOfRangeFailTheRun) {
  EXPECT_EQ(OneNode("RoiAlign", 16)
                .input(iota4())
                .input(regions({0, 0, 1, 1}))
                .input(make_tensor(DType::i64, {1}, {1}))
                .attr("sampling_ratio", std::int64_t{2})
                .error(),
            "node 'n' (take): index 1 (element 0 of indices) is out of range for axis 0 of size "
            "1");
}

TEST(OnnxRoiAlign, Errors) {
  auto error = [](const TensorPtr& x, const TensorPtr& rois, const TensorPtr& indices,
                  const std::string& attr = "", std::int64_t value = 0) {
    OneNode node("RoiAlign", 16);
    node.input(x).input(rois).input(indices);
    // Fixed grids, so that the rois may be inputs.
    if (attr != "sampling_ratio") node.attr("sampling_ratio", std::int64_t{2});
    if (!attr.empty()) node.attr(attr, value);
    return node.error();
  };
  const std::string at = "m.onnx: node 'n' (RoiAlign): ";
  auto box = regions({0, 0, 1, 1});
  EXPECT_EQ(error(f32({1, 4, 4}, Values(16)), box, first_images(1)),
            at + "input 0 ('X') has shape 1x4x4, but must be 4-D (N, C, H, W)");
  EXPECT_EQ(error(iota4(), f32({1, 3}, {0, 0, 1}), first_images(1)),
            at + "input 1 ('rois') has shape 1x3, but must be (num_rois, 4)");
  EXPECT_EQ(error(iota4(), make_tensor(DType::f64, {1, 4}, {0, 0, 1, 1}), first_images(1)),
            at + "input 1 ('rois') is f64, but input 0 ('X') is f32");
  EXPECT_EQ(error(iota4(), box, first_images(2)),
            at + "input 2 ('batch_indices') has shape 2, but must be [1] (one per roi)");
  EXPECT_EQ(error(iota4(), box, f32({1}, {0})),
            at + "input 2 ('batch_indices') is f32, but must be i64 or i32");
  EXPECT_EQ(error(make_tensor(DType::i32, {1, 1, 4, 4}, Values(16)), box, first_images(1)),
            at + "input 0 ('X') is i32, but must be a floating-point type");
  EXPECT_EQ(error(iota4(), box, first_images(1), "output_height", 0),
            at + "attributes 'output_height' and 'output_width' are 0 and 1, but must be "
                 "positive");
  EXPECT_EQ(error(iota4(), box, first_images(1), "sampling_ratio", -1),
            at + "attribute 'sampling_ratio' is -1, but must not be negative");
  auto mode = [&](const char* name, const char* value) {
    return OneNode("RoiAlign", 16)
        .input(iota4())
        .input(box)
        .input(first_images(1))
        .attr(name, std::string(value))
        .error();
  };
  EXPECT_EQ(mode("mode", "min"),
            at + "attribute 'mode' is \"min\", but must be \"avg\" or \"max\"");
  EXPECT_EQ(mode("coordinate_transformation_mode", "align_corners"),
            at + "attribute 'coordinate_transformation_mode' is \"align_corners\", but must be "
                 "\"half_pixel\" or \"output_half_pixel\"");
  EXPECT_EQ(OneNode("RoiAlign", 16)
                .input(iota4())
                .constant(regions({0, 0, 1e6, 1}))
                .input(first_images(1))
                .error(),
            at + "input 1 ('rois') holds region 0 of size 1000000, which would take 1000000 "
                 "samples along an axis of each bin (sampling_ratio 0), more than the 256 "
                 "supported");
}

// What the fuzzer found (an allocation of 16 GiB): a model may declare 2^31 images, or as many
// regions, and the constants indexed by them must be refused rather than made.
TEST(OnnxRoiAlign, HostileCountsAreErrors) {
  auto error = [](const Shape& x, const Shape& rois, const Shape& indices) {
    test::OnnxModel model("RoiAlign", 16);
    model.input("x", DType::f32, x).input("rois", DType::f32, rois);
    model.input("i", DType::i64, indices).int_attr("sampling_ratio", 2).output("y");
    Context ctx;
    auto module = model.import(ctx);
    return module ? std::string("(no error)") : module.error().message();
  };
  const std::int64_t huge = std::int64_t{1} << 31;
  EXPECT_EQ(error({huge, 1, 2, 2}, {1, 4}, {1}),
            "m.onnx: node 'n' (RoiAlign): the first row of each image of input 0 ('X') would be "
            "a constant of 2147483648 elements here, more than the 16777216 uma builds");
  EXPECT_EQ(error({1, 1, 2, 2}, {huge, 4}, {huge}),
            "m.onnx: node 'n' (RoiAlign): the sample counts of the regions of input 1 ('rois') "
            "would be a constant of 2147483648 elements here, more than the 16777216 uma builds");
}

}  // namespace
}  // namespace uma
