// Unit tests of the elementwise ONNX converters (src/frontend/onnx/elementwise.cc): what each
// ONNX node becomes across opsets, checked on the imported graph's text and by running it.
// ONNX's own node tests cover the common cases; these cover the opset differences, dtype
// mixing, bounds and errors those tests do not reach.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "onnx_model_builder.h"
#include "tensor_util.h"
#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OnnxModel;
using test::values_of;
using Doubles = std::vector<double>;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kFloatMax = std::numeric_limits<float>::max();

class OnnxElementwiseTest : public test::OnnxConverterTest {};

TensorPtr scalar(DType dtype, double value) { return make_tensor(dtype, {}, {value}); }

// ---- Clip ----

TEST_F(OnnxElementwiseTest, ClipBeforeOpset11TakesAttributes) {
  OnnxModel model("Clip", 10);
  model.input("x", DType::f32, {4}).output("y").attr("min", -1).attr("max", 2);
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {\n"
            "  %y = clip(%x) {a_max = 2.0, a_min = -1.0} : tensor<4xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  EXPECT_EQ(run1(model, {f32({4}, {-3, 0, 1.5, 7})}), (Doubles{-1, 0, 1.5, 2}));
  // Absent attributes are float's lowest and largest values, not infinities.
  OnnxModel open("Clip", 7);
  open.input("x", DType::f32, {3}).output("y");
  EXPECT_EQ(run1(open, {f32({3}, {-kInf, 1, kInf})}), (Doubles{-kFloatMax, 1, kFloatMax}));
}

TEST_F(OnnxElementwiseTest, ClipFromOpset11TakesConstantInputs) {
  OnnxModel model("Clip", 13);
  model.input("x", DType::f32, {4}).constant("lo", *scalar(DType::f32, 0)).output("y");
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {\n"
            "  %y = clip(%x) {a_max = 3.4028234663852886e+38, a_min = 0.0} : tensor<4xf32> "
            "loc(\"n\")\n"
            "  return %y\n}\n");
  EXPECT_EQ(run1(model, {f32({4}, {-1, 0.5, 6, kInf})}), (Doubles{0, 0.5, 6, kFloatMax}));
  // f16's own largest value bounds an f16 tensor.
  OnnxModel half("Clip", 13);
  half.input("x", DType::f16, {2}).skip().constant("hi", *scalar(DType::f16, 6)).output("y");
  EXPECT_EQ(run1(half, {make_tensor(DType::f16, {2}, {-kInf, 7})}), (Doubles{-65504, 6}));
  // Integers need no default bounds: without any, Clip is the identity.
  OnnxModel ints("Clip", 13);
  ints.input("x", DType::i8, {2}).output("y");
  EXPECT_EQ(text(ints), "func @main(%x: tensor<2xi8>) -> (tensor<2xi8>) {\n  return %x\n}\n");
}

TEST_F(OnnxElementwiseTest, ClipWithComputedBoundsUsesMaximumAndMinimum) {
  OnnxModel model("Clip", 12);
  model.input("x", DType::f32, {3})
      .input("lo", DType::f32, {})
      .constant("hi", *scalar(DType::f32, 1));
  model.output("y");
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<3xf32>, %lo: tensor<f32>) -> (tensor<3xf32>) {\n"
            "  %0 = maximum(%x, %lo) : tensor<3xf32> loc(\"n\")\n"
            "  %y = clip(%0) {a_max = 1.0} : tensor<3xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  EXPECT_EQ(run1(model, {f32({3}, {-5, 0.5, 5}), scalar(DType::f32, -1)}), (Doubles{-1, 0.5, 1}));
  // numpy's order: a lower bound above the upper one gives the upper bound everywhere.
  EXPECT_EQ(run1(model, {f32({3}, {-5, 0.5, 5}), scalar(DType::f32, 3)}), (Doubles{1, 1, 1}));
}

TEST_F(OnnxElementwiseTest, ClipKeepsLargeInt64BoundsExact) {
  // 2^60 + 1 has no double: it stays a tensor and is compared in int64.
  std::int64_t big = (std::int64_t{1} << 60) + 1;
  auto bound = std::make_shared<Tensor>(TensorType{DType::i64, {}});
  bound->data<std::int64_t>()[0] = big;
  OnnxModel model("Clip", 13);
  model.input("x", DType::i64, {2}).skip().constant("hi", *bound).output("y");
  auto x = std::make_shared<Tensor>(TensorType{DType::i64, {2}});
  x->data<std::int64_t>()[0] = big - 1;
  x->data<std::int64_t>()[1] = big + 1;
  std::vector<TensorPtr> y = run(model, {x});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->data<std::int64_t>()[0], big - 1);
  EXPECT_EQ(y[0]->data<std::int64_t>()[1], big);
}

