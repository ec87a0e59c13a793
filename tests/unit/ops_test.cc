// Unit tests of the op families: schemas, shape inference (every error message exactly)
// and reference kernels checked against independently computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "op_test_fixture.h"

namespace uma {
namespace {

using test::f32;
using test::make_attrs;
using test::make_tensor;
using test::values_of;
using Ints = std::vector<std::int64_t>;

Type tensor(Shape shape, DType dtype = DType::f32) {
  return test::tensor_type(std::move(shape), dtype);
}

class OpsTest : public test::OpTest {};

// ---- elementwise ----

TEST_F(OpsTest, ElementwiseCategoryAndSchema) {
  for (const char* name : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "nn.relu",
                           "negative", "sigmoid", "tanh", "exp"}) {
    EXPECT_EQ(op(name).fusion, FusionCategory::kElementwise) << name;
    EXPECT_TRUE(op(name).attrs.empty()) << name;
  }
  EXPECT_EQ(op("nn.conv2d").fusion, FusionCategory::kAnchor);
  EXPECT_EQ(op("reshape").fusion, FusionCategory::kInjective);
  EXPECT_EQ(op("add").min_inputs, 2);
  EXPECT_EQ(op("add").max_inputs, 2);
  EXPECT_EQ(op("exp").max_inputs, 1);
}

TEST_F(OpsTest, BroadcastShapes) {
  EXPECT_EQ(infer("add", {tensor({2, 3}), tensor({3})})[0], tensor({2, 3}));
  EXPECT_EQ(infer("add", {tensor({4, 1, 3}), tensor({2, 1})})[0], tensor({4, 2, 3}));
  EXPECT_EQ(infer("add", {tensor({}), tensor({5})})[0], tensor({5}));
  EXPECT_EQ(infer("add", {tensor({0, 3}), tensor({1, 3})})[0], tensor({0, 3}));
  EXPECT_EQ(infer("minimum", {tensor({2}, DType::i8), tensor({2}, DType::i8)})[0],
            tensor({2}, DType::i8));
}

TEST_F(OpsTest, ElementwiseInferenceErrors) {
  EXPECT_EQ(error("add", {tensor({2, 3}), tensor({4, 3})}),
            "operands have incompatible shapes 2x3 and 4x3 (dimension 0: 2 vs 4)");
  EXPECT_EQ(error("multiply", {tensor({5, 2, 3}), tensor({4, 3})}),
            "operands have incompatible shapes 5x2x3 and 4x3 (dimension 1: 2 vs 4)");
  EXPECT_EQ(error("add", {tensor({2}), tensor({2}, DType::i64)}),
            "operands have different dtypes f32 and i64");
  EXPECT_EQ(error("maximum", {tensor({2}, DType::boolean), tensor({2}, DType::boolean)}),
            "operands are bool, but only numbers are supported");
  EXPECT_EQ(error("nn.relu", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("sigmoid", {tensor({2}, DType::i32)}),
            "operand is i32, but only floating-point types (f32, f16, bf16, f64) are supported");
  EXPECT_EQ(error("add", {tensor({2}), TupleType{{tensor({2})}}}),
            "operand 1 is tuple<tensor<2xf32>>, not a tensor");
  EXPECT_EQ(error("add", {tensor({2})}), "op add takes 2 operand(s), got 1");
  EXPECT_EQ(error("add", {tensor({1, 1LL << 32}), tensor({1LL << 32, 1})}),
            "result: shape 4294967296x4294967296 has more elements than fit in 64 bits");
  EXPECT_EQ(error("add", {tensor({2}), tensor({2})}, make_attrs({{"axis", std::int64_t{1}}})),
            "unknown attribute 'axis' for op add");
}

TEST_F(OpsTest, InferenceErrorsGetTheNodeLocation) {
  Module m(ctx);
  Function* f = *m.add_function("main");
  Builder b(*f);
  Value* x = f->add_param(tensor({2, 3}), "x");
  Value* y = f->add_param(tensor({4, 3}), "y");
  auto node = b.try_create("add", {x, y}, {}, "sum");
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(
      node.error().message(),
      "node 'sum' (add): operands have incompatible shapes 2x3 and 4x3 (dimension 0: 2 vs 4)");
}

TEST_F(OpsTest, BinaryKernelsBroadcast) {
  auto a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto row = f32({3}, {10, 20, 30});
  auto column = f32({2, 1}, {100, 200});
  EXPECT_EQ(values_of(*run1("add", {a, row})), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values_of(*run1("subtract", {a, column})),
            (std::vector<double>{-99, -98, -97, -196, -195, -194}));
  EXPECT_EQ(values_of(*run1("multiply", {row, column})),
            (std::vector<double>{1000, 2000, 3000, 2000, 4000, 6000}));
  EXPECT_EQ(values_of(*run1("divide", {a, f32({}, {4})})),
            (std::vector<double>{0.25, 0.5, 0.75, 1, 1.25, 1.5}));
  EXPECT_EQ(values_of(*run1("maximum", {a, f32({3}, {2, 2, 7})})),
            (std::vector<double>{2, 2, 7, 4, 5, 7}));
  EXPECT_EQ(values_of(*run1("minimum", {a, f32({3}, {2, 2, 7})})),
            (std::vector<double>{1, 2, 3, 2, 2, 6}));
}

TEST_F(OpsTest, FloatKernelEdgeCases) {
  double nan = std::nan("");
  auto x = f32({3}, {nan, 1, -1});
  auto zero = f32({3}, {0, 0, 0});
  std::vector<double> max = values_of(*run1("maximum", {x, zero}));
  EXPECT_TRUE(std::isnan(max[0]));
  EXPECT_EQ(max[1], 1);
  EXPECT_TRUE(std::isnan(values_of(*run1("minimum", {zero, x}))[0]));
  std::vector<double> relu = values_of(*run1("nn.relu", {x}));
  EXPECT_TRUE(std::isnan(relu[0]));
  EXPECT_EQ(relu[2], 0);
  std::vector<double> quotient = values_of(*run1("divide", {f32({2}, {1, -1}), f32({2}, {0, 0})}));
  EXPECT_EQ(quotient[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(quotient[1], -std::numeric_limits<double>::infinity());
  // f32 arithmetic is rounded like the hardware's: 1 + 2^-24 is 1 in f32.
  EXPECT_EQ(values_of(*run1("add", {f32({1}, {1}), f32({1}, {std::ldexp(1.0, -24)})}))[0], 1.0);
}

TEST_F(OpsTest, UnaryKernels) {
  std::vector<double> in = {-2, -0.5, 0, 0.75, 3};
  auto x = f32({5}, in);
  std::vector<double> relu = values_of(*run1("nn.relu", {x}));
  std::vector<double> negative = values_of(*run1("negative", {x}));
  std::vector<double> sigmoid = values_of(*run1("sigmoid", {x}));
  std::vector<double> tanh = values_of(*run1("tanh", {x}));
  std::vector<double> exp = values_of(*run1("exp", {x}));
  EXPECT_EQ(relu, (std::vector<double>{0, 0, 0, 0.75, 3}));
  EXPECT_EQ(negative, (std::vector<double>{2, 0.5, 0, -0.75, -3}));
  EXPECT_EQ(sigmoid[2], 0.5);
  for (std::size_t i = 0; i < in.size(); ++i) {
    // sigmoid(x) = (1 + tanh(x/2)) / 2: a different formula from the kernel's.
    EXPECT_NEAR(sigmoid[i], (1 + std::tanh(in[i] / 2)) / 2, 1e-7);
    EXPECT_FLOAT_EQ(tanh[i], static_cast<float>(std::sinh(in[i]) / std::cosh(in[i])));
    EXPECT_FLOAT_EQ(exp[i], static_cast<float>(std::pow(std::exp(1.0), in[i])));
  }
  EXPECT_EQ(values_of(*run1("sigmoid", {f32({2}, {-1000, 1000})})), (std::vector<double>{0, 1}));
}

TEST_F(OpsTest, IntegerKernels) {
  auto a = make_tensor(DType::i32, {4}, {-7, 7, 9, -9});
  auto b = make_tensor(DType::i32, {4}, {2, 2, -4, -4});
  // Division truncates toward zero.
  EXPECT_EQ(values_of(*run1("divide", {a, b})), (std::vector<double>{-3, 3, -2, 2}));
  EXPECT_EQ(values_of(*run1("nn.relu", {a})), (std::vector<double>{0, 7, 9, 0}));
  // Integers wrap modulo 2^bits.
  auto i8 = make_tensor(DType::i8, {2}, {127, -128});
  EXPECT_EQ(values_of(*run1("add", {i8, make_tensor(DType::i8, {2}, {1, -1})})),
            (std::vector<double>{-128, 127}));
  EXPECT_EQ(values_of(*run1("negative", {i8})), (std::vector<double>{-127, -128}));
  auto u8 = make_tensor(DType::u8, {2}, {3, 250});
  EXPECT_EQ(values_of(*run1("subtract", {u8, make_tensor(DType::u8, {2}, {5, 0})})),
            (std::vector<double>{254, 250}));
  // i64 stays exact beyond 2^53, where a double would round.
  auto big = std::make_shared<Tensor>(TensorType{DType::i64, {2}});
  big->data<std::int64_t>()[0] = (1LL << 60) + 1;
  big->data<std::int64_t>()[1] = std::numeric_limits<std::int64_t>::min();
  auto one = std::make_shared<Tensor>(TensorType{DType::i64, {}});
  one->data<std::int64_t>()[0] = -1;
  TensorPtr sum = run1("subtract", {big, one});
  EXPECT_EQ(sum->data<std::int64_t>()[0], (1LL << 60) + 2);
  EXPECT_EQ(sum->data<std::int64_t>()[1], std::numeric_limits<std::int64_t>::min() + 1);
  TensorPtr quotient = run1("divide", {big, one});
  EXPECT_EQ(quotient->data<std::int64_t>()[0], -(1LL << 60) - 1);
  EXPECT_EQ(quotient->data<std::int64_t>()[1], std::numeric_limits<std::int64_t>::min());
}

TEST_F(OpsTest, IntegerDivisionByZeroIsAnError) {
  auto a = make_tensor(DType::i32, {2}, {1, 2});
  auto result = try_run("divide", {a, make_tensor(DType::i32, {2}, {1, 0})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "integer division by zero");
}

TEST_F(OpsTest, HalfPrecisionRoundsToTheDtype) {
  auto a = make_tensor(DType::f16, {2}, {1.5, 2048});
  auto b = make_tensor(DType::f16, {2}, {0.25, 1});
  TensorPtr sum = run1("add", {a, b});
  EXPECT_EQ(sum->dtype(), DType::f16);
  // 2049 is not an f16 value; round to nearest even gives 2048.
  EXPECT_EQ(values_of(*sum), (std::vector<double>{1.75, 2048}));
  auto bf = make_tensor(DType::bf16, {1}, {2});
  EXPECT_EQ(values_of(*run1("multiply", {bf, bf})), (std::vector<double>{4}));
}

// ---- nn.conv2d ----

TEST_F(OpsTest, Conv2dSchema) {
  const OpDef& conv = op("nn.conv2d");
  EXPECT_EQ(conv.min_inputs, 2);
  EXPECT_EQ(conv.max_inputs, 3);
  AttrMap attrs;
  ASSERT_TRUE(conv.normalize_attrs(attrs).ok());
  EXPECT_EQ(attrs.get_ints("strides"), (Ints{1, 1}));
  EXPECT_EQ(attrs.get_ints("padding"), (Ints{0, 0, 0, 0}));
  EXPECT_EQ(attrs.get_ints("dilation"), (Ints{1, 1}));
  EXPECT_EQ(attrs.get_int("groups"), 1);
  EXPECT_EQ(infer("nn.conv2d", {tensor({1, 3, 8, 8}), tensor({4, 3, 3, 3})},
                  make_attrs({{"padding", Ints{1, 1, 1, 1}}}))[0],
            tensor({1, 4, 8, 8}));
  EXPECT_EQ(infer("nn.conv2d", {tensor({2, 8, 9, 7}), tensor({6, 4, 3, 2}), tensor({6})},
                  make_attrs({{"strides", Ints{2, 3}},
                              {"padding", Ints{1, 0, 0, 2}},
                              {"dilation", Ints{2, 1}},
                              {"groups", std::int64_t{2}}}))[0],
            // height (9 + 1 + 0 - 5) / 2 + 1 = 3, width (7 + 0 + 2 - 2) / 3 + 1 = 3
            tensor({2, 6, 3, 3}));
}

TEST_F(OpsTest, Conv2dInferenceErrors) {
  Type data = tensor({1, 8, 5, 5});
  Type weight = tensor({4, 8, 3, 3});
  auto conv_error = [&](AttrMap attrs) { return error("nn.conv2d", {data, weight}, attrs); };
  EXPECT_EQ(error("nn.conv2d", {tensor({8, 5, 5}), weight}),
            "data must have rank 4 (NCHW), got tensor<8x5x5xf32>");
  EXPECT_EQ(error("nn.conv2d", {data, tensor({4, 8, 3})}),
            "weight must have rank 4 (OIHW), got tensor<4x8x3xf32>");
  EXPECT_EQ(error("nn.conv2d", {tensor({1, 8, 5, 5}, DType::i8), tensor({4, 8, 3, 3}, DType::i8)}),
            "data is i8, but only floating-point types (f32, f16, bf16) and i32 are supported");
  EXPECT_EQ(error("nn.conv2d", {data, tensor({4, 8, 3, 3}, DType::f16)}),
            "weight is f16, but data is f32");
  EXPECT_EQ(error("nn.conv2d", {data, weight, tensor({4}, DType::bf16)}),
            "bias is bf16, but data is f32");
  EXPECT_EQ(error("nn.conv2d", {data, weight, tensor({1, 4})}),
            "bias has shape 1x4, but must have shape 4 (one value per output channel)");
  EXPECT_EQ(error("nn.conv2d", {data, weight, tensor({8})}),
            "bias has shape 8, but must have shape 4 (one value per output channel)");
  EXPECT_EQ(conv_error(make_attrs({{"strides", Ints{1, 1, 1}}})),
            "attribute 'strides' must have 2 values, got 3");
  EXPECT_EQ(conv_error(make_attrs({{"strides", Ints{1, 0}}})),
            "attribute 'strides' must be positive, got [1, 0]");
  EXPECT_EQ(conv_error(make_attrs({{"padding", Ints{1, 1}}})),
            "attribute 'padding' must have 4 values (top, left, bottom, right), got 2");
  EXPECT_EQ(conv_error(make_attrs({{"padding", Ints{0, -1, 0, 0}}})),
            "attribute 'padding' must be non-negative, got [0, -1, 0, 0]");
  EXPECT_EQ(conv_error(make_attrs({{"dilation", Ints{}}})),
            "attribute 'dilation' must have 2 values, got 0");
  EXPECT_EQ(conv_error(make_attrs({{"dilation", Ints{-1, 1}}})),
            "attribute 'dilation' must be positive, got [-1, 1]");
  EXPECT_EQ(conv_error(make_attrs({{"groups", std::int64_t{0}}})),
            "attribute 'groups' must be positive, got 0");
  EXPECT_EQ(conv_error(make_attrs({{"groups", std::int64_t{3}}})),
            "attribute 'groups' is 3 but input channels 8 are not divisible by it");
  EXPECT_EQ(error("nn.conv2d", {data, tensor({4, 4, 3, 3})}),
            "weight has 4 input channels per group, data has 8 / groups 1 = 8");
  EXPECT_EQ(
      error("nn.conv2d", {data, tensor({6, 2, 3, 3})}, make_attrs({{"groups", std::int64_t{4}}})),
      "attribute 'groups' is 4 but output channels 6 are not divisible by it");
  EXPECT_EQ(error("nn.conv2d", {data, tensor({4, 8, 0, 3})}), "weight has an empty kernel 0x3");
  EXPECT_EQ(error("nn.conv2d", {tensor({1, 8, 2, 2}), tensor({4, 8, 4, 1})}),
            "output height would be -1 (input 2, padding 0+0, kernel 4, dilation 1, stride 1)");
  // Floor division: (2 - 5) / 2 rounds down to -2, so the width would be -1, not 0.
  EXPECT_EQ(error("nn.conv2d", {tensor({1, 8, 5, 2}), tensor({4, 8, 1, 5})},
                  make_attrs({{"strides", Ints{1, 2}}})),
            "output width would be -1 (input 2, padding 0+0, kernel 5, dilation 1, stride 2)");
  EXPECT_EQ(conv_error(make_attrs({{"dilation", Ints{3, 1}}})),
            "output height would be -1 (input 5, padding 0+0, kernel 3, dilation 3, stride 1)");
  EXPECT_EQ(
      conv_error(make_attrs(
          {{"dilation", Ints{3, 1}}, {"strides", Ints{2, 1}}, {"padding", Ints{1, 0, 0, 0}}})),
      "output height would be 0 (input 5, padding 1+0, kernel 3, dilation 3, stride 2)");
  std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(conv_error(make_attrs({{"padding", Ints{huge, 0, 1, 0}}})),
            fmt::format("output height overflows int64 (input 5, padding {}+1, kernel 3, "
                        "dilation 1, stride 1)",
                        huge));
  EXPECT_EQ(conv_error(make_attrs({{"dilation", Ints{1, huge}}})),
            fmt::format("output width overflows int64 (input 5, padding 0+0, kernel 3, "
                        "dilation {}, stride 1)",
                        huge));
  EXPECT_EQ(conv_error(make_attrs({{"padding", Ints{0, 0, huge / 2, huge / 2}}})),
            fmt::format("result: shape 1x4x{}x{} has more elements than fit in 64 bits",
                        huge / 2 + 3, huge / 2 + 3));
  EXPECT_EQ(conv_error(make_attrs({{"strides", std::int64_t{1}}})),
            "attribute 'strides' of op nn.conv2d must be ints, not int");
  EXPECT_EQ(error("nn.conv2d", {data}), "op nn.conv2d takes 2 to 3 operands, got 1");
}

TEST_F(OpsTest, Conv2dHandComputed) {
  auto data = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto weight = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  // out[y][x] = in[y][x] + 2 in[y][x+1] + 3 in[y+1][x] + 4 in[y+1][x+1]
  EXPECT_EQ(values_of(*run1("nn.conv2d", {data, weight})), (std::vector<double>{37, 47, 67, 77}));
  EXPECT_EQ(values_of(*run1("nn.conv2d", {data, weight, f32({1}, {0.5})})),
            (std::vector<double>{37.5, 47.5, 67.5, 77.5}));
  // Padding 1 all round, stride 2: windows start at rows/columns -1 and 1.
  TensorPtr padded = run1("nn.conv2d", {data, weight},
                          make_attrs({{"padding", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}));
  EXPECT_EQ(padded->shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values_of(*padded), (std::vector<double>{4, 18, 36, 77}));
  // Dilation 2 spreads the 2x2 kernel over the corners of the 3x3 input.
  EXPECT_EQ(values_of(*run1("nn.conv2d", {data, weight}, make_attrs({{"dilation", Ints{2, 2}}}))),
            (std::vector<double>{1 + 2 * 3 + 3 * 7 + 4 * 9}));
  // f16 gives the same numbers (all exact in f16).
  auto data16 = make_tensor(DType::f16, {1, 1, 3, 3}, values_of(*data));
  auto weight16 = make_tensor(DType::f16, {1, 1, 2, 2}, values_of(*weight));
  TensorPtr half = run1("nn.conv2d", {data16, weight16});
  EXPECT_EQ(half->dtype(), DType::f16);
  EXPECT_EQ(values_of(*half), (std::vector<double>{37, 47, 67, 77}));
}

struct ConvCase {
  Shape data, weight;
  Ints strides, padding, dilation;
  std::int64_t groups;
  bool bias;
};

std::shared_ptr<Tensor> random_f32(Shape shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
  for (std::int64_t i = 0; i < t->num_elements(); ++i) t->set(i, uniform(rng));
  return t;
}

// Convolution as im2col + matrix multiply over an explicitly zero-padded copy of the
// input, per group: a formulation independent of the kernel's direct loops.
std::vector<double> im2col_conv(const Tensor& x, const Tensor& w, const Tensor* b,
                                const ConvCase& c, std::int64_t out_h, std::int64_t out_w) {
  const std::int64_t n_ = x.shape()[0], ch = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  const std::int64_t oc = w.shape()[0], cg = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  const std::int64_t ph = h + c.padding[0] + c.padding[2], pw = wd + c.padding[1] + c.padding[3];
  std::vector<double> padded(n_ * ch * ph * pw, 0.0);
  for (std::int64_t n = 0; n < n_; ++n)
    for (std::int64_t i = 0; i < ch; ++i)
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t z = 0; z < wd; ++z)
          padded[((n * ch + i) * ph + y + c.padding[0]) * pw + z + c.padding[1]] =
              x.get(((n * ch + i) * h + y) * wd + z);

  const std::int64_t og = oc / c.groups, k = cg * kh * kw, rows = n_ * out_h * out_w;
  std::vector<double> out(n_ * oc * out_h * out_w);
  for (std::int64_t g = 0; g < c.groups; ++g) {
    std::vector<double> columns(rows * k);
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t n = r / (out_h * out_w), oy = r / out_w % out_h, ox = r % out_w;
      for (std::int64_t col = 0; col < k; ++col) {
        std::int64_t i = col / (kh * kw), ky = col / kw % kh, kx = col % kw;
        std::int64_t py = oy * c.strides[0] + ky * c.dilation[0];
        std::int64_t px = ox * c.strides[1] + kx * c.dilation[1];
        columns[r * k + col] = padded[((n * ch + g * cg + i) * ph + py) * pw + px];
      }
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t n = r / (out_h * out_w), pixel = r % (out_h * out_w);
      for (std::int64_t o = g * og; o < (g + 1) * og; ++o) {
        double sum = b ? b->get(o) : 0.0;
        for (std::int64_t col = 0; col < k; ++col) sum += columns[r * k + col] * w.get(o * k + col);
        out[(n * oc + o) * out_h * out_w + pixel] = sum;
      }
    }
  }
  return out;
}

TEST_F(OpsTest, Conv2dMatchesIm2col) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 7, 6}, {4, 3, 3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false},
      {{2, 3, 8, 7}, {5, 3, 3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 1}, 1, true},
      {{1, 4, 9, 9}, {6, 2, 3, 3}, {1, 2}, {2, 2, 2, 2}, {2, 3}, 2, true},
      {{2, 6, 6, 5}, {6, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 6, true},  // depthwise
      {{1, 4, 5, 5}, {8, 4, 1, 1}, {3, 3}, {0, 1, 0, 1}, {1, 1}, 1, false},
  };
  std::mt19937 rng(7);
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(fmt::format("data {} weight {} groups {}", to_string(c.data), to_string(c.weight),
                             c.groups));
    auto x = random_f32(c.data, rng);
    auto w = random_f32(c.weight, rng);
    auto b = random_f32({c.weight[0]}, rng);
    std::vector<TensorPtr> inputs = {x, w};
    if (c.bias) inputs.push_back(b);
    TensorPtr out = run1("nn.conv2d", inputs,
                         make_attrs({{"strides", c.strides},
                                     {"padding", c.padding},
                                     {"dilation", c.dilation},
                                     {"groups", c.groups}}));
    ASSERT_NE(out, nullptr);
    std::int64_t out_h =
        (c.data[2] + c.padding[0] + c.padding[2] - c.dilation[0] * (c.weight[2] - 1) - 1) /
            c.strides[0] +
        1;
    std::int64_t out_w =
        (c.data[3] + c.padding[1] + c.padding[3] - c.dilation[1] * (c.weight[3] - 1) - 1) /
            c.strides[1] +
        1;
    ASSERT_EQ(out->shape(), (Shape{c.data[0], c.weight[0], out_h, out_w}));
    std::vector<double> expected = im2col_conv(*x, *w, c.bias ? b.get() : nullptr, c, out_h, out_w);
    std::vector<double> actual = values_of(*out);
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(actual[i], expected[i], 1e-5) << i;
  }
}

// ---- nn.dense ----

TEST_F(OpsTest, DenseHandComputed) {
  auto data = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto weight = f32({2, 3}, {1, 0, -1, 0.5, 0.5, 0.5});
  auto bias = f32({2}, {10, 20});
  EXPECT_EQ(values_of(*run1("nn.dense", {data, weight})), (std::vector<double>{-2, 3, -2, 7.5}));
  EXPECT_EQ(values_of(*run1("nn.dense", {data, weight, bias})),
            (std::vector<double>{8, 23, 8, 27.5}));
  TensorPtr batched = run1("nn.dense", {f32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), weight});
  EXPECT_EQ(batched->shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(values_of(*batched), (std::vector<double>{-2, 3, -2, 7.5}));
  TensorPtr vector = run1("nn.dense", {f32({3}, {1, 2, 3}), weight});
  EXPECT_EQ(vector->shape(), (Shape{2}));
  EXPECT_EQ(values_of(*vector), (std::vector<double>{-2, 3}));
  // No input features: the result is the bias.
  EXPECT_EQ(values_of(*run1("nn.dense", {f32({2, 0}, {}), f32({2, 0}, {}), bias})),
            (std::vector<double>{10, 20, 10, 20}));
}

TEST_F(OpsTest, DenseInferenceErrors) {
  EXPECT_TRUE(op("nn.dense").attrs.empty());
  EXPECT_EQ(error("nn.dense", {tensor({}), tensor({2, 3})}),
            "data must have rank 1 or more ([..., input features]), got tensor<f32>");
  EXPECT_EQ(error("nn.dense", {tensor({4, 3}), tensor({3})}),
            "weight must have rank 2 ([units, input features]), got tensor<3xf32>");
  EXPECT_EQ(error("nn.dense", {tensor({4, 3}), tensor({2, 5})}),
            "weight has 5 input features (dimension 1), data has 3 (its last dimension)");
  EXPECT_EQ(error("nn.dense", {tensor({4, 3}), tensor({2, 3}), tensor({3})}),
            "bias has shape 3, but must have shape 2 (one value per unit)");
  EXPECT_EQ(error("nn.dense", {tensor({4, 3}, DType::i32), tensor({2, 3}, DType::i32)}),
            "data is i32, but only floating-point types (f32, f16, bf16) are supported");
  EXPECT_EQ(error("nn.dense", {tensor({4, 3}), tensor({2, 3}), tensor({2}, DType::f16)}),
            "bias is f16, but data is f32");
}

// ---- split ----

TEST_F(OpsTest, Split) {
  AttrMap defaults;
  ASSERT_TRUE(op("split").normalize_attrs(defaults).ok());
  EXPECT_EQ(defaults.get_int("axis"), 0);
  EXPECT_EQ(defaults.get_int("sections"), 0);
  EXPECT_EQ(defaults.get_ints("sizes"), Ints{});
  auto x = f32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  std::vector<TensorPtr> halves =
      run("split", {x}, make_attrs({{"axis", std::int64_t{1}}, {"sections", std::int64_t{2}}}));
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_EQ(halves[0]->shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of(*halves[0]), (std::vector<double>{0, 1, 4, 5}));
  EXPECT_EQ(values_of(*halves[1]), (std::vector<double>{2, 3, 6, 7}));
  std::vector<TensorPtr> parts =
      run("split", {x}, make_attrs({{"axis", std::int64_t{-1}}, {"sizes", Ints{1, 0, 3}}}));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1]->shape(), (Shape{2, 0}));
  EXPECT_EQ(values_of(*parts[0]), (std::vector<double>{0, 4}));
  EXPECT_EQ(values_of(*parts[2]), (std::vector<double>{1, 2, 3, 5, 6, 7}));
  std::vector<TensorPtr> rows = run("split", {x}, make_attrs({{"sections", std::int64_t{2}}}));
  EXPECT_EQ(values_of(*rows[1]), (std::vector<double>{4, 5, 6, 7}));
}

