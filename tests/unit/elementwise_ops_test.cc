// Unit tests of the elementwise op families (src/op/elementwise.cc, activation.cc,
// logical.cc): schemas, every inference error message exactly, and the reference kernels
// against hand-computed values or independent formulations. The first elementwise tests
// (add ... exp) live in ops_test.cc.
#include <cmath>
#include <limits>
#include <numbers>

#include "op_test_fixture.h"

namespace uma {
namespace {

using test::f32;
using test::make_attrs;
using test::make_tensor;
using test::values_of;
using Doubles = std::vector<double>;

Type tensor(Shape shape, DType dtype = DType::f32) {
  return test::tensor_type(std::move(shape), dtype);
}

std::shared_ptr<Tensor> i64s(Shape shape, const std::vector<std::int64_t>& values) {
  auto t = std::make_shared<Tensor>(TensorType{DType::i64, std::move(shape)});
  for (std::size_t i = 0; i < values.size(); ++i) t->data<std::int64_t>()[i] = values[i];
  return t;
}

std::vector<std::int64_t> i64_values(const Tensor& t) {
  return {t.data<std::int64_t>(), t.data<std::int64_t>() + t.num_elements()};
}

std::shared_ptr<Tensor> bools(Shape shape, const Doubles& values) {
  return make_tensor(DType::boolean, std::move(shape), values);
}

AttrMap dtype_attr(const char* dtype) { return make_attrs({{"dtype", std::string(dtype)}}); }

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::nan("");

class ElementwiseOpsTest : public test::OpTest {};

// ---- schemas ----

TEST_F(ElementwiseOpsTest, EveryOpIsElementwise) {
  for (const char* name :
       {"power",           "abs",           "log",           "sqrt",        "erf",
        "reciprocal",      "cast",          "nn.leaky_relu", "nn.elu",      "nn.selu",
        "nn.hard_sigmoid", "nn.hard_swish", "nn.gelu",       "nn.prelu",    "clip",
        "equal",           "less",          "less_equal",    "greater",     "greater_equal",
        "logical_and",     "logical_or",    "logical_xor",   "logical_not", "where"})
    EXPECT_EQ(op(name).fusion, FusionCategory::kElementwise) << name;
  EXPECT_EQ(op("where").min_inputs, 3);
  EXPECT_EQ(op("where").max_inputs, 3);
  EXPECT_EQ(op("nn.prelu").max_inputs, 2);
  EXPECT_EQ(op("logical_not").max_inputs, 1);
}

TEST_F(ElementwiseOpsTest, AttributeDefaults) {
  auto defaults = [&](const char* name) {
    AttrMap attrs;
    EXPECT_TRUE(op(name).normalize_attrs(attrs).ok()) << name;
    return attrs;
  };
  EXPECT_EQ(defaults("nn.leaky_relu"), make_attrs({{"alpha", 0.01}}));
  EXPECT_EQ(defaults("nn.elu"), make_attrs({{"alpha", 1.0}}));
  // ONNX's float32 constants, exactly.
  EXPECT_EQ(defaults("nn.selu"), make_attrs({{"alpha", double{1.67326319217681884765625f}},
                                             {"gamma", double{1.05070102214813232421875f}}}));
  EXPECT_EQ(defaults("nn.hard_sigmoid"), make_attrs({{"alpha", 0.2}, {"beta", 0.5}}));
  EXPECT_TRUE(defaults("nn.hard_swish").empty());
  EXPECT_EQ(defaults("nn.gelu"), make_attrs({{"approximate", std::string("none")}}));
  EXPECT_EQ(defaults("clip"), make_attrs({{"a_min", -kInf}, {"a_max", kInf}}));
  AttrMap none;
  EXPECT_EQ(op("cast").normalize_attrs(none).error().message(),
            "op cast requires attribute 'dtype'");
}

// ---- inference ----

TEST_F(ElementwiseOpsTest, ResultTypes) {
  EXPECT_EQ(infer1("power", {tensor({2, 1}), tensor({3})}), tensor({2, 3}));
  EXPECT_EQ(infer1("power", {tensor({2}, DType::i32), tensor({}, DType::i32)}),
            tensor({2}, DType::i32));
  EXPECT_EQ(infer1("abs", {tensor({2}, DType::i8)}), tensor({2}, DType::i8));
  EXPECT_EQ(infer1("cast", {tensor({2, 3})}, dtype_attr("bool")), tensor({2, 3}, DType::boolean));
  EXPECT_EQ(infer1("nn.gelu", {tensor({4}, DType::bf16)}), tensor({4}, DType::bf16));
  EXPECT_EQ(infer1("nn.prelu", {tensor({1, 3, 4, 4}), tensor({3, 1, 1})}), tensor({1, 3, 4, 4}));
  EXPECT_EQ(infer1("clip", {tensor({5}, DType::u8)}), tensor({5}, DType::u8));
  EXPECT_EQ(infer1("equal", {tensor({2, 1}, DType::boolean), tensor({3}, DType::boolean)}),
            tensor({2, 3}, DType::boolean));
  EXPECT_EQ(infer1("less", {tensor({4}, DType::i64), tensor({}, DType::i64)}),
            tensor({4}, DType::boolean));
  EXPECT_EQ(infer1("where", {tensor({2, 1, 1}, DType::boolean), tensor({3, 1}, DType::i64),
                             tensor({4}, DType::i64)}),
            tensor({2, 3, 4}, DType::i64));
  EXPECT_EQ(infer1("where", {tensor({}, DType::boolean), tensor({2}, DType::boolean),
                             tensor({2}, DType::boolean)}),
            tensor({2}, DType::boolean));
}

TEST_F(ElementwiseOpsTest, ArithmeticInferenceErrors) {
  EXPECT_EQ(error("power", {tensor({2}), tensor({2}, DType::i32)}),
            "operands have different dtypes f32 and i32");
  EXPECT_EQ(error("power", {tensor({2}, DType::boolean), tensor({2}, DType::boolean)}),
            "operands are bool, but only numbers are supported");
  EXPECT_EQ(error("abs", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  for (const char* name : {"log", "sqrt", "erf", "reciprocal"})
    EXPECT_EQ(error(name, {tensor({2}, DType::i64)}),
              "operand is i64, but only floating-point types (f32, f16, bf16, f64) are supported")
        << name;
  EXPECT_EQ(error("cast", {tensor({2})}, dtype_attr("c64")),
            "attribute 'dtype' is \"c64\", but must be one of f32, f16, bf16, f64, i8, i16, i32, "
            "i64, u8, u16, u32, u64, bool");
  EXPECT_EQ(error("cast", {TupleType{{tensor({2})}}}, dtype_attr("f32")),
            "operand 0 is tuple<tensor<2xf32>>, not a tensor");
  EXPECT_EQ(error("cast", {tensor({2})}, make_attrs({{"dtype", std::int64_t{1}}})),
            "attribute 'dtype' of op cast must be string, not int");
}

TEST_F(ElementwiseOpsTest, ActivationInferenceErrors) {
  for (const char* name :
       {"nn.leaky_relu", "nn.elu", "nn.selu", "nn.hard_sigmoid", "nn.hard_swish", "nn.gelu"})
    EXPECT_EQ(error(name, {tensor({2}, DType::i32)}),
              "operand is i32, but only floating-point types (f32, f16, bf16, f64) are supported")
        << name;
  EXPECT_EQ(error("nn.gelu", {tensor({2})}, make_attrs({{"approximate", std::string("erf")}})),
            "attribute 'approximate' is \"erf\", but must be \"none\" or \"tanh\"");
  EXPECT_EQ(error("nn.leaky_relu", {tensor({2})}, make_attrs({{"slope", 0.1}})),
            "unknown attribute 'slope' for op nn.leaky_relu");
  EXPECT_EQ(error("nn.prelu", {tensor({2}, DType::boolean), tensor({2}, DType::boolean)}),
            "data is bool, but only numbers are supported");
  EXPECT_EQ(error("nn.prelu", {tensor({2}), tensor({2}, DType::f16)}),
            "slope is f16, but data is f32");
  EXPECT_EQ(error("nn.prelu", {tensor({3, 4}), tensor({3})}),
            "slope of shape 3 does not broadcast to data's shape 3x4");
  // Broadcasting must not grow data: slope may not be larger than data.
  EXPECT_EQ(error("nn.prelu", {tensor({4}), tensor({3, 4})}),
            "slope of shape 3x4 does not broadcast to data's shape 4");
  EXPECT_EQ(error("nn.prelu", {tensor({4}), TupleType{}}), "operand 1 is tuple<>, not a tensor");
  EXPECT_EQ(error("clip", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("clip", {tensor({2})}, make_attrs({{"a_max", kNan}})),
            "attribute 'a_max' is nan, but must be a number");
  EXPECT_EQ(error("clip", {tensor({2})}, make_attrs({{"a_min", kNan}})),
            "attribute 'a_min' is nan, but must be a number");
}

TEST_F(ElementwiseOpsTest, LogicalInferenceErrors) {
  EXPECT_EQ(error("less", {tensor({2}, DType::boolean), tensor({2}, DType::boolean)}),
            "operands are bool, but only numbers are supported");
  EXPECT_EQ(error("equal", {tensor({2}, DType::i32), tensor({2}, DType::i64)}),
            "operands have different dtypes i32 and i64");
  EXPECT_EQ(error("greater_equal", {tensor({2, 3}), tensor({2})}),
            "operands have incompatible shapes 2x3 and 2 (dimension 1: 3 vs 2)");
  EXPECT_EQ(error("logical_or", {tensor({2}), tensor({2})}),
            "operands are f32, but only bool is supported");
  EXPECT_EQ(error("logical_not", {tensor({2}, DType::u8)}),
            "operand is u8, but only bool is supported");
  EXPECT_EQ(error("where", {tensor({2}), tensor({2}), tensor({2})}),
            "condition is f32, but only bool is supported");
  EXPECT_EQ(error("where", {tensor({2}, DType::boolean), tensor({2}), tensor({2}, DType::f16)}),
            "x and y have different dtypes f32 and f16");
  EXPECT_EQ(error("where", {tensor({2}, DType::boolean), tensor({2}), tensor({3})}),
            "condition, x and y have shapes 2, 2 and 3, which do not broadcast together");
  EXPECT_EQ(error("where", {tensor({2}, DType::boolean), tensor({3, 1}), tensor({})}),
            "(no error)");
  EXPECT_EQ(
      error("where", {tensor({1LL << 32, 1}, DType::boolean), tensor({1, 1LL << 32}), tensor({})}),
      "result: shape 4294967296x4294967296 has more elements than fit in 64 bits");
  EXPECT_EQ(error("where", {tensor({2}, DType::boolean), tensor({2})}),
            "op where takes 3 operand(s), got 2");
}

// ---- arithmetic kernels ----

TEST_F(ElementwiseOpsTest, PowerOnFloats) {
  Doubles z =
      values_of(*run1("power", {f32({2, 3}, {2, 4, -8, 2, 9, 0}), f32({3}, {3, 0.5, 1.0 / 3})}));
  EXPECT_EQ(z[0], 8);
  EXPECT_EQ(z[1], 2);
  EXPECT_TRUE(std::isnan(z[2]));  // a negative base to a non-integer power
  EXPECT_EQ(z[3], 8);
  EXPECT_EQ(z[4], 3);
  EXPECT_EQ(z[5], 0);
  EXPECT_EQ(values_of(*run1("power", {f32({3}, {2, -2, 0}), f32({}, {-1})})),
            (Doubles{0.5, -0.5, kInf}));
}

TEST_F(ElementwiseOpsTest, PowerOnIntegers) {
  auto base = make_tensor(DType::i32, {6}, {3, -2, 2, 1, -1, -1});
  auto exponent = make_tensor(DType::i32, {6}, {4, 3, -1, -5, -3, -4});
  // A negative exponent truncates the real result: 2^-1 = 0.5 is 0.
  EXPECT_EQ(values_of(*run1("power", {base, exponent})), (Doubles{81, -8, 0, 1, -1, 1}));
  // Wraps like repeated multiplication: 2^7 = 128 is -128 in i8, 3^5 = 243 is -13.
  EXPECT_EQ(values_of(*run1("power", {make_tensor(DType::i8, {2}, {2, 3}),
                                      make_tensor(DType::i8, {2}, {7, 5})})),
            (Doubles{-128, -13}));
  // Exact beyond 2^53: 3^39 = 4052555153018976267.
  EXPECT_EQ(i64_values(*run1("power", {i64s({1}, {3}), i64s({1}, {39})})),
            (std::vector<std::int64_t>{4052555153018976267}));
  EXPECT_EQ(values_of(*run1("power", {make_tensor(DType::u8, {2}, {0, 7}),
                                      make_tensor(DType::u8, {2}, {0, 0})})),
            (Doubles{1, 1}));
  EXPECT_EQ(
      run_error("power", {make_tensor(DType::i32, {2}, {2, 0}), make_tensor(DType::i32, {}, {-2})}),
      "integer zero raised to the negative power -2");
}

TEST_F(ElementwiseOpsTest, UnaryMath) {
  Doubles in = {0.25, 1, 2, 10};
  auto x = f32({4}, in);
  Doubles log = values_of(*run1("log", {x}));
  Doubles sqrt = values_of(*run1("sqrt", {x}));
  Doubles reciprocal = values_of(*run1("reciprocal", {x}));
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_NEAR(std::exp(log[i]), in[i], 1e-6 * in[i]);
    EXPECT_FLOAT_EQ(sqrt[i] * sqrt[i], in[i]);
  }
  EXPECT_EQ(log[1], 0);
  EXPECT_EQ(sqrt[0], 0.5);
  EXPECT_EQ(reciprocal, (Doubles{4, 1, 0.5, static_cast<float>(0.1)}));
  Doubles edge = values_of(*run1("log", {f32({3}, {0, -1, kInf})}));
  EXPECT_EQ(edge[0], -kInf);
  EXPECT_TRUE(std::isnan(edge[1]));
  EXPECT_EQ(edge[2], kInf);
  EXPECT_TRUE(std::isnan(values_of(*run1("sqrt", {f32({1}, {-4})}))[0]));
  EXPECT_EQ(values_of(*run1("reciprocal", {f32({2}, {0, -0.0})})), (Doubles{kInf, -kInf}));
  EXPECT_EQ(values_of(*run1("abs", {f32({3}, {-1.5, 0, 2})})), (Doubles{1.5, 0, 2}));
  // abs wraps like negation: the most negative i8 stays itself.
  EXPECT_EQ(values_of(*run1("abs", {make_tensor(DType::i8, {3}, {-128, -7, 7})})),
            (Doubles{-128, 7, 7}));
}

// erf against its Maclaurin series, sum over n of (-1)^n x^(2n+1) / (n! (2n+1)) * 2/sqrt(pi),
// which converges quickly for |x| <= 2.
TEST_F(ElementwiseOpsTest, ErfMatchesItsSeries) {
  Doubles in = {-2, -0.5, 0, 0.3, 1, 1.75};
  Doubles erf = values_of(*run1("erf", {f32({6}, in)}));
  for (std::size_t i = 0; i < in.size(); ++i) {
    double x = in[i], term = x, sum = 0;
    for (int n = 0; n < 60; ++n) {
      sum += term / (2 * n + 1);
      term *= -x * x / (n + 1);
    }
    EXPECT_NEAR(erf[i], sum * 2 / std::sqrt(std::numbers::pi), 1e-7) << x;
  }
}

// ---- cast ----

TEST_F(ElementwiseOpsTest, CastFloatToInteger) {
  auto x = f32({8}, {-1.7, 2.9, -0.5, kNan, kInf, -kInf, 3e9, -3e9});
  // Truncation toward zero; NaN is 0 and out-of-range values saturate.
  EXPECT_EQ(values_of(*run1("cast", {x}, dtype_attr("i32"))),
            (Doubles{-1, 2, 0, 0, 2147483647, -2147483648, 2147483647, -2147483648}));
  EXPECT_EQ(values_of(*run1("cast", {x}, dtype_attr("u8"))), (Doubles{0, 2, 0, 0, 255, 0, 255, 0}));
  EXPECT_EQ(values_of(*run1("cast", {f32({3}, {300, -300, 127.9})}, dtype_attr("i8"))),
            (Doubles{127, -128, 127}));
  EXPECT_EQ(
      i64_values(*run1("cast", {f32({3}, {kInf, -kInf, 0x1p62})}, dtype_attr("i64"))),
      (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max(),
                                 std::numeric_limits<std::int64_t>::min(), std::int64_t{1} << 62}));
}

TEST_F(ElementwiseOpsTest, CastToAndFromBool) {
  // Anything nonzero is true, NaN included; -0 is zero.
  EXPECT_EQ(values_of(*run1("cast", {f32({5}, {0, -0.0, kNan, 0.1, -3})}, dtype_attr("bool"))),
            (Doubles{0, 0, 1, 1, 1}));
  EXPECT_EQ(
      values_of(*run1("cast", {make_tensor(DType::i32, {3}, {0, 256, -1})}, dtype_attr("bool"))),
      (Doubles{0, 1, 1}));
  auto b = bools({2}, {1, 0});
  EXPECT_EQ(values_of(*run1("cast", {b}, dtype_attr("f16"))), (Doubles{1, 0}));
  EXPECT_EQ(values_of(*run1("cast", {b}, dtype_attr("i8"))), (Doubles{1, 0}));
}

TEST_F(ElementwiseOpsTest, CastBetweenIntegersWraps) {
  EXPECT_EQ(
      values_of(*run1("cast", {make_tensor(DType::i32, {3}, {200, -129, 255})}, dtype_attr("i8"))),
      (Doubles{-56, 127, -1}));
  EXPECT_EQ(values_of(*run1("cast", {make_tensor(DType::i8, {2}, {-1, 5})}, dtype_attr("u8"))),
            (Doubles{255, 5}));
  EXPECT_EQ(
      values_of(*run1("cast", {i64s({2}, {(std::int64_t{1} << 32) + 7, -1})}, dtype_attr("i32"))),
      (Doubles{7, -1}));
  EXPECT_EQ(i64_values(*run1("cast", {make_tensor(DType::u8, {1}, {200})}, dtype_attr("i64"))),
            (std::vector<std::int64_t>{200}));
}

TEST_F(ElementwiseOpsTest, CastToFloatsRoundsToNearestEven) {
  // 2049 lies halfway between the f16 values 2048 and 2050: it goes to the even 2048.
  // 65520 is the first value that rounds to infinity in f16.
  TensorPtr half = run1("cast", {f32({4}, {2049, 2051, 65519, 65520})}, dtype_attr("f16"));
  EXPECT_EQ(values_of(*half), (Doubles{2048, 2052, 65504, kInf}));
  EXPECT_EQ(values_of(*run1("cast", {half}, dtype_attr("f32"))),
            (Doubles{2048, 2052, 65504, kInf}));
  // bf16 keeps 8 significant bits: 257 lies halfway between 256 and 258.
  EXPECT_EQ(
      values_of(*run1("cast", {make_tensor(DType::i32, {2}, {257, 259})}, dtype_attr("bf16"))),
      (Doubles{256, 260}));
  // i64 to f32 rounds once: 2^53 + 2^29 + 1 is above the midpoint between the f32 neighbours
  // 2^53 and 2^53 + 2^30. Going through double would round twice and give 2^53.
  std::int64_t big = (std::int64_t{1} << 53) + (std::int64_t{1} << 29) + 1;
  EXPECT_EQ(values_of(*run1("cast", {i64s({1}, {big})}, dtype_attr("f32"))),
            (Doubles{0x1p53 + 0x1p30}));
  Doubles nan =
      values_of(*run1("cast", {make_tensor(DType::f16, {1}, {kNan})}, dtype_attr("bf16")));
  EXPECT_TRUE(std::isnan(nan[0]));
}

// ---- activations ----

TEST_F(ElementwiseOpsTest, LinearUnits) {
  auto x = f32({4}, {-2, -0.5, 0, 3});
  EXPECT_EQ(values_of(*run1("nn.leaky_relu", {x}, make_attrs({{"alpha", 0.25}}))),
            (Doubles{-0.5, -0.125, 0, 3}));
  EXPECT_EQ(values_of(*run1("nn.leaky_relu", {x})),
            (Doubles{static_cast<float>(-0.02), static_cast<float>(-0.005), 0, 3}));
  Doubles elu = values_of(*run1("nn.elu", {x}, make_attrs({{"alpha", 2.0}})));
  EXPECT_FLOAT_EQ(elu[0], 2 * (std::exp(-2.0) - 1));
  EXPECT_FLOAT_EQ(elu[1], 2 * (1 / std::sqrt(std::exp(1.0)) - 1));
  EXPECT_EQ(elu[2], 0);
  EXPECT_EQ(elu[3], 3);
  Doubles selu = values_of(*run1("nn.selu", {x}, make_attrs({{"alpha", 2.0}, {"gamma", 3.0}})));
  EXPECT_FLOAT_EQ(selu[0], 3 * (2 * std::exp(-2.0) - 2));
  EXPECT_EQ(selu[2], 0);
  EXPECT_EQ(selu[3], 9);
  // With ONNX's defaults, selu(-inf) = -alpha * gamma.
  Doubles selu_default = values_of(*run1("nn.selu", {f32({2}, {-kInf, 1})}));
  EXPECT_FLOAT_EQ(selu_default[0], -1.6732632f * 1.0507010f);
  EXPECT_FLOAT_EQ(selu_default[1], 1.0507010f);
  EXPECT_TRUE(std::isnan(values_of(*run1("nn.elu", {f32({1}, {kNan})}))[0]));
}

TEST_F(ElementwiseOpsTest, HardSigmoidAndHardSwish) {
  auto x = f32({6}, {-4, -3, -1.5, 0, 1.5, 4});
  EXPECT_EQ(values_of(*run1("nn.hard_sigmoid", {x})), (Doubles{0, 0, 0.2f, 0.5, 0.8f, 1}));
  EXPECT_EQ(values_of(*run1("nn.hard_sigmoid", {x}, make_attrs({{"alpha", 0.5}, {"beta", 0.25}}))),
            (Doubles{0, 0, 0, 0.25, 1, 1}));
  // hard_swish(x) = x * relu6(x + 3) / 6.
  Doubles swish = values_of(*run1("nn.hard_swish", {x}));
  Doubles in = values_of(*x);
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_FLOAT_EQ(swish[i], in[i] * std::min(std::max(in[i] + 3, 0.0), 6.0) / 6) << in[i];
}

TEST_F(ElementwiseOpsTest, Gelu) {
  Doubles in = {-3, -1, 0, 0.5, 1, 2};
  Doubles exact = values_of(*run1("nn.gelu", {f32({6}, in)}));
  Doubles tanh = values_of(
      *run1("nn.gelu", {f32({6}, in)}, make_attrs({{"approximate", std::string("tanh")}})));
  for (std::size_t i = 0; i < in.size(); ++i) {
    double x = in[i];
    // x times the normal distribution's CDF, here through erfc.
    EXPECT_FLOAT_EQ(exact[i], x * 0.5 * std::erfc(-x / std::sqrt(2.0))) << x;
    // The tanh form equals x * sigmoid(2u) with u = sqrt(2/pi) (x + 0.044715 x^3).
    double u = std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x);
    EXPECT_FLOAT_EQ(tanh[i], x / (1 + std::exp(-2 * u))) << x;
  }
  EXPECT_FLOAT_EQ(exact[4], 0.8413447460685429f);
}

TEST_F(ElementwiseOpsTest, PreluSlopeBroadcastsToData) {
  // One slope per channel of an NCHW tensor.
  auto data = f32({1, 2, 1, 2}, {-1, 2, -3, -4});
  auto slope = f32({2, 1, 1}, {0.5, 0.25});
  EXPECT_EQ(values_of(*run1("nn.prelu", {data, slope})), (Doubles{-0.5, 2, -0.75, -1}));
  EXPECT_EQ(values_of(*run1("nn.prelu", {data, f32({}, {-2})})), (Doubles{2, 2, 6, 8}));
  EXPECT_EQ(values_of(*run1("nn.prelu", {make_tensor(DType::i32, {3}, {-3, 0, 5}),
                                         make_tensor(DType::i32, {3}, {2, 2, 2})})),
            (Doubles{-6, 0, 5}));
}

TEST_F(ElementwiseOpsTest, ClipFloats) {
  auto x = f32({5}, {-2, -0.5, 0.5, 3, kNan});
  Doubles clipped = values_of(*run1("clip", {x}, make_attrs({{"a_min", -1.0}, {"a_max", 1.0}})));
  EXPECT_EQ(Doubles(clipped.begin(), clipped.end() - 1), (Doubles{-1, -0.5, 0.5, 1}));
  EXPECT_TRUE(std::isnan(clipped[4]));
  EXPECT_EQ(values_of(*run1("clip", {f32({2}, {-kInf, kInf})})), (Doubles{-kInf, kInf}));
  EXPECT_EQ(values_of(*run1("clip", {f32({2}, {-kInf, 5})}, make_attrs({{"a_min", 0.0}}))),
            (Doubles{0, 5}));
  // As numpy.clip: when a_min > a_max, everything is a_max.
  EXPECT_EQ(values_of(*run1("clip", {f32({3}, {-5, 0, 5})},
                            make_attrs({{"a_min", 2.0}, {"a_max", 1.0}}))),
            (Doubles{1, 1, 1}));
}

TEST_F(ElementwiseOpsTest, ClipIntegers) {
  auto x = make_tensor(DType::i32, {5}, {-5, -2, -1, 2, 3});
  EXPECT_EQ(values_of(*run1("clip", {x}, make_attrs({{"a_min", -1.5}, {"a_max", 2.5}}))),
            (Doubles{-1, -1, -1, 2, 2}));
  // Bounds beyond the dtype's range change nothing.
  EXPECT_EQ(values_of(*run1("clip", {make_tensor(DType::u8, {2}, {0, 255})},
                            make_attrs({{"a_min", -1e30}, {"a_max", 1e30}}))),
            (Doubles{0, 255}));
  // i64 compares exactly: 2^60 + 1 lies above the bound 2^60.
  std::int64_t big = std::int64_t{1} << 60;
  EXPECT_EQ(i64_values(*run1("clip", {i64s({3}, {big - 1, big, big + 1})},
                             make_attrs({{"a_max", 0x1p60}}))),
            (std::vector<std::int64_t>{big - 1, big, big}));
}

// ---- comparisons and logic ----

TEST_F(ElementwiseOpsTest, ComparisonsOnFloats) {
  auto a = f32({2, 3}, {1, 2, 3, kNan, -0.0, 5});
  auto b = f32({3}, {2, 2, 2});
  EXPECT_EQ(values_of(*run1("less", {a, b})), (Doubles{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values_of(*run1("less_equal", {a, b})), (Doubles{1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(values_of(*run1("greater", {a, b})), (Doubles{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(values_of(*run1("greater_equal", {a, b})), (Doubles{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(values_of(*run1("equal", {a, b})), (Doubles{0, 1, 0, 0, 0, 0}));
  // NaN equals nothing, itself included; -0 equals 0.
  EXPECT_EQ(values_of(*run1("equal", {f32({2}, {kNan, -0.0}), f32({2}, {kNan, 0})})),
            (Doubles{0, 1}));
  EXPECT_EQ(run1("equal", {a, b})->dtype(), DType::boolean);
}

TEST_F(ElementwiseOpsTest, ComparisonsOnIntegersAndBools) {
  // Exact beyond 2^53, where doubles would call these equal.
  std::int64_t big = (std::int64_t{1} << 60) + 1;
  auto a = i64s({2}, {big, -3});
  auto b = i64s({2}, {big - 1, -3});
  EXPECT_EQ(values_of(*run1("equal", {a, b})), (Doubles{0, 1}));
  EXPECT_EQ(values_of(*run1("greater", {a, b})), (Doubles{1, 0}));
  EXPECT_EQ(values_of(*run1("less_equal", {make_tensor(DType::u8, {2}, {200, 3}),
                                           make_tensor(DType::u8, {}, {100})})),
            (Doubles{0, 1}));
  EXPECT_EQ(values_of(*run1("equal", {bools({2, 1}, {1, 0}), bools({2}, {1, 0})})),
            (Doubles{1, 0, 0, 1}));
}

TEST_F(ElementwiseOpsTest, LogicalOps) {
  auto a = bools({2, 1}, {0, 1});
  auto b = bools({2}, {0, 1});
  EXPECT_EQ(values_of(*run1("logical_and", {a, b})), (Doubles{0, 0, 0, 1}));
  EXPECT_EQ(values_of(*run1("logical_or", {a, b})), (Doubles{0, 1, 1, 1}));
  EXPECT_EQ(values_of(*run1("logical_xor", {a, b})), (Doubles{0, 1, 1, 0}));
  EXPECT_EQ(values_of(*run1("logical_not", {bools({3}, {1, 0, 1})})), (Doubles{0, 1, 0}));
}

TEST_F(ElementwiseOpsTest, WhereBroadcastsThreeWays) {
  auto condition = bools({2, 1}, {1, 0});
  auto x = f32({3}, {1, 2, 3});
  auto y = f32({}, {-1});
  EXPECT_EQ(values_of(*run1("where", {condition, x, y})), (Doubles{1, 2, 3, -1, -1, -1}));
  EXPECT_EQ(values_of(*run1("where", {bools({3}, {0, 1, 0}), x, f32({2, 1}, {7, 8})})),
            (Doubles{7, 2, 7, 8, 2, 8}));
  // Elements are copied exactly, i64 beyond 2^53 included.
  std::int64_t big = (std::int64_t{1} << 60) + 1;
  EXPECT_EQ(i64_values(*run1("where", {bools({2}, {1, 0}), i64s({2}, {big, 0}), i64s({}, {-big})})),
            (std::vector<std::int64_t>{big, -big}));
  EXPECT_EQ(values_of(*run1("where", {bools({2}, {1, 0}), bools({}, {0}), bools({}, {1})})),
            (Doubles{0, 1}));
}

// ---- the rest of ONNX's elementwise math ----

TEST_F(ElementwiseOpsTest, StandardMathInferenceErrors) {
  for (const char* name :
       {"sin",      "cos",         "tan",         "asin",    "acos",
        "atan",     "sinh",        "cosh",        "asinh",   "acosh",
        "atanh",    "floor",       "ceil",        "round",   "isnan",
        "isinf",    "nn.softplus", "nn.softsign", "nn.celu", "nn.thresholded_relu",
        "nn.shrink"})
    EXPECT_EQ(error(name, {tensor({2}, DType::i32)}),
              "operand is i32, but only floating-point types (f32, f16, bf16, f64) are supported")
        << name;
  EXPECT_EQ(error("sign", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("floor_mod", {tensor({2}, DType::i32), tensor({2}, DType::i64)}),
            "operands have different dtypes i32 and i64");
  EXPECT_EQ(error("trunc_mod", {tensor({2}, DType::boolean), tensor({2}, DType::boolean)}),
            "operands are bool, but only numbers are supported");
  EXPECT_EQ(error("left_shift", {tensor({2}, DType::i32), tensor({2}, DType::i32)}),
            "operands are i32, but only unsigned integers (u8, u16, u32, u64) are supported");
  EXPECT_EQ(error("right_shift", {tensor({2}), tensor({2})}),
            "operands are f32, but only unsigned integers (u8, u16, u32, u64) are supported");
  EXPECT_EQ(error("isinf", {tensor({2})}, make_attrs({{"detect_positive", 0.5}})),
            "attribute 'detect_positive' of op isinf must be int, not float");
  EXPECT_EQ(infer1("isnan", {tensor({2, 3}, DType::f16)}), tensor({2, 3}, DType::boolean));
  EXPECT_EQ(infer1("floor_mod", {tensor({2, 1}, DType::u8), tensor({3}, DType::u8)}),
            tensor({2, 3}, DType::u8));
}

// Each function against its inverse or an identity it satisfies.
TEST_F(ElementwiseOpsTest, TrigonometricAndHyperbolic) {
  Doubles in = {-0.75, -0.25, 0.125, 0.5};
  auto x = make_tensor(DType::f64, {4}, in);
  auto apply = [&](const char* name, TensorPtr t) { return values_of(*run1(name, {t})); };
  Doubles sin = apply("sin", x), cos = apply("cos", x), tan = apply("tan", x);
  Doubles sinh = apply("sinh", x), cosh = apply("cosh", x);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_NEAR(sin[i] * sin[i] + cos[i] * cos[i], 1, 1e-15);
    EXPECT_NEAR(tan[i], sin[i] / cos[i], 1e-15);
    EXPECT_NEAR(cosh[i] * cosh[i] - sinh[i] * sinh[i], 1, 1e-14);
  }
  auto f64 = [](const Doubles& v) {
    return make_tensor(DType::f64, {static_cast<std::int64_t>(v.size())}, v);
  };
  for (auto [forward, inverse] :
       {std::pair{"sin", "asin"}, std::pair{"cos", "acos"}, std::pair{"tan", "atan"},
        std::pair{"sinh", "asinh"}, std::pair{"tanh", "atanh"}}) {
    Doubles back = apply(inverse, f64(apply(forward, x)));
    for (std::size_t i = 0; i < in.size(); ++i)
      EXPECT_NEAR(back[i], std::string_view(forward) == "cos" ? std::fabs(in[i]) : in[i], 1e-14)
          << inverse;
  }
  Doubles acosh = apply("acosh", f64(cosh));
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(acosh[i], std::fabs(in[i]), 1e-7);
  // Outside their domains the inverses are NaN.
  for (const char* name : {"asin", "acos", "atanh", "acosh"})
    EXPECT_TRUE(std::isnan(apply(name, f32({1}, {-2}))[0])) << name;
}

TEST_F(ElementwiseOpsTest, RoundingAndSign) {
  auto x = f32({7}, {0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6});
  // Halves round to even.
  EXPECT_EQ(values_of(*run1("round", {x})), (Doubles{0, 2, 2, 0, -2, 2, -3}));
  EXPECT_EQ(values_of(*run1("floor", {x})), (Doubles{0, 1, 2, -1, -2, 2, -3}));
  EXPECT_EQ(values_of(*run1("ceil", {x})), (Doubles{1, 2, 3, 0, -1, 3, -2}));
  Doubles sign = values_of(*run1("sign", {f32({5}, {-3, 0, 2.5, -kInf, kNan})}));
  EXPECT_EQ(Doubles(sign.begin(), sign.begin() + 4), (Doubles{-1, 0, 1, -1}));
  EXPECT_TRUE(std::isnan(sign[4]));
  EXPECT_EQ(values_of(*run1("sign", {make_tensor(DType::i8, {3}, {-128, 0, 5})})),
            (Doubles{-1, 0, 1}));
  EXPECT_EQ(values_of(*run1("sign", {make_tensor(DType::u8, {2}, {0, 200})})), (Doubles{0, 1}));
}

// floor_mod takes the divisor's sign (Python's %), trunc_mod the dividend's (C's fmod).
TEST_F(ElementwiseOpsTest, Mod) {
  auto a = make_tensor(DType::i32, {4}, {7, -7, 7, -7});
  auto b = make_tensor(DType::i32, {4}, {3, 3, -3, -3});
  EXPECT_EQ(values_of(*run1("floor_mod", {a, b})), (Doubles{1, 2, -2, -1}));
  EXPECT_EQ(values_of(*run1("trunc_mod", {a, b})), (Doubles{1, -1, 1, -1}));
  auto x = f32({4}, {5.5, -5.5, 5.5, -5.5});
  auto y = f32({4}, {2, 2, -2, -2});
  EXPECT_EQ(values_of(*run1("floor_mod", {x, y})), (Doubles{1.5, 0.5, -0.5, -1.5}));
  EXPECT_EQ(values_of(*run1("trunc_mod", {x, y})), (Doubles{1.5, -1.5, 1.5, -1.5}));
  // u64 from 2^63 on divides unsigned: (2^63 + 4096) mod 10 is 4.
  EXPECT_EQ(values_of(*run1("floor_mod", {make_tensor(DType::u64, {1}, {0x1p63 + 4096}),
                                          make_tensor(DType::u64, {1}, {10})})),
            (Doubles{4}));
  // The least i8 by -1 leaves no remainder.
  EXPECT_EQ(values_of(*run1("floor_mod", {make_tensor(DType::i8, {1}, {-128}),
                                          make_tensor(DType::i8, {1}, {-1})})),
            (Doubles{0}));
  EXPECT_EQ(run_error("floor_mod", {a, make_tensor(DType::i32, {}, {0})}),
            "integer division by zero");
  EXPECT_EQ(run_error("trunc_mod", {a, make_tensor(DType::i32, {}, {0})}),
            "integer division by zero");
}

TEST_F(ElementwiseOpsTest, ShiftsLeaveAtTheWidth) {
  auto u8 = [](const Doubles& v) {
    return make_tensor(DType::u8, {static_cast<std::int64_t>(v.size())}, v);
  };
  EXPECT_EQ(values_of(*run1("left_shift", {u8({1, 255, 3, 1}), u8({3, 1, 8, 7})})),
            (Doubles{8, 254, 0, 128}));
  EXPECT_EQ(values_of(*run1("right_shift", {u8({16, 255, 3, 128}), u8({2, 7, 9, 0})})),
            (Doubles{4, 1, 0, 128}));
  EXPECT_EQ(values_of(*run1("left_shift", {make_tensor(DType::u64, {2}, {1, 1}),
                                           make_tensor(DType::u64, {2}, {63, 64})})),
            (Doubles{0x1p63, 0}));
}

TEST_F(ElementwiseOpsTest, IsNanAndIsInf) {
  auto x = f32({4}, {kNan, kInf, -kInf, 1});
  EXPECT_EQ(values_of(*run1("isnan", {x})), (Doubles{1, 0, 0, 0}));
  EXPECT_EQ(values_of(*run1("isinf", {x})), (Doubles{0, 1, 1, 0}));
  EXPECT_EQ(values_of(*run1("isinf", {x}, make_attrs({{"detect_negative", std::int64_t{0}}}))),
            (Doubles{0, 1, 0, 0}));
  EXPECT_EQ(values_of(*run1("isinf", {x}, make_attrs({{"detect_positive", std::int64_t{0}}}))),
            (Doubles{0, 0, 1, 0}));
}

TEST_F(ElementwiseOpsTest, SoftplusSoftsignCeluThresholdedReluShrink) {
  Doubles softplus =
      values_of(*run1("nn.softplus", {make_tensor(DType::f64, {4}, {-800, 0, 800, 1})}));
  EXPECT_EQ(softplus[0], 0);
  EXPECT_DOUBLE_EQ(softplus[1], std::log(2.0));
  EXPECT_EQ(softplus[2], 800);  // no overflow of exp(800)
  EXPECT_NEAR(softplus[3], std::log(1 + std::exp(1.0)), 1e-15);
  EXPECT_EQ(values_of(*run1("nn.softsign", {f32({3}, {-3, 0, 1})})), (Doubles{-0.75, 0, 0.5}));
  Doubles celu = values_of(
      *run1("nn.celu", {make_tensor(DType::f64, {3}, {-2, 0, 3})}, make_attrs({{"alpha", 2.0}})));
  EXPECT_EQ(celu, (Doubles{2 * std::expm1(-1.0), 0, 3}));
  EXPECT_EQ(values_of(*run1("nn.thresholded_relu", {f32({3}, {0.5, 1, 2})})), (Doubles{0, 0, 2}));
  EXPECT_EQ(values_of(*run1("nn.shrink", {f32({5}, {-2, -1, 0, 1, 2})},
                            make_attrs({{"bias", 0.5}, {"lambd", 1.0}}))),
            (Doubles{-1.5, 0, 0, 0, 1.5}));
}

}  // namespace
}  // namespace uma