TEST_F(OnnxElementwiseTest, ClipErrors) {
  OnnxModel vector_bound("Clip", 13);
  vector_bound.input("x", DType::f32, {2}).constant("lo", *f32({2}, {0, 1})).output("y");
  EXPECT_EQ(import_error(vector_bound),
            "m.onnx: node 'n' (Clip): input 1 ('min') must be a scalar, got shape 2");
  OnnxModel mixed("Clip", 13);
  mixed.input("x", DType::f32, {2}).constant("lo", *scalar(DType::i64, 0)).output("y");
  EXPECT_EQ(import_error(mixed),
            "m.onnx: node 'n' (Clip): input 1 ('min') is i64, but input 0 is f32");
}

// ---- Pow ----

TEST_F(OnnxElementwiseTest, PowCastsTheExponentToAFloatBase) {
  OnnxModel model("Pow", 15);
  model.input("x", DType::f32, {3}).input("y", DType::i64, {3}).output("z");
  EXPECT_EQ(text(model),
            "func @main(%x: tensor<3xf32>, %y: tensor<3xi64>) -> (tensor<3xf32>) {\n"
            "  %0 = cast(%y) {dtype = \"f32\"} : tensor<3xf32> loc(\"n\")\n"
            "  %z = power(%x, %0) : tensor<3xf32> loc(\"n\")\n"
            "  return %z\n}\n");
  EXPECT_EQ(run1(model, {f32({3}, {2, 0.5, -3}), make_tensor(DType::i64, {3}, {3, -2, 3})}),
            (Doubles{8, 4, -27}));
}

TEST_F(OnnxElementwiseTest, PowOfAnIntegerBaseToAFloatExponentTruncates) {
  OnnxModel model("Pow", 15);
  model.input("x", DType::i32, {4}).input("y", DType::f32, {4}).output("z");
  // 4^0.5 = 2 and 3^0.5 = 1.73... truncated to 1; 2^-1 = 0.5 truncates to 0.
  EXPECT_EQ(run1(model, {make_tensor(DType::i32, {4}, {4, 3, 2, 5}), f32({4}, {0.5, 0.5, -1, 3})}),
            (Doubles{2, 1, 0, 125}));
  OnnxModel ints("Pow", 15);
  ints.input("x", DType::i32, {2}).input("y", DType::i64, {2}).output("z");
  EXPECT_EQ(
      run1(ints, {make_tensor(DType::i32, {2}, {3, -2}), make_tensor(DType::i64, {2}, {4, 3})}),
      (Doubles{81, -8}));
}

// ---- variadic ops ----

TEST_F(OnnxElementwiseTest, VariadicOpsFoldTheirInputs) {
  auto a = f32({2, 1}, {1, 5});
  auto b = f32({3}, {2, 4, 6});
  auto c = f32({}, {3});
  const std::pair<const char*, Doubles> cases[] = {
      {"Max", {3, 4, 6, 5, 5, 6}},
      {"Min", {1, 1, 1, 2, 3, 3}},
      {"Sum", {6, 8, 10, 10, 12, 14}},
      {"Mean", {2, 8.0 / 3, 10.0 / 3, 10.0 / 3, 4, 14.0 / 3}},
  };
  for (const auto& [op, expected] : cases) {
    OnnxModel model(op, 13);
    model.input("a", DType::f32, {2, 1}).input("b", DType::f32, {3}).input("c", DType::f32, {});
    model.output("z");
    Doubles z = run1(model, {a, b, c});
    ASSERT_EQ(z.size(), expected.size()) << op;
    for (std::size_t i = 0; i < z.size(); ++i) EXPECT_FLOAT_EQ(z[i], expected[i]) << op;
  }
  OnnxModel one("Max", 13);
  one.input("a", DType::f32, {2}).output("z");
  EXPECT_EQ(text(one), "func @main(%a: tensor<2xf32>) -> (tensor<2xf32>) {\n  return %a\n}\n");
}

// ---- Cast, CastLike ----