TEST_F(OpsTest, SplitInferenceErrors) {
  Type x = tensor({2, 6});
  auto split_error = [&](AttrMap attrs) { return error("split", {x}, attrs); };
  EXPECT_EQ(
      split_error({}),
      "give attribute 'sections' (a number of equal parts) or 'sizes' (the size of each part)");
  EXPECT_EQ(split_error(make_attrs({{"sections", std::int64_t{2}}, {"sizes", Ints{1, 1}}})),
            "attributes 'sections' and 'sizes' exclude each other; give one");
  EXPECT_EQ(split_error(make_attrs({{"sections", std::int64_t{-2}}})),
            "attribute 'sections' must be positive, got -2");
  EXPECT_EQ(split_error(make_attrs({{"axis", std::int64_t{1}}, {"sections", std::int64_t{4}}})),
            "attribute 'sections' is 4, but dimension 1 (size 6) is not divisible by it");
  EXPECT_EQ(split_error(make_attrs({{"sections", std::int64_t{1} << 40}})),
            "attribute 'sections' is 1099511627776, but dimension 0 has only 2 element(s)");
  EXPECT_EQ(split_error(make_attrs({{"axis", std::int64_t{1}}, {"sizes", Ints{7, -1}}})),
            "attribute 'sizes' must not be negative, got [7, -1]");
  EXPECT_EQ(split_error(make_attrs({{"axis", std::int64_t{1}}, {"sizes", Ints{2, 3}}})),
            "attribute 'sizes' [2, 3] does not add up to dimension 1 (size 6)");
  std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(
      split_error(make_attrs({{"sizes", Ints{huge, huge}}})),
      fmt::format("attribute 'sizes' [{0}, {0}] does not add up to dimension 0 (size 2)", huge));
  EXPECT_EQ(split_error(make_attrs({{"axis", std::int64_t{2}}, {"sections", std::int64_t{1}}})),
            "attribute 'axis' is 2, but the valid range for rank 2 is [-2, 1]");
  EXPECT_EQ(error("split", {tensor({})}, make_attrs({{"sections", std::int64_t{1}}})),
            "attribute 'axis' is 0, but a scalar has no axes");
}

