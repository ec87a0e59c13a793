// Unit tests of the ONNX converters of src/frontend/onnx/norm.cc: what BatchNormalization,
// InstanceNormalization, LayerNormalization, MeanVarianceNormalization, LRN, Softmax,
// LogSoftmax, Resize and Upsample become across opsets, checked on the imported graph's text and by
// running it. ONNX's node tests cover opset 13+ (and 6 for InstanceNormalization); these cover the
// older opsets, the statistics outputs, the ways sizes and scales arrive, and the errors.
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_model_builder.h"
#include "tensor_util.h"
#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"

namespace uma {
namespace {

using test::expect_near;
using test::f32;
using test::make_tensor;
using test::OnnxModel;
using test::values_of;
using Values = std::vector<double>;

class OnnxNormTest : public test::OnnxConverterTest {};

// 0, 1, ..., n-1 scaled by `step`, in `shape`.
std::shared_ptr<Tensor> ramp(Shape shape, double step = 1) {
  Values values;
  for (std::int64_t i = 0; i < TensorType{DType::f32, shape}.num_elements(); ++i)
    values.push_back(static_cast<double>(i) * step);
  return f32(std::move(shape), values);
}

std::shared_ptr<Tensor> i64s(const std::vector<std::int64_t>& values) {
  auto t =
      std::make_shared<Tensor>(TensorType{DType::i64, {static_cast<std::int64_t>(values.size())}});
  for (std::size_t i = 0; i < values.size(); ++i) t->data<std::int64_t>()[i] = values[i];
  return t;
}

// ---- BatchNormalization, InstanceNormalization ----

OnnxModel batch_norm(int opset) {
  OnnxModel model("BatchNormalization", opset);
  model.input("x", DType::f32, {1, 2, 2});
  for (const char* name : {"s", "b", "m", "v"}) model.input(name, DType::f32, {2});
  return model;
}

TEST_F(OnnxNormTest, BatchNormalization) {
  OnnxModel model = batch_norm(9);
  model.output("y").attr("epsilon", 0.25).attr("momentum", 0.5);
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<1x2x2xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: "
            "tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<1x2x2xf32>) {\n"
            "  %y = nn.batch_norm(%x, %s, %b, %m, %v) {epsilon = 0.25} : tensor<1x2x2xf32> "
            "loc(\"n\")\n"
            "  return %y\n}\n");
  // (x - m) / sqrt(v + 0.25) * s + b, with v + 0.25 = 1 and 4.
  EXPECT_EQ(run1(model, {f32({1, 2, 2}, {1, 2, 3, 4}), f32({2}, {1, 2}), f32({2}, {0, 1}),
                         f32({2}, {1, 2}), f32({2}, {0.75, 3.75})}),
            (Values{0, 1, 2, 3}));
  // Unnamed optional outputs are fine.
  OnnxModel unnamed = batch_norm(7);
  unnamed.output("y").skip_output().skip_output();
  EXPECT_EQ(import_error(unnamed), "(no error)");
}

TEST_F(OnnxNormTest, BatchNormalizationCastsMixedParameters) {
  // From opset 15 scale, B, mean and var may have another float type than X.
  OnnxModel model("BatchNormalization", 15);
  model.input("x", DType::f16, {1, 1, 2})
      .constant("s", *f32({1}, {2}))
      .constant("b", *f32({1}, {1}))
      .constant("m", *f32({1}, {1}))
      .constant("v", *f32({1}, {1}))
      .output("y")
      .attr("epsilon", 0);
  std::vector<TensorPtr> y = run(model, {make_tensor(DType::f16, {1, 1, 2}, {1, 3})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->dtype(), DType::f16);
  EXPECT_EQ(values_of(*y[0]), (Values{1, 5}));
}

// Training mode normalizes with the batch's statistics over N and the spatial dimensions:
// channel 0 holds 1, 3, 5, 7 (mean 4, variance 5), channel 1 holds 0, 0, 0, 8 (mean 2,
// variance 12); with epsilon 4 the deviations are 3 and 4.
TEST_F(OnnxNormTest, BatchNormalizationTrainingMode) {
  auto x = f32({2, 2, 2}, {1, 3, 0, 0, 5, 7, 0, 8});
  OnnxModel model("BatchNormalization", 14);
  model.input("x", DType::f32, {2, 2, 2})
      .constant("s", *f32({2}, {1, 2}))
      .constant("b", *f32({2}, {0, 1}))
      .constant("m", *f32({2}, {0, 10}))
      .constant("v", *f32({2}, {1, 1}))
      .output("y")
      .output("running_mean")
      .output("running_var")
      .attr("epsilon", 4)
      .attr("momentum", 0.5)
      .int_attr("training_mode", 1);
  std::vector<TensorPtr> outputs = run(model, {x});
  ASSERT_EQ(outputs.size(), 3u);
  // (x - 4) / 3 * 1 + 0 and (x - 2) / 4 * 2 + 1.
  expect_near(values_of(*outputs[0]), {-1, -1.0 / 3, 0, 0, 1.0 / 3, 1, 0, 4});
  // input * 0.5 + batch * 0.5, with the population variance.
  EXPECT_EQ(values_of(*outputs[1]), (Values{2, 6}));
  EXPECT_EQ(values_of(*outputs[2]), (Values{3, 6.5}));

  // Y alone still uses the batch's statistics; from 15 the statistics may be f32 beside an
  // f16 X, and the running ones keep their dtype. Momentum defaults to 0.9.
  OnnxModel mixed("BatchNormalization", 15);
  mixed.input("x", DType::f16, {2, 2, 2})
      .constant("s", *f32({2}, {1, 2}))
      .constant("b", *f32({2}, {0, 1}))
      .constant("m", *f32({2}, {0, 10}))
      .constant("v", *f32({2}, {1, 1}))
      .output("y")
      .output("running_mean")
      .attr("epsilon", 4)
      .int_attr("training_mode", 1);
  outputs = run(mixed, {make_tensor(DType::f16, {2, 2, 2}, {1, 3, 0, 0, 5, 7, 0, 8})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0]->dtype(), DType::f16);
  expect_near(values_of(*outputs[0]), {-1, -1.0 / 3, 0, 0, 1.0 / 3, 1, 0, 4}, 1e-3);
  EXPECT_EQ(outputs[1]->dtype(), DType::f32);
  expect_near(values_of(*outputs[1]), {0.4, 9.2});
  OnnxModel y_only("BatchNormalization", 14);
  y_only.input("x", DType::f32, {2, 2, 2})
      .constant("s", *f32({2}, {1, 2}))
      .constant("b", *f32({2}, {0, 1}))
      .constant("m", *f32({2}, {0, 10}))
      .constant("v", *f32({2}, {1, 1}))
      .output("y")
      .attr("epsilon", 4)
      .int_attr("training_mode", 1);
  expect_near(run1(y_only, {x}), {-1, -1.0 / 3, 0, 0, 1.0 / 3, 1, 0, 4});
}

TEST_F(OnnxNormTest, BatchNormalizationErrors) {
  OnnxModel spatial = batch_norm(7);
  spatial.output("y").int_attr("spatial", 0);
  EXPECT_EQ(import_error(spatial),
            "m.onnx: node 'n' (BatchNormalization): attribute 'spatial' is 0; only 1 (statistics "
            "per channel) is supported");
  OnnxModel training = batch_norm(14);
  training.output("y").int_attr("training_mode", 2);
  EXPECT_EQ(import_error(training),
            "m.onnx: node 'n' (BatchNormalization): attribute 'training_mode' must be 0 or 1, got "
            "2");
  OnnxModel inference = batch_norm(15);
  inference.output("y").output("mean");
  EXPECT_EQ(import_error(inference),
            "m.onnx: node 'n' (BatchNormalization): output 1 ('mean') is not supported: the "
            "running statistics exist only in training mode (training_mode = 1)");
  OnnxModel statistics = batch_norm(9);
  statistics.output("y").skip_output().output("var");
  EXPECT_EQ(import_error(statistics),
            "m.onnx: node 'n' (BatchNormalization): output 2 ('var') is not supported: before "
            "opset 14 they mean training, which uma supports from opset 14 on (attribute "
            "training_mode)");
  OnnxModel no_channels("BatchNormalization", 14);
  no_channels.input("x", DType::f32, {2});
  for (const char* name : {"s", "b", "m", "v"}) no_channels.input(name, DType::f32, {2});
  no_channels.output("y").int_attr("training_mode", 1);
  EXPECT_EQ(import_error(no_channels),
            "m.onnx: node 'n' (BatchNormalization): input 0 ('X') is tensor<2xf32>, but must have "
            "a channel dimension (rank 2 or more)");
  OnnxModel missing("BatchNormalization", 9);
  missing.input("x", DType::f32, {1, 2, 2}).input("s", DType::f32, {2}).output("y");
  EXPECT_EQ(import_error(missing),
            "m.onnx: node 'n' (BatchNormalization): input 2 ('B') is missing");
}

TEST_F(OnnxNormTest, InstanceNormalization) {
  OnnxModel model("InstanceNormalization", 7);
  model.input("x", DType::f32, {1, 2, 2})
      .constant("s", *f32({2}, {1, 2}))
      .constant("b", *f32({2}, {0, 1}))
      .output("y")
      .attr("epsilon", 0);
  // Planes [0, 2] and [4, 6], both of variance 1: normalized to [-1, 1], then * s + b.
  std::vector<TensorPtr> y = run(model, {f32({1, 2, 2}, {0, 2, 4, 6})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(values_of(*y[0]), (Values{-1, 1, -1, 3}));
}

// ---- MeanVarianceNormalization, LRN ----

TEST_F(OnnxNormTest, MeanVarianceNormalization) {
  OnnxModel model("MeanVarianceNormalization", 13);
  model.input("x", DType::f32, {1, 2, 1, 2}).output("y");
  // Channels [0, 2] and [4, 8], of deviations 1 and 2 over the default axes (0, 2, 3).
  std::vector<TensorPtr> y = run(model, {f32({1, 2, 1, 2}, {0, 2, 4, 8})});
  ASSERT_EQ(y.size(), 1u);
  expect_near(values_of(*y[0]), {-1, 1, -1, 1}, 1e-6);
}

TEST_F(OnnxNormTest, Lrn) {
  OnnxModel model("LRN", 13);
  model.input("x", DType::f32, {1, 4, 1, 1})
      .output("y")
      .int_attr("size", 2)
      .attr("alpha", 2.0)
      .attr("beta", 1.0)
      .attr("bias", 1.0);
  // Size 2 sums each channel's square with the next one's: 1 + 1 * (x[c]^2 + x[c+1]^2).
  std::vector<TensorPtr> y = run(model, {f32({1, 4, 1, 1}, {1, 2, 3, 4})});
  ASSERT_EQ(y.size(), 1u);
  expect_near(values_of(*y[0]), {1.0 / 6, 2.0 / 14, 3.0 / 26, 4.0 / 17}, 1e-6);
  OnnxModel flat("LRN", 13);
  flat.input("x", DType::f32, {4, 4}).output("y").int_attr("size", 3);
  EXPECT_EQ(import_error(flat),
            "m.onnx: node 'n' (LRN): input 0 has shape 4x4, but must have at least 3 dimensions "
            "(N, C, ...)");
}

// ---- LayerNormalization ----

TEST_F(OnnxNormTest, LayerNormalizationStatistics) {
  OnnxModel model("LayerNormalization", 17);
  model.input("x", DType::f32, {2, 2})
      .constant("w", *f32({2}, {1, 2}))
      .output("y")
      .output("mean")
      .output("inv")
      .attr("epsilon", 0.75);
  // Rows [1, 3] and [0, 4]: means 2 and 2, variances 1 and 4; 1/sqrt(1.75) and 1/sqrt(4.75).
  std::vector<TensorPtr> y = run(model, {f32({2, 2}, {1, 3, 0, 4})});
  ASSERT_EQ(y.size(), 3u);
  const double a = 1 / std::sqrt(1.75), b = 1 / std::sqrt(4.75);
  expect_near(values_of(*y[0]), {-a, 2 * a, -2 * b, 4 * b});
  EXPECT_EQ(y[1]->shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(*y[1]), (Values{2, 2}));
  EXPECT_EQ(y[2]->shape(), (Shape{2, 1}));
  expect_near(values_of(*y[2]), {a, b});
  // Only Y: no statistics computed.
  OnnxModel plain("LayerNormalization", 17);
  plain.input("x", DType::f32, {2, 3})
      .input("w", DType::f32, {3})
      .input("b", DType::f32, {3})
      .output("y")
      .skip_output()
      .skip_output()
      .int_attr("axis", 1);
  EXPECT_EQ(text(plain),
            "func @main(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> "
            "(tensor<2x3xf32>) {\n"
            "  %y = nn.layer_norm(%x, %w, %b) {axis = 1} : tensor<2x3xf32> loc(\"n\")\n"
            "  return %y\n}\n");
}

// ---- Softmax, LogSoftmax ----

// softmax of each row of the [rows, n] matrix `x`.
Values row_softmax(const Values& x, std::size_t n, bool log) {
  Values y;
  for (std::size_t r = 0; r < x.size() / n; ++r) {
    double sum = 0;
    for (std::size_t k = 0; k < n; ++k) sum += std::exp(x[r * n + k]);
    for (std::size_t k = 0; k < n; ++k)
      y.push_back(log ? x[r * n + k] - std::log(sum) : std::exp(x[r * n + k]) / sum);
  }
  return y;
}

TEST_F(OnnxNormTest, SoftmaxBeforeOpset13CoercesToRows) {
  OnnxModel model("Softmax", 11);
  model.input("x", DType::f32, {2, 3, 2}).output("y");
  // The default axis 1 makes rows of 3 * 2 elements.
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>) {\n"
            "  %0 = reshape(%x) {newshape = [2, 6]} : tensor<2x6xf32> loc(\"n\")\n"
            "  %1 = nn.softmax(%0) {axis = 1} : tensor<2x6xf32> loc(\"n\")\n"
            "  %y = reshape(%1) {newshape = [2, 3, 2]} : tensor<2x3x2xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  auto x = ramp({2, 3, 2}, 0.25);
  expect_near(run1(model, {x}), row_softmax(values_of(*x), 6, false));
  OnnxModel log("LogSoftmax", 7);
  log.input("x", DType::f32, {2, 3, 2}).output("y").int_attr("axis", 0);
  expect_near(run1(log, {x}), row_softmax(values_of(*x), 12, true));
}

TEST_F(OnnxNormTest, SoftmaxOverOneAxisNeedsNoReshape) {
  // Before 13, when the dimensions after the axis hold one element; from 13 always.
  OnnxModel last("Softmax", 11);
  last.input("x", DType::f32, {2, 3, 1}).output("y").int_attr("axis", -2);
  EXPECT_EQ(text(last),
            "func @main(%x: tensor<2x3x1xf32>) -> (tensor<2x3x1xf32>) {\n"
            "  %y = nn.softmax(%x) {axis = -2} : tensor<2x3x1xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  OnnxModel per_axis("LogSoftmax", 13);
  per_axis.input("x", DType::f32, {2, 3}).output("y");
  EXPECT_EQ(text(per_axis),
            "func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>) {\n"
            "  %y = nn.log_softmax(%x) : tensor<2x3xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  OnnxModel bad_axis("Softmax", 11);
  bad_axis.input("x", DType::f32, {2, 3}).output("y").int_attr("axis", 2);
  EXPECT_EQ(import_error(bad_axis),
            "m.onnx: node 'n' (Softmax): nn.softmax: attribute 'axis' is 2, but the valid range "
            "for rank 2 is [-2, 1]");
}

// ---- Resize, Upsample ----

TEST_F(OnnxNormTest, ResizeWithScales) {
  // Scale 0.6 on 4 gives floor(2.4) = 2 and stays an attribute, since coordinates divide by
  // 0.6, not by 2/4; scale 1 on height is exact and is left out.
  OnnxModel model("Resize", 13);
  model.input("x", DType::f32, {1, 1, 2, 4})
      .skip()
      .constant("scales", *f32({4}, {1, 1, 1, 0.6}))
      .output("y")
      .string_attr("mode", "linear");
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<1x1x2x4xf32>) -> (tensor<1x1x2x2xf32>) {\n"
            "  %y = image.resize(%x) {method = \"linear\", scales = [1.0, 0.6000000238418579], "
            "size = [2, 2]} : tensor<1x1x2x2xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  // half_pixel: x' = 0.5 / 0.6 - 0.5 = 1/3 and 1.5 / 0.6 - 0.5 = 2.
  expect_near(run1(model, {ramp({1, 1, 2, 4})}), {1.0 / 3, 2, 4 + 1.0 / 3, 6}, 1e-6);
  OnnxModel exact("Resize", 11);
  exact.input("x", DType::f32, {1, 1, 2, 2})
      .constant("roi", *f32({0}, {}))
      .constant("scales", *f32({4}, {1, 1, 2, 1.5}))
      .output("y")
      .string_attr("coordinate_transformation_mode", "align_corners")
      .string_attr("nearest_mode", "ceil");
  EXPECT_EQ(text(exact),
            "func @main(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x4x3xf32>) {\n"
            "  %y = image.resize(%x) {coordinate_transformation_mode = \"align_corners\", "
            "nearest_mode = \"ceil\", size = [4, 3]} : tensor<1x1x4x3xf32> loc(\"n\")\n"
            "  return %y\n}\n");
}

TEST_F(OnnxNormTest, ResizeWithSizesOfALowRankTensor) {
  // Rank 2 gets two leading 1s for image.resize, which resizes dimensions 2 and up.
  OnnxModel model("Resize", 11);
  model.input("x", DType::f32, {2, 2})
      .constant("roi", *f32({0}, {}))
      .constant("scales", *f32({0}, {}))
      .constant("sizes", *i64s({3, 4}))
      .output("y")
      .string_attr("coordinate_transformation_mode", "asymmetric")
      .string_attr("nearest_mode", "floor");
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<2x2xf32>) -> (tensor<3x4xf32>) {\n"
            "  %0 = reshape(%x) {newshape = [1, 1, 2, 2]} : tensor<1x1x2x2xf32> loc(\"n\")\n"
            "  %1 = image.resize(%0) {coordinate_transformation_mode = \"asymmetric\", "
            "nearest_mode = \"floor\", size = [3, 4]} : tensor<1x1x3x4xf32> loc(\"n\")\n"
            "  %y = reshape(%1) {newshape = [3, 4]} : tensor<3x4xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  // Rows x' = 0, 2/3, 4/3 -> 0, 0, 1; columns x' = 0, 0.5, 1, 1.5 -> 0, 0, 1, 1.
  EXPECT_EQ(run1(model, {f32({2, 2}, {1, 2, 3, 4})}), (Values{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4}));
}

// Cubic and tf_crop_and_resize; the numbers are ONNX's reference's, as in resize_ops_test.cc
// (interpolate_nd of onnx 1.12's onnx/backend/test/case/node/resize.py).
TEST_F(OnnxNormTest, ResizeCubicAndCropAndResize) {
  OnnxModel cubic("Resize", 11);
  cubic.input("x", DType::f32, {1, 1, 1, 4})
      .constant("roi", *f32({0}, {}))
      .constant("scales", *f32({0}, {}))
      .constant("sizes", *i64s({1, 1, 1, 6}))
      .output("y")
      .string_attr("mode", "cubic")
      .attr("cubic_coeff_a", -0.5)
      .int_attr("exclude_outside", 1);
  EXPECT_EQ(text(cubic),
            "func @main(%x: tensor<1x1x1x4xf32>) -> (tensor<1x1x1x6xf32>) {\n"
            "  %y = image.resize(%x) {cubic_coeff_a = -0.5, exclude_outside = 1, method = "
            "\"cubic\", size = [1, 6]} : tensor<1x1x1x6xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  expect_near(run1(cubic, {f32({1, 1, 1, 4}, {0, 1, 4, 9})}),
              {-0.06578947368421037, 0.29411764705882354, 1.3611111111111156, 3.3611111111111116,
               6.8235294117647065, 9.328947368421053});

  // A rank-2 X: the region of interest covers both of its dimensions.
  OnnxModel crop("Resize", 13);
  crop.input("x", DType::f32, {3, 3})
      .constant("roi", *f32({4}, {0.2, -0.1, 0.9, 0.7}))
      .skip()
      .constant("sizes", *i64s({3, 3}))
      .output("y")
      .string_attr("mode", "linear")
      .string_attr("coordinate_transformation_mode", "tf_crop_and_resize")
      .attr("extrapolation_value", -7);
  EXPECT_EQ(text(crop),
            "func @main(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>) {\n"
            "  %0 = reshape(%x) {newshape = [1, 1, 3, 3]} : tensor<1x1x3x3xf32> loc(\"n\")\n"
            "  %1 = image.resize(%0) {coordinate_transformation_mode = \"tf_crop_and_resize\", "
            "extrapolation_value = -7.0, method = \"linear\", roi = [0.20000000298023224, "
            "-0.10000000149011612, 0.8999999761581421, 0.699999988079071], size = [3, 3]} : "
            "tensor<1x1x3x3xf32> loc(\"n\")\n"
            "  %y = reshape(%1) {newshape = [3, 3]} : tensor<3x3xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  expect_near(run1(crop, {f32({3, 3}, {1, 2, 0, 4, 3, 5, -1, 6, 2})}),
              {-7, 2.32, 2.24, -7, 3.38, 3.86, -7, 3.24, 4.28}, 1e-5);
}

TEST_F(OnnxNormTest, ResizeBeforeOpset11IsAsymmetric) {
  // Growing dimensions round down, shrinking ones up (ONNX Runtime's rule for opset 10).
  OnnxModel grow("Resize", 10);
  grow.input("x", DType::f32, {1, 1, 1, 3}).constant("scales", *f32({4}, {1, 1, 1, 2})).output("y");
  EXPECT_EQ(text(grow),
            "func @main(%x: tensor<1x1x1x3xf32>) -> (tensor<1x1x1x6xf32>) {\n"
            "  %y = image.resize(%x) {coordinate_transformation_mode = \"asymmetric\", "
            "nearest_mode = \"floor\", size = [1, 6]} : tensor<1x1x1x6xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  EXPECT_EQ(run1(grow, {f32({1, 1, 1, 3}, {1, 2, 3})}), (Values{1, 1, 2, 2, 3, 3}));
  OnnxModel shrink("Resize", 10);
  shrink.input("x", DType::f32, {1, 1, 1, 4})
      .constant("scales", *f32({4}, {1, 1, 1, 0.6}))
      .output("y");
  // x' = 0, 1/0.6 = 1.67 -> 0, 2.
  EXPECT_EQ(run1(shrink, {f32({1, 1, 1, 4}, {1, 2, 3, 4})}), (Values{1, 3}));
  OnnxModel linear("Resize", 10);
  linear.input("x", DType::f32, {1, 1, 1, 2})
      .constant("scales", *f32({4}, {1, 1, 1, 2}))
      .output("y")
      .string_attr("mode", "linear");
  // x' = 0, 0.5, 1, 1.5 (clamped to 1).
  EXPECT_EQ(run1(linear, {f32({1, 1, 1, 2}, {2, 4})}), (Values{2, 3, 4, 4}));
  // Linear does not round, so it may grow some dimensions and shrink others.
  OnnxModel linear_mixed("Resize", 10);
  linear_mixed.input("x", DType::f32, {1, 1, 1, 2})
      .constant("scales", *f32({4}, {1, 1, 2, 0.5}))
      .output("y")
      .string_attr("mode", "linear");
  EXPECT_EQ(run1(linear_mixed, {f32({1, 1, 1, 2}, {2, 4})}), (Values{2, 2}));
  OnnxModel mixed("Resize", 10);
  mixed.input("x", DType::f32, {1, 1, 4, 4})
      .constant("scales", *f32({4}, {1, 1, 2, 0.5}))
      .output("y");
  EXPECT_EQ(import_error(mixed),
            "m.onnx: node 'n' (Resize): nearest resizing that grows some dimensions and shrinks "
            "others is not supported before opset 11 (scales [1, 1, 2, 0.5])");
}

TEST_F(OnnxNormTest, Upsample) {
  OnnxModel attribute("Upsample", 7);
  attribute.input("x", DType::f32, {1, 1, 2, 2}).output("y").floats_attr("scales", {1, 1, 2, 3});
  OnnxModel input("Upsample", 9);
  input.input("x", DType::f32, {1, 1, 2, 2})
      .constant("scales", *f32({4}, {1, 1, 2, 3}))
      .output("y");
  const Values expected = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
  EXPECT_EQ(run1(attribute, {f32({1, 1, 2, 2}, {1, 2, 3, 4})}), expected);
  EXPECT_EQ(run1(input, {f32({1, 1, 2, 2}, {1, 2, 3, 4})}), expected);
  OnnxModel wrong("Upsample", 8);
  wrong.input("x", DType::f32, {1, 1, 2, 2}).output("y").floats_attr("scales", {2, 3});
  EXPECT_EQ(import_error(wrong),
            "m.onnx: node 'n' (Upsample): attribute 'scales' has 2 value(s), but X has rank 4");
}

TEST_F(OnnxNormTest, ResizeErrors) {
  auto resize = [](const char* attr, const char* value) {
    OnnxModel model("Resize", 13);
    model.input("x", DType::f32, {1, 2, 2, 2})
        .skip()
        .constant("scales", *f32({4}, {1, 1, 2, 2}))
        .output("y")
        .string_attr(attr, value);
    return model;
  };
  EXPECT_EQ(import_error(resize("mode", "area")),
            "m.onnx: node 'n' (Resize): mode 'area' is not supported (only nearest, linear and "
            "cubic are)");
  OnnxModel cubic_10("Resize", 10);
  cubic_10.input("x", DType::f32, {1, 1, 2, 2})
      .constant("scales", *f32({4}, {1, 1, 2, 2}))
      .output("y")
      .string_attr("mode", "cubic");
  EXPECT_EQ(import_error(cubic_10),
            "m.onnx: node 'n' (Resize): mode 'cubic' is not supported (only nearest and linear "
            "are)");
  EXPECT_EQ(import_error(resize("coordinate_transformation_mode", "tf_crop_and_resize")),
            "m.onnx: node 'n' (Resize): input 1 ('roi') is missing");
  auto crop = [](const Tensor& roi) {
    OnnxModel model("Resize", 13);
    model.input("x", DType::f32, {1, 2, 2, 2})
        .constant("roi", roi)
        .constant("scales", *f32({4}, {1, 1, 2, 2}))
        .output("y")
        .string_attr("coordinate_transformation_mode", "tf_crop_and_resize");
    return model;
  };
  EXPECT_EQ(import_error(crop(*f32({4}, {0, 0, 1, 1}))),
            "m.onnx: node 'n' (Resize): input 1 ('roi') has shape 4, but tf_crop_and_resize needs "
            "a start and an end for each dimension of X (rank 4)");
  EXPECT_EQ(import_error(crop(*i64s({0, 0, 0, 0, 1, 1, 1, 1}))),
            "m.onnx: node 'n' (Resize): input 1 ('roi') is i64, but must be floating-point");
  // The region of interest of C (2 elements) must be all of it; N has one element, which any
  // region maps to itself.
  EXPECT_EQ(import_error(crop(*f32({8}, {0, 0, 0, 0, 1, 0.5, 1, 1}))),
            "m.onnx: node 'n' (Resize): resizing dimension 1 (N or C) is not supported, only "
            "dimensions 2 and up");
  EXPECT_EQ(import_error(crop(*f32({8}, {0.3, 0, 0, 0, 0.6, 1, 1, 1}))), "(no error)");
  EXPECT_EQ(import_error(resize("nearest_mode", "nearest")),
            "m.onnx: node 'n' (Resize): image.resize: attribute 'nearest_mode' is \"nearest\", "
            "but must be one of round_prefer_floor, round_prefer_ceil, floor, ceil");

  auto with = [](const Tensor* scales, const Tensor* sizes) {
    OnnxModel model("Resize", 13);
    model.input("x", DType::f32, {1, 2, 2, 2}).skip();
    if (scales)
      model.constant("scales", *scales);
    else
      model.skip();
    if (sizes) model.constant("sizes", *sizes);
    model.output("y");
    return model;
  };
  auto sizes = i64s({1, 2, 4, 4});
  auto scales = f32({4}, {1, 1, 2, 2});
  EXPECT_EQ(import_error(with(scales.get(), sizes.get())),
            "m.onnx: node 'n' (Resize): inputs 'scales' and 'sizes' exclude each other; give one");
  EXPECT_EQ(import_error(with(nullptr, nullptr)),
            "m.onnx: node 'n' (Resize): give input 'scales' or 'sizes'");
  EXPECT_EQ(import_error(with(f32({3}, {1, 2, 2}).get(), nullptr)),
            "m.onnx: node 'n' (Resize): input 2 ('scales') has shape 3, but must hold one value "
            "per dimension of X (rank 4)");
  EXPECT_EQ(import_error(with(f32({4}, {1, 1, -2, 2}).get(), nullptr)),
            "m.onnx: node 'n' (Resize): input 2 ('scales') must be positive and finite, got [1, "
            "1, -2, 2]");
  EXPECT_EQ(import_error(with(f32({4}, {1, 1, 1e30, 1e30}).get(), nullptr)),
            "m.onnx: node 'n' (Resize): scale 1.0000000150474662e+30 makes dimension 2 (size 2) "
            "too large");
  EXPECT_EQ(import_error(with(nullptr, i64s({1, 2, -1, 4}).get())),
            "m.onnx: node 'n' (Resize): input 3 ('sizes') must not be negative, got [1, 2, -1, 4]");
  EXPECT_EQ(import_error(with(nullptr, f32({4}, {1, 2, 4, 4}).get())),
            "m.onnx: node 'n' (Resize): input 3 ('sizes') is f32, but must be i64 or i32");
  EXPECT_EQ(import_error(with(nullptr, i64s({2, 4, 4}).get())),
            "m.onnx: node 'n' (Resize): input 3 ('sizes') has 3 value(s), but must hold one per "
            "dimension of X (rank 4)");
  EXPECT_EQ(import_error(with(nullptr, make_tensor(DType::i32, {4}, {1, 2, 4, 4}).get())),
            "(no error)");
  EXPECT_EQ(import_error(with(nullptr, i64s({1, 4, 4, 4}).get())),
            "m.onnx: node 'n' (Resize): resizing dimension 1 (N or C) is not supported, only "
            "dimensions 2 and up");
  EXPECT_EQ(import_error(with(f32({4}, {1, 1.2f, 2, 2}).get(), nullptr)),
            "m.onnx: node 'n' (Resize): resizing dimension 1 (N or C) is not supported, only "
            "dimensions 2 and up");
  // tf_half_pixel_for_nn moves unresized channels by half an element; rounding up sees it.
  OnnxModel shifted = resize("coordinate_transformation_mode", "tf_half_pixel_for_nn");
  shifted.string_attr("nearest_mode", "round_prefer_ceil");
  EXPECT_EQ(import_error(shifted),
            "m.onnx: node 'n' (Resize): resizing dimension 1 (N or C) is not supported, only "
            "dimensions 2 and up");
  EXPECT_EQ(import_error(resize("coordinate_transformation_mode", "tf_half_pixel_for_nn")),
            "(no error)");

  OnnxModel computed("Resize", 13);
  computed.input("x", DType::f32, {1, 1, 2, 2}).skip().input("s", DType::f32, {4}).output("y");
  EXPECT_EQ(import_error(computed),
            "m.onnx: node 'n' (Resize): input 2 ('scales') must be a constant: uma needs its "
            "value at build time; it is the model's input 's', so give its value with --bind "
            "s=FILE");
  OnnxModel scalar("Upsample", 7);
  scalar.input("x", DType::f32, {}).output("y").floats_attr("scales", {});
  EXPECT_EQ(import_error(scalar),
            "m.onnx: node 'n' (Upsample): X is a scalar, which has no dimensions to resize");
}

}  // namespace
}  // namespace uma
