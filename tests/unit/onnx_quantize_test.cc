// Unit tests of the ONNX converters of src/frontend/onnx/quantize.cc: the spec's rounding
// (half to even) and saturation, per-tensor and per-axis scales, the integer matmuls and
// convolutions, and the errors, by importing one-node models and running them with the reference
// interpreter.
#include <gtest/gtest.h>

#include "onnx_model_builder.h"
#include "tensor_util.h"
#include "uma/runtime/interpreter.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OnnxModel;
using test::values_of;
using Values = std::vector<double>;

class OnnxQuantizeTest : public test::OnnxConverterTest {};

TEST_F(OnnxQuantizeTest, QuantizeRoundsHalfToEvenAndSaturates) {
  OnnxModel model("QuantizeLinear", 13);
  model.input("x", DType::f32, {6})
      .constant("s", *f32({}, {2}))
      .constant("z", *make_tensor(DType::i8, {}, {1}))
      .output("y");
  // x / 2 = 0.5, 1.5, -0.5, 2.5 round to 0, 2, -0, 2; then + 1; 300 and -300 saturate.
  std::vector<TensorPtr> y = run(model, {f32({6}, {1, 3, -1, 5, 300, -300})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->dtype(), DType::i8);
  EXPECT_EQ(values_of(*y[0]), (Values{1, 3, 1, 3, 127, -128}));
}

TEST_F(OnnxQuantizeTest, PerAxisScalesAndDequantize) {
  OnnxModel quantize("QuantizeLinear", 13);
  quantize.input("x", DType::f32, {2, 2})
      .constant("s", *f32({2}, {1, 10}))
      .constant("z", *make_tensor(DType::u8, {2}, {0, 100}))
      .output("y")
      .int_attr("axis", 0);
  std::vector<TensorPtr> q = run(quantize, {f32({2, 2}, {3, 4, 30, -40})});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(values_of(*q[0]), (Values{3, 4, 103, 96}));
  OnnxModel dequantize("DequantizeLinear", 13);
  dequantize.input("x", DType::u8, {2, 2})
      .constant("s", *f32({2}, {1, 10}))
      .constant("z", *make_tensor(DType::u8, {2}, {0, 100}))
      .output("y")
      .int_attr("axis", 0);
  std::vector<TensorPtr> d = run(dequantize, {q[0]});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(values_of(*d[0]), (Values{3, 4, 30, -40}));
  // Before opset 13 the scale is one scalar.
  OnnxModel old("DequantizeLinear", 10);
  old.input("x", DType::u8, {2, 2}).constant("s", *f32({2}, {1, 10})).output("y");
  EXPECT_EQ(import_error(old),
            "m.onnx: node 'n' (DequantizeLinear): input 1 ('x_scale') has shape 2, but must be a "
            "scalar");
  OnnxModel wrong("QuantizeLinear", 13);
  wrong.input("x", DType::f32, {2, 3}).constant("s", *f32({2}, {1, 10})).output("y");
  EXPECT_EQ(import_error(wrong),
            "m.onnx: node 'n' (QuantizeLinear): input 1 ('y_scale') has shape 2, but must be a "
            "scalar or hold 3 values (one per element along axis 1)");
}

TEST_F(OnnxQuantizeTest, DynamicQuantize) {
  OnnxModel model("DynamicQuantizeLinear", 11);
  model.input("x", DType::f32, {3}).output("y").output("scale").output("zero_point");
  // [-1, 1.55] maps onto [0, 255] with scale 0.01 and zero point 100.
  std::vector<TensorPtr> y = run(model, {f32({3}, {-1, 0, 1.55})});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(values_of(*y[0]), (Values{0, 100, 255}));
  EXPECT_NEAR(values_of(*y[1])[0], 0.01, 1e-7);
  EXPECT_EQ(values_of(*y[2]), (Values{100}));
}

TEST_F(OnnxQuantizeTest, IntegerMatmuls) {
  // (a - [1, 2] per row) x (b - 3): [[0, 1], [1, 2]] x [[1, 0], [0, 1]].
  OnnxModel model("MatMulInteger", 10);
  model.input("a", DType::u8, {2, 2})
      .input("b", DType::u8, {2, 2})
      .constant("az", *make_tensor(DType::u8, {2}, {1, 2}))
      .constant("bz", *make_tensor(DType::u8, {}, {3}))
      .output("y");
  std::vector<TensorPtr> y = run(model, {make_tensor(DType::u8, {2, 2}, {1, 2, 3, 4}),
                                         make_tensor(DType::u8, {2, 2}, {4, 3, 3, 4})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->dtype(), DType::i32);
  EXPECT_EQ(values_of(*y[0]), (Values{0, 1, 1, 2}));
  OnnxModel qlinear("QLinearMatMul", 10);
  qlinear.input("a", DType::u8, {1, 2})
      .constant("as", *f32({}, {0.5}))
      .constant("az", *make_tensor(DType::u8, {}, {0}))
      .input("b", DType::u8, {2, 1})
      .constant("bs", *f32({}, {0.5}))
      .constant("bz", *make_tensor(DType::u8, {}, {0}))
      .constant("ys", *f32({}, {1}))
      .constant("yz", *make_tensor(DType::u8, {}, {10}))
      .output("y");
  // (2 * 3 + 4 * 5) * 0.25 = 6.5, rounded to even 6, plus 10.
  std::vector<TensorPtr> q = run(
      qlinear, {make_tensor(DType::u8, {1, 2}, {2, 4}), make_tensor(DType::u8, {2, 1}, {3, 5})});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(values_of(*q[0]), (Values{16}));
  OnnxModel flat("MatMulInteger", 10);
  flat.input("a", DType::u8, {2}).input("b", DType::u8, {2, 2}).output("y");
  EXPECT_EQ(import_error(flat),
            "m.onnx: node 'n' (MatMulInteger): inputs 0 and 1 have shapes 2 and 2x2, but must "
            "have rank 2 or more");
}

TEST_F(OnnxQuantizeTest, ConvIntegerSubtractsZeroPointsPerChannel) {
  // x - 1 = [[0, 1, 2], [3, 4, 5], [6, 7, 8]]; w's first channel less 1 is all ones (window
  // sums), its second less 0 picks each window's top left.
  OnnxModel model("ConvInteger", 10);
  model.input("x", DType::u8, {1, 1, 3, 3})
      .constant("w", *make_tensor(DType::u8, {2, 1, 2, 2}, {2, 2, 2, 2, 1, 0, 0, 0}))
      .constant("xz", *make_tensor(DType::u8, {}, {1}))
      .constant("wz", *make_tensor(DType::u8, {2}, {1, 0}))
      .output("y");
  std::vector<TensorPtr> y =
      run(model, {make_tensor(DType::u8, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->dtype(), DType::i32);
  EXPECT_EQ(values_of(*y[0]), (Values{8, 12, 20, 24, 0, 1, 3, 4}));
}

TEST_F(OnnxQuantizeTest, QLinearConvRequantizesHalfToEven) {
  // A 1x1 kernel with stride 2 over x padded by 1 reads padding but at x[1][1] = 4. Channel
  // 0: (0, 0, 0, 4) + bias 1, times 0.5 * 1 / 1 = 0.5, 0.5, 0.5, 2.5, round to 0, 0, 0, 2;
  // channel 1: (0, 0, 0, 4 * -2) times 0.5 * 0.5 = 0, 0, 0, -2. Both then less 1.
  OnnxModel model("QLinearConv", 10);
  model.input("x", DType::i8, {1, 1, 2, 2})
      .constant("xs", *f32({}, {0.5}))
      .constant("xz", *make_tensor(DType::i8, {}, {0}))
      .constant("w", *make_tensor(DType::i8, {2, 1, 1, 1}, {1, -2}))
      .constant("ws", *f32({2}, {1, 0.5}))
      .constant("wz", *make_tensor(DType::i8, {}, {0}))
      .constant("ys", *f32({}, {1}))
      .constant("yz", *make_tensor(DType::i8, {}, {-1}))
      .constant("b", *make_tensor(DType::i32, {2}, {1, 0}))
      .output("y")
      .ints_attr("pads", {1, 1, 1, 1})
      .ints_attr("strides", {2, 2});
  std::vector<TensorPtr> y = run(model, {make_tensor(DType::i8, {1, 1, 2, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->dtype(), DType::i8);
  EXPECT_EQ(values_of(*y[0]), (Values{-1, -1, -1, 1, -1, -1, -1, -3}));
}

TEST_F(OnnxQuantizeTest, IntegerConvolutionErrors) {
  OnnxModel float_data("ConvInteger", 10);
  float_data.input("x", DType::f32, {1, 1, 3, 3})
      .constant("w", *make_tensor(DType::u8, {1, 1, 2, 2}, {1, 1, 1, 1}))
      .output("y");
  EXPECT_EQ(import_error(float_data),
            "m.onnx: node 'n' (ConvInteger): input 0 ('x') is f32, but must be u8 or i8");
  OnnxModel x_per_channel("ConvInteger", 10);
  x_per_channel.input("x", DType::u8, {1, 2, 3, 3})
      .constant("w", *make_tensor(DType::u8, {1, 2, 1, 1}, {1, 1}))
      .constant("xz", *make_tensor(DType::u8, {2}, {1, 1}))
      .output("y");
  EXPECT_EQ(import_error(x_per_channel),
            "m.onnx: node 'n' (ConvInteger): input 2 (x's zero point) has shape 2, but must be "
            "a scalar");
  OnnxModel scales("QLinearConv", 10);
  scales.input("x", DType::u8, {1, 1, 2, 2})
      .constant("xs", *f32({}, {1}))
      .constant("xz", *make_tensor(DType::u8, {}, {0}))
      .constant("w", *make_tensor(DType::u8, {2, 1, 1, 1}, {1, 1}))
      .constant("ws", *f32({3}, {1, 1, 1}))
      .constant("wz", *make_tensor(DType::u8, {}, {0}))
      .constant("ys", *f32({}, {1}))
      .constant("yz", *make_tensor(DType::u8, {}, {0}))
      .output("y");
  EXPECT_EQ(import_error(scales),
            "m.onnx: node 'n' (QLinearConv): input 4 ('w_scale') has shape 3, but must be a "
            "scalar or hold 2 values (one per element along axis 1)");
  OnnxModel bias("QLinearConv", 10);
  bias.input("x", DType::u8, {1, 1, 2, 2})
      .constant("xs", *f32({}, {1}))
      .constant("xz", *make_tensor(DType::u8, {}, {0}))
      .constant("w", *make_tensor(DType::u8, {1, 1, 1, 1}, {1}))
      .constant("ws", *f32({}, {1}))
      .constant("wz", *make_tensor(DType::u8, {}, {0}))
      .constant("ys", *f32({}, {1}))
      .constant("yz", *make_tensor(DType::u8, {}, {0}))
      .constant("b", *f32({1}, {1}))
      .output("y");
  EXPECT_EQ(import_error(bias),
            "m.onnx: node 'n' (QLinearConv): input 8 ('B') is f32, but must be i32");
}

}  // namespace
}  // namespace uma