// ---- reshape ----

TEST_F(OpsTest, Reshape) {
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorPtr y = run1("reshape", {x}, make_attrs({{"newshape", Ints{3, -1}}}));
  EXPECT_EQ(y->shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(*y), values_of(*x));
  EXPECT_EQ(infer("reshape", {tensor({2, 3, 4})}, make_attrs({{"newshape", Ints{0, -1}}}))[0],
            tensor({2, 12}));
  EXPECT_EQ(infer("reshape", {tensor({2, 3, 4})}, make_attrs({{"newshape", Ints{-1, 0, 1}}}))[0],
            tensor({8, 3, 1}));
  EXPECT_EQ(infer("reshape", {tensor({1, 1})}, make_attrs({{"newshape", Ints{}}}))[0], tensor({}));
  EXPECT_EQ(infer("reshape", {tensor({0, 3})}, make_attrs({{"newshape", Ints{0, 1, 3}}}))[0],
            tensor({0, 1, 3}));
}

TEST_F(OpsTest, ReshapeInferenceErrors) {
  Type x = tensor({2, 3});
  auto reshape_error = [&](Ints newshape) {
    return error("reshape", {x}, make_attrs({{"newshape", newshape}}));
  };
  EXPECT_EQ(error("reshape", {x}), "op reshape requires attribute 'newshape'");
  EXPECT_EQ(reshape_error({-1, -1}), "attribute 'newshape' [-1, -1] has more than one -1");
  EXPECT_EQ(reshape_error({2, -3}),
            "attribute 'newshape' has -3 at index 1; a dimension is positive, 0 (copy the "
            "input's) or -1 (inferred)");
  EXPECT_EQ(reshape_error({1, 1, 0}),
            "attribute 'newshape' has 0 at index 2, but the input has rank 2");
  EXPECT_EQ(reshape_error({4, 2}),
            "cannot reshape tensor<2x3xf32> (6 elements) to [4, 2] (8 elements)");
  EXPECT_EQ(reshape_error({4, -1}),
            "cannot reshape tensor<2x3xf32> (6 elements) to [4, -1]: 6 is not divisible by 4");
  EXPECT_EQ(error("reshape", {tensor({0, 3})}, make_attrs({{"newshape", Ints{0, -1}}})),
            "attribute 'newshape' [0, -1] has a -1 beside a dimension of size 0, so its size is "
            "ambiguous");
  EXPECT_EQ(reshape_error({1LL << 32, 1LL << 32}),
            "attribute 'newshape' [4294967296, 4294967296] has more elements than fit in 64 bits");
}