TEST_F(OnnxElementwiseTest, Cast) {
  OnnxModel model("Cast", 13);
  model.input("x", DType::f32, {3}).output("y").int_attr("to", onnx::TensorProto::INT8);
  EXPECT_EQ(run1(model, {f32({3}, {-1.9, 2.9, 1000})}), (Doubles{-1, 2, 127}));
  OnnxModel same("Cast", 9);
  same.input("x", DType::f32, {3}).output("y").int_attr("to", onnx::TensorProto::FLOAT);
  EXPECT_EQ(text(same), "func @main(%x: tensor<3xf32>) -> (tensor<3xf32>) {\n  return %x\n}\n");
  OnnxModel like("CastLike", 15);
  like.input("x", DType::i32, {2}).input("like", DType::f16, {1}).output("y");
  std::vector<TensorPtr> y =
      run(like, {make_tensor(DType::i32, {2}, {2049, -3}), make_tensor(DType::f16, {1}, {0})});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0]->dtype(), DType::f16);
  EXPECT_EQ(values_of(*y[0]), (Doubles{2048, -3}));
}

TEST_F(OnnxElementwiseTest, CastToAnUnsupportedTypeNamesTheAttribute) {
  OnnxModel model("Cast", 13);
  model.input("x", DType::f32, {3}).output("y").int_attr("to", onnx::TensorProto::STRING);
  EXPECT_EQ(import_error(model),
            "m.onnx: node 'n' (Cast): attribute 'to' has element type STRING, which uma does not "
            "support (it supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, "
            "UINT8, UINT16, UINT32, UINT64, BOOL)");
  OnnxModel missing("Cast", 13);
  missing.input("x", DType::f32, {3}).output("y");
  EXPECT_EQ(import_error(missing), "m.onnx: node 'n' (Cast): attribute 'to' is required");
}

// ---- activations ----

TEST_F(OnnxElementwiseTest, ActivationAttributes) {
  OnnxModel leaky("LeakyRelu", 16);
  leaky.input("x", DType::f32, {2}).output("y").attr("alpha", 0.5);
  EXPECT_EQ(run1(leaky, {f32({2}, {-2, 3})}), (Doubles{-1, 3}));
  // ONNX's defaults when the model gives none.
  OnnxModel selu("Selu", 7);
  selu.input("x", DType::f32, {2}).output("y");
  Doubles y = run1(selu, {f32({2}, {-1, 1})});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_FLOAT_EQ(y[0], 1.05070102214813232421875 * 1.67326319217681884765625 * (std::exp(-1) - 1));
  EXPECT_FLOAT_EQ(y[1], 1.05070102214813232421875);
  OnnxModel hard("HardSigmoid", 7);
  hard.input("x", DType::f32, {3}).output("y").attr("beta", 0.25);
  EXPECT_EQ(run1(hard, {f32({3}, {-5, 1, 5})}), (Doubles{0, 0.45f, 1}));
}

// ---- Identity, Dropout ----

TEST_F(OnnxElementwiseTest, IdentityAndDropoutPassTheirInputThrough) {
  OnnxModel identity("Identity", 16);
  identity.input("x", DType::i64, {2}).output("y");
  EXPECT_EQ(text(identity), "func @main(%x: tensor<2xi64>) -> (tensor<2xi64>) {\n  return %x\n}\n");
  OnnxModel dropout("Dropout", 12);
  dropout.input("x", DType::f32, {2}).constant("ratio", *scalar(DType::f32, 0.5)).output("y");
  EXPECT_EQ(text(dropout), "func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n  return %x\n}\n");
}