// ---- concatenate ----

TEST_F(OpsTest, Concatenate) {
  auto a = f32({2, 1}, {1, 2});
  auto b = f32({2, 2}, {3, 4, 5, 6});
  TensorPtr y = run1("concatenate", {a, b}, make_attrs({{"axis", std::int64_t{-1}}}));
  EXPECT_EQ(y->shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(*y), (std::vector<double>{1, 3, 4, 2, 5, 6}));
  TensorPtr rows = run1("concatenate", {b, f32({0, 2}, {}), b});
  EXPECT_EQ(values_of(*rows), (std::vector<double>{3, 4, 5, 6, 3, 4, 5, 6}));
  EXPECT_EQ(values_of(*run1("concatenate", {a})), values_of(*a));
  auto ints = run1("concatenate",
                   {make_tensor(DType::i64, {1}, {7}), make_tensor(DType::i64, {2}, {8, 9})});
  EXPECT_EQ(ints->dtype(), DType::i64);
  EXPECT_EQ(values_of(*ints), (std::vector<double>{7, 8, 9}));
}

TEST_F(OpsTest, ConcatenateInferenceErrors) {
  EXPECT_EQ(error("concatenate", {}), "op concatenate takes at least 1 operand(s), got 0");
  EXPECT_EQ(error("concatenate", {tensor({2}), tensor({2}, DType::i32)}),
            "operand 1 is i32, but operand 0 is f32");
  EXPECT_EQ(error("concatenate", {tensor({2, 3}), tensor({2, 3}), tensor({2})}),
            "operand 2 has rank 1, but operand 0 has rank 2");
  EXPECT_EQ(error("concatenate", {tensor({2, 3, 4}), tensor({2, 5, 5})},
                  make_attrs({{"axis", std::int64_t{1}}})),
            "operand 1 has shape 2x5x5 and operand 0 has 2x3x4: they differ in dimension 2, but "
            "may differ only in the concatenation axis 1");
  EXPECT_EQ(error("concatenate", {tensor({2})}, make_attrs({{"axis", std::int64_t{-2}}})),
            "attribute 'axis' is -2, but the valid range for rank 1 is [-1, 0]");
  std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(error("concatenate", {tensor({huge}, DType::u8), tensor({1}, DType::u8)}),
            "the concatenated dimension 0 overflows int64");
}

// ---- transpose ----

TEST_F(OpsTest, Transpose) {
  std::vector<double> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  auto x = f32({2, 3, 4}, values);
  TensorPtr y = run1("transpose", {x}, make_attrs({{"axes", Ints{1, -1, 0}}}));
  ASSERT_EQ(y->shape(), (Shape{3, 4, 2}));
  // y[i][j][k] = x[k][i][j] = 12k + 4i + j
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j)
      for (std::int64_t k = 0; k < 2; ++k)
        EXPECT_EQ(y->get((i * 4 + j) * 2 + k), static_cast<double>(12 * k + 4 * i + j));
  TensorPtr reversed = run1("transpose", {f32({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(reversed->shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(*reversed), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(infer("transpose", {tensor({}, DType::boolean)})[0], tensor({}, DType::boolean));
}

TEST_F(OpsTest, TransposeInferenceErrors) {
  Type x = tensor({2, 3, 4});
  auto transpose_error = [&](Ints axes) {
    return error("transpose", {x}, make_attrs({{"axes", axes}}));
  };
  EXPECT_EQ(transpose_error({0, 1}), "attribute 'axes' has 2 values, but the operand has rank 3");
  EXPECT_EQ(transpose_error({0, 3, 1}),
            "attribute 'axes' has 3 at index 1, but the valid range for rank 3 is [-3, 2]");
  EXPECT_EQ(transpose_error({0, 2, -1}),
            "attribute 'axes' [0, 2, -1] is not a permutation: axis 2 appears twice");
}

}  // namespace
}  // namespace uma