TEST_F(OnnxElementwiseTest, DropoutMaskKeepsEverything) {
  OnnxModel model("Dropout", 13);
  model.input("x", DType::f32, {3}).output("y").output("mask");
  std::vector<TensorPtr> outputs = run(model, {f32({3}, {1, 2, 3})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(values_of(*outputs[0]), (Doubles{1, 2, 3}));
  EXPECT_EQ(outputs[1]->dtype(), DType::boolean);
  EXPECT_EQ(values_of(*outputs[1]), (Doubles{1, 1, 1}));
  // Before opset 10 the mask has the data's type.
  OnnxModel old("Dropout", 9);
  old.input("x", DType::f16, {2}).output("y").output("mask").attr("ratio", 0.3);
  outputs = run(old, {make_tensor(DType::f16, {2}, {1, 2})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[1]->dtype(), DType::f16);
  EXPECT_EQ(values_of(*outputs[1]), (Doubles{1, 1}));
}

TEST_F(OnnxElementwiseTest, DropoutInTrainingMode) {
  auto yes = make_tensor(DType::boolean, {}, {1});
  OnnxModel random("Dropout", 13);
  random.input("x", DType::f32, {2})
      .constant("ratio", *scalar(DType::f32, 0.5))
      .constant("training", *yes);
  random.output("y");
  EXPECT_EQ(import_error(random),
            "m.onnx: node 'n' (Dropout): training mode (random dropout) is not supported; export "
            "the model for inference or give a constant ratio of 0");
  // A ratio of 0 drops nothing, even in training mode.
  OnnxModel none("Dropout", 13);
  none.input("x", DType::f32, {2})
      .constant("ratio", *scalar(DType::f32, 0))
      .constant("training", *yes);
  none.output("y");
  EXPECT_EQ(run1(none, {f32({2}, {4, 5})}), (Doubles{4, 5}));
  OnnxModel computed("Dropout", 13);
  computed.input("x", DType::f32, {2}).skip().input("training", DType::boolean, {}).output("y");
  EXPECT_EQ(import_error(computed),
            "m.onnx: node 'n' (Dropout): input 2 ('training_mode') must be a constant: uma needs "
            "its value at build time; it is the model's input 'training', so give its value with "
            "--bind training=FILE");
}

// ---- comparisons and logic ----

TEST_F(OnnxElementwiseTest, ComparisonsGiveBools) {
  const std::pair<const char*, Doubles> cases[] = {
      {"Equal", {0, 1, 0}},       {"Less", {1, 0, 0}},           {"Greater", {0, 0, 1}},
      {"LessOrEqual", {1, 1, 0}}, {"GreaterOrEqual", {0, 1, 1}},
  };
  for (const auto& [op, expected] : cases) {
    OnnxModel model(op, 16);
    model.input("a", DType::i32, {3}).input("b", DType::i32, {}).output("c");
    EXPECT_EQ(run1(model, {make_tensor(DType::i32, {3}, {1, 2, 3}), scalar(DType::i32, 2)}),
              expected)
        << op;
  }
  OnnxModel where("Where", 16);
  where.input("c", DType::boolean, {2}).input("x", DType::i64, {2}).input("y", DType::i64, {});
  where.output("z");
  EXPECT_EQ(run1(where, {make_tensor(DType::boolean, {2}, {0, 1}),
                         make_tensor(DType::i64, {2}, {7, 8}), scalar(DType::i64, -1)}),
            (Doubles{-1, 8}));
}

// ---- Mod, BitShift, IsInf ----

TEST_F(OnnxElementwiseTest, ModFollowsTheDivisorUnlessFmod) {
  auto a = make_tensor(DType::i32, {4}, {7, -7, 7, -7});
  auto b = make_tensor(DType::i32, {4}, {3, 3, -3, -3});
  OnnxModel python("Mod", 13);
  python.input("a", DType::i32, {4}).input("b", DType::i32, {4}).output("y");
  EXPECT_EQ(run1(python, {a, b}), (Doubles{1, 2, -2, -1}));
  OnnxModel c("Mod", 13);
  c.input("a", DType::i32, {4}).input("b", DType::i32, {4}).output("y").int_attr("fmod", 1);
  EXPECT_EQ(run1(c, {a, b}), (Doubles{1, -1, 1, -1}));
  OnnxModel bad("Mod", 13);
  bad.input("a", DType::i32, {4}).input("b", DType::i32, {4}).output("y").int_attr("fmod", 2);
  EXPECT_EQ(import_error(bad), "m.onnx: node 'n' (Mod): attribute 'fmod' is 2, but must be 0 or 1");
}

TEST_F(OnnxElementwiseTest, BitShiftTakesItsDirection) {
  auto x = make_tensor(DType::u8, {3}, {1, 96, 255});
  auto s = make_tensor(DType::u8, {3}, {3, 5, 8});
  OnnxModel left("BitShift", 11);
  left.input("x", DType::u8, {3}).input("s", DType::u8, {3}).output("y");
  left.string_attr("direction", "LEFT");
  EXPECT_EQ(run1(left, {x, s}), (Doubles{8, 0, 0}));
  OnnxModel right("BitShift", 11);
  right.input("x", DType::u8, {3}).input("s", DType::u8, {3}).output("y");
  right.string_attr("direction", "RIGHT");
  EXPECT_EQ(run1(right, {x, s}), (Doubles{0, 3, 0}));
  OnnxModel up("BitShift", 11);
  up.input("x", DType::u8, {3}).input("s", DType::u8, {3}).output("y");
  up.string_attr("direction", "UP");
  EXPECT_EQ(import_error(up),
            "m.onnx: node 'n' (BitShift): attribute 'direction' is \"UP\", but must be \"LEFT\" "
            "or \"RIGHT\"");
}

TEST_F(OnnxElementwiseTest, IsInfDetectsTheSignsAsked) {
  OnnxModel positive("IsInf", 10);
  positive.input("x", DType::f32, {3}).output("y").int_attr("detect_negative", 0);
  EXPECT_EQ(run1(positive, {f32({3}, {kInf, -kInf, 1})}), (Doubles{1, 0, 0}));
}

}  // namespace
}  // namespace uma
