// Unit tests of the normalization and softmax ops: nn.batch_norm, nn.instance_norm,
// nn.layer_norm, nn.softmax and nn.log_softmax. Kernels are checked against hand-computed
// values or against the definition evaluated here in a different way (statistics by
// E[x^2] - E[x]^2, softmax without subtracting the maximum); every inference error exactly.
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

Type tensor(Shape shape, DType dtype = DType::f32) { return test::tensor_type(shape, dtype); }

class NormOpsTest : public test::OpTest {};

// ---- schemas ----

TEST_F(NormOpsTest, Schemas) {
  AttrMap attrs;
  ASSERT_TRUE(op("nn.batch_norm").normalize_attrs(attrs).ok());
  EXPECT_EQ(attrs.get_int("axis"), 1);
  EXPECT_EQ(attrs.get_float("epsilon"), 1e-5);
  attrs = {};
  ASSERT_TRUE(op("nn.layer_norm").normalize_attrs(attrs).ok());
  EXPECT_EQ(attrs.get_int("axis"), -1);
  EXPECT_EQ(attrs.get_float("epsilon"), 1e-5);
  attrs = {};
  ASSERT_TRUE(op("nn.instance_norm").normalize_attrs(attrs).ok());
  EXPECT_EQ(attrs.size(), 1u);
  EXPECT_EQ(attrs.get_float("epsilon"), 1e-5);
  for (const char* softmax : {"nn.softmax", "nn.log_softmax"}) {
    attrs = {};
    ASSERT_TRUE(op(softmax).normalize_attrs(attrs).ok());
    EXPECT_EQ(attrs.get_int("axis"), -1);
    EXPECT_EQ(op(softmax).max_inputs, 1);
  }
  EXPECT_EQ(op("nn.batch_norm").min_inputs, 5);
  EXPECT_EQ(op("nn.batch_norm").max_inputs, 5);
  EXPECT_EQ(op("nn.instance_norm").min_inputs, 3);
  EXPECT_EQ(op("nn.layer_norm").min_inputs, 2);
  EXPECT_EQ(op("nn.layer_norm").max_inputs, 3);
  // Inference batch norm is pointwise; the others reduce.
  EXPECT_EQ(op("nn.batch_norm").fusion, FusionCategory::kElementwise);
  for (const char* name : {"nn.instance_norm", "nn.layer_norm", "nn.softmax", "nn.log_softmax"})
    EXPECT_EQ(op(name).fusion, FusionCategory::kAnchor) << name;
}

// ---- nn.batch_norm ----

TEST_F(NormOpsTest, BatchNormInference) {
  Type c3 = tensor({3});
  EXPECT_EQ(infer1("nn.batch_norm", {tensor({2, 3, 4, 5}), c3, c3, c3, c3}), tensor({2, 3, 4, 5}));
  EXPECT_EQ(infer1("nn.batch_norm", {tensor({2, 3}), c3, c3, c3, c3}), tensor({2, 3}));
  EXPECT_EQ(infer1("nn.batch_norm", {tensor({4, 5, 3}), c3, c3, c3, c3},
                   make_attrs({{"axis", std::int64_t{-1}}})),
            tensor({4, 5, 3}));
  Type h2 = tensor({2}, DType::f16);
  EXPECT_EQ(infer1("nn.batch_norm", {tensor({1, 2}, DType::f16), h2, h2, h2, h2}),
            tensor({1, 2}, DType::f16));
}

TEST_F(NormOpsTest, BatchNormInferenceErrors) {
  Type data = tensor({2, 3, 4});
  Type c3 = tensor({3});
  EXPECT_EQ(error("nn.batch_norm", {data, c3, c3, c3, c3}, make_attrs({{"axis", std::int64_t{3}}})),
            "attribute 'axis' is 3, but the valid range for rank 3 is [-3, 2]");
  EXPECT_EQ(error("nn.batch_norm", {tensor({}), c3, c3, c3, c3}),
            "attribute 'axis' is 1, but a scalar has no axes");
  EXPECT_EQ(error("nn.batch_norm", {tensor({2, 3, 4}, DType::i32), c3, c3, c3, c3}),
            "data is i32, but only floating-point types (f32, f16, bf16, f64) are supported");
  EXPECT_EQ(error("nn.batch_norm", {data, tensor({3}, DType::f16), c3, c3, c3}),
            "gamma is f16, but data is f32");
  EXPECT_EQ(error("nn.batch_norm", {data, c3, c3, c3, tensor({3}, DType::bf16)}),
            "moving_var is bf16, but data is f32");
  EXPECT_EQ(error("nn.batch_norm", {data, c3, tensor({4}), c3, c3}),
            "beta has shape 4, but must have shape 3 (one value per element of dimension 1 of "
            "data)");
  EXPECT_EQ(error("nn.batch_norm", {data, c3, c3, tensor({1, 3}), c3}),
            "moving_mean has shape 1x3, but must have shape 3 (one value per element of dimension "
            "1 of data)");
  EXPECT_EQ(error("nn.batch_norm", {data, tensor({3}), c3, c3, c3},
                  make_attrs({{"axis", std::int64_t{2}}})),
            "gamma has shape 3, but must have shape 4 (one value per element of dimension 2 of "
            "data)");
  EXPECT_EQ(error("nn.batch_norm", {data, c3, c3, c3, TupleType{{c3}}}),
            "operand 4 is tuple<tensor<3xf32>>, not a tensor");
  EXPECT_EQ(error("nn.batch_norm", {data, c3, c3}), "op nn.batch_norm takes 5 operand(s), got 3");
  EXPECT_EQ(
      error("nn.batch_norm", {data, c3, c3, c3, c3}, make_attrs({{"epsilon", std::string("x")}})),
      "attribute 'epsilon' of op nn.batch_norm must be float, not string");
}

TEST_F(NormOpsTest, BatchNormHandComputed) {
  // N=1, C=2, W=2; y = (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c].
  auto x = f32({1, 2, 2}, {1, 2, 3, 4});
  auto gamma = f32({2}, {2, 0.5}), beta = f32({2}, {1, -1});
  auto mean = f32({2}, {1, 3}), var = f32({2}, {4, 0.25});
  auto zero_eps = make_attrs({{"epsilon", 0.0}});
  EXPECT_EQ(values_of(*run1("nn.batch_norm", {x, gamma, beta, mean, var}, zero_eps)),
            (Values{1, 2, -1, 0}));
  // Channels last: x[w][c].
  auto x_last = f32({2, 2}, {1, 3, 2, 4});
  EXPECT_EQ(values_of(*run1("nn.batch_norm", {x_last, gamma, beta, mean, var},
                            make_attrs({{"axis", std::int64_t{-1}}, {"epsilon", 0.0}}))),
            (Values{1, -1, 2, 0}));
  // epsilon 0.25 on a zero variance divides by 0.5.
  auto zero_var = f32({2}, {0, 0});
  EXPECT_EQ(values_of(*run1("nn.batch_norm", {x, gamma, beta, mean, zero_var},
                            make_attrs({{"epsilon", 0.25}}))),
            (Values{1, 5, -1, 0}));
  // The default epsilon is 1e-5: (2 - 1) / sqrt(4.00001) * 2 + 1.
  EXPECT_NEAR(values_of(*run1("nn.batch_norm", {x, gamma, beta, mean, var}))[1],
              1 + 2 / std::sqrt(4.00001), 1e-7);
}

TEST_F(NormOpsTest, BatchNormRoundsToHalf) {
  auto h = [](Shape shape, Values v) { return make_tensor(DType::f16, std::move(shape), v); };
  TensorPtr y = run1("nn.batch_norm",
                     {h({1, 1, 2}, {1, 3}), h({1}, {1}), h({1}, {0}), h({1}, {0}), h({1}, {9})},
                     make_attrs({{"epsilon", 0.0}}));
  EXPECT_EQ(y->dtype(), DType::f16);
  // 1/3 rounds to the nearest f16, 0x3555.
  EXPECT_EQ(values_of(*y), (Values{f16_to_f32(0x3555), 1}));
}

// ---- nn.instance_norm ----

TEST_F(NormOpsTest, InstanceNormInferenceErrors) {
  Type c2 = tensor({2});
  EXPECT_EQ(infer1("nn.instance_norm", {tensor({3, 2, 5, 5}), c2, c2}), tensor({3, 2, 5, 5}));
  EXPECT_EQ(infer1("nn.instance_norm", {tensor({3, 2}), c2, c2}), tensor({3, 2}));
  EXPECT_EQ(error("nn.instance_norm", {tensor({2}), c2, c2}),
            "data must have rank 2 or more (N, C, spatial...), got tensor<2xf32>");
  EXPECT_EQ(error("nn.instance_norm", {tensor({1, 2, 3}, DType::u8), c2, c2}),
            "data is u8, but only floating-point types (f32, f16, bf16, f64) are supported");
  EXPECT_EQ(error("nn.instance_norm", {tensor({1, 2, 3}), c2, tensor({2}, DType::f16)}),
            "beta is f16, but data is f32");
  EXPECT_EQ(error("nn.instance_norm", {tensor({1, 2, 3}), tensor({3}), c2}),
            "gamma has shape 3, but must have shape 2 (one value per element of dimension 1 of "
            "data)");
  EXPECT_EQ(error("nn.instance_norm", {tensor({1, 2, 3}), c2}),
            "op nn.instance_norm takes 3 operand(s), got 2");
  EXPECT_EQ(error("nn.instance_norm", {tensor({1, 2, 3}), c2, c2},
                  make_attrs({{"axis", std::int64_t{1}}})),
            "unknown attribute 'axis' for op nn.instance_norm");
}

TEST_F(NormOpsTest, InstanceNormHandComputed) {
  // Two samples, two channels, four elements each. Plane [1, 2, 3, 4] has mean 2.5 and
  // variance 1.25; with epsilon 0.75 it divides by sqrt(2). A constant plane becomes beta.
  auto x = f32({2, 2, 4}, {1, 2, 3, 4, 2, 2, 2, 2, 4, 3, 2, 1, -1, 1, -1, 1});
  auto gamma = f32({2}, {1, 3}), beta = f32({2}, {0, 5});
  Values y =
      values_of(*run1("nn.instance_norm", {x, gamma, beta}, make_attrs({{"epsilon", 0.75}})));
  const double r = 1 / std::sqrt(2.0);
  // Plane [-1, 1, -1, 1]: mean 0, variance 1, so it divides by sqrt(1.75); then * 3 + 5.
  const double s = 3 / std::sqrt(1.75);
  expect_near(y, {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r, 5, 5, 5, 5, 1.5 * r, 0.5 * r, -0.5 * r,
                  -1.5 * r, 5 - s, 5 + s, 5 - s, 5 + s});
}

TEST_F(NormOpsTest, InstanceNormMatchesTheDefinition) {
  // 1x3x2x3 with uneven values, checked against mean and E[x^2] - E[x]^2 computed here.
  Values in;
  for (int i = 0; i < 18; ++i) in.push_back(std::sin(i * 1.7) * (i + 1));
  auto gamma = f32({3}, {0.5, -2, 1.5}), beta = f32({3}, {0.1, 0.2, -0.3});
  Values y = values_of(*run1("nn.instance_norm", {f32({1, 3, 2, 3}, in), gamma, beta}));
  for (int c = 0; c < 3; ++c) {
    double sum = 0, squares = 0;
    for (int k = 0; k < 6; ++k) {
      double v = static_cast<float>(in[c * 6 + k]);
      sum += v;
      squares += v * v;
    }
    double mean = sum / 6, var = squares / 6 - mean * mean;
    for (int k = 0; k < 6; ++k) {
      double v = static_cast<float>(in[c * 6 + k]);
      double expected = (v - mean) / std::sqrt(var + 1e-5) * gamma->get(c) + beta->get(c);
      EXPECT_NEAR(y[c * 6 + k], expected, 1e-5) << c << " " << k;
    }
  }
}

// ---- nn.layer_norm ----

TEST_F(NormOpsTest, LayerNormInference) {
  EXPECT_EQ(infer1("nn.layer_norm", {tensor({2, 3, 4}), tensor({4}), tensor({4})}),
            tensor({2, 3, 4}));
  EXPECT_EQ(infer1("nn.layer_norm", {tensor({2, 3, 4}), tensor({4})}), tensor({2, 3, 4}));
  // gamma and beta broadcast to the normalized shape 3x4.
  EXPECT_EQ(infer1("nn.layer_norm", {tensor({2, 3, 4}), tensor({3, 4}), tensor({3, 1})},
                   make_attrs({{"axis", std::int64_t{1}}})),
            tensor({2, 3, 4}));
  EXPECT_EQ(infer1("nn.layer_norm", {tensor({2, 3, 4}), tensor({}), tensor({1, 1})},
                   make_attrs({{"axis", std::int64_t{-2}}})),
            tensor({2, 3, 4}));
}

TEST_F(NormOpsTest, LayerNormInferenceErrors) {
  Type data = tensor({2, 3, 4});
  EXPECT_EQ(error("nn.layer_norm", {data, tensor({4})}, make_attrs({{"axis", std::int64_t{-4}}})),
            "attribute 'axis' is -4, but the valid range for rank 3 is [-3, 2]");
  EXPECT_EQ(error("nn.layer_norm", {tensor({}), tensor({})}),
            "attribute 'axis' is -1, but a scalar has no axes");
  EXPECT_EQ(error("nn.layer_norm", {tensor({4}, DType::i64), tensor({4}, DType::i64)}),
            "data is i64, but only floating-point types (f32, f16, bf16, f64) are supported");
  EXPECT_EQ(error("nn.layer_norm", {data, tensor({4}, DType::bf16)}),
            "gamma is bf16, but data is f32");
  EXPECT_EQ(error("nn.layer_norm", {data, tensor({3})}),
            "gamma has shape 3, which does not broadcast to the normalized shape 4 (the "
            "dimensions of data from 2 on)");
  EXPECT_EQ(error("nn.layer_norm", {data, tensor({4}), tensor({3, 4})}),
            "beta has shape 3x4, which does not broadcast to the normalized shape 4 (the "
            "dimensions of data from 2 on)");
  EXPECT_EQ(error("nn.layer_norm", {data, tensor({2, 4})}, make_attrs({{"axis", std::int64_t{1}}})),
            "gamma has shape 2x4, which does not broadcast to the normalized shape 3x4 (the "
            "dimensions of data from 1 on)");
  EXPECT_EQ(error("nn.layer_norm", {data}), "op nn.layer_norm takes 2 to 3 operands, got 1");
}

TEST_F(NormOpsTest, LayerNormHandComputed) {
  // Rows [1, 2, 3] (mean 2, variance 2/3) and [2, 2, 8] (mean 4, variance 8); epsilon 1/3
  // makes the first divide by 1 and the second by sqrt(25/3).
  auto x = f32({2, 3}, {1, 2, 3, 2, 2, 8});
  auto gamma = f32({3}, {1, 2, 3}), beta = f32({3}, {0, 0, 1});
  const double k = 1 / std::sqrt(25.0 / 3);
  expect_near(
      values_of(*run1("nn.layer_norm", {x, gamma, beta}, make_attrs({{"epsilon", 1.0 / 3}}))),
      {-1, 0, 4, -2 * k, -4 * k, 12 * k + 1});
  // Without beta.
  expect_near(values_of(*run1("nn.layer_norm", {x, gamma}, make_attrs({{"epsilon", 1.0 / 3}}))),
              {-1, 0, 3, -2 * k, -4 * k, 12 * k});
}

TEST_F(NormOpsTest, LayerNormOverSeveralAxesMatchesTheDefinition) {
  // 2x2x3 normalized over the last two dimensions; gamma 3 and beta 2x1 broadcast to 2x3.
  Values in = {3, -1, 4, 1, -5, 9, 2, 6, -5, 3, 5, -8};
  Values g = {1, 0.5, -2}, b = {0.25, -0.75};
  Values y = values_of(*run1("nn.layer_norm", {f32({2, 2, 3}, in), f32({3}, g), f32({2, 1}, b)},
                             make_attrs({{"axis", std::int64_t{1}}})));
  for (int n = 0; n < 2; ++n) {
    double sum = 0, squares = 0;
    for (int j = 0; j < 6; ++j) {
      sum += in[n * 6 + j];
      squares += in[n * 6 + j] * in[n * 6 + j];
    }
    double mean = sum / 6, var = squares / 6 - mean * mean;
    for (int j = 0; j < 6; ++j) {
      double expected = (in[n * 6 + j] - mean) / std::sqrt(var + 1e-5) * g[j % 3] + b[j / 3];
      EXPECT_NEAR(y[n * 6 + j], expected, 1e-6) << n << " " << j;
    }
  }
  // axis 0 normalizes the whole tensor: the result has mean 0 and variance ~1.
  Values all = values_of(*run1("nn.layer_norm", {f32({2, 2, 3}, in), f32({}, {1})},
                               make_attrs({{"axis", std::int64_t{0}}, {"epsilon", 0.0}})));
  double sum = 0, squares = 0;
  for (double v : all) {
    sum += v;
    squares += v * v;
  }
  EXPECT_NEAR(sum, 0, 1e-5);
  EXPECT_NEAR(squares / 12, 1, 1e-6);
}

// ---- nn.softmax, nn.log_softmax ----

TEST_F(NormOpsTest, SoftmaxInferenceErrors) {
  for (const char* name : {"nn.softmax", "nn.log_softmax"}) {
    EXPECT_EQ(infer1(name, {tensor({2, 3})}), tensor({2, 3}));
    EXPECT_EQ(infer1(name, {tensor({2, 3}, DType::bf16)}, make_attrs({{"axis", std::int64_t{0}}})),
              tensor({2, 3}, DType::bf16));
    EXPECT_EQ(error(name, {tensor({2, 3})}, make_attrs({{"axis", std::int64_t{2}}})),
              "attribute 'axis' is 2, but the valid range for rank 2 is [-2, 1]");
    EXPECT_EQ(error(name, {tensor({})}), "attribute 'axis' is -1, but a scalar has no axes");
    EXPECT_EQ(error(name, {tensor({3}, DType::i32)}),
              "data is i32, but only floating-point types (f32, f16, bf16, f64) are supported");
    EXPECT_EQ(error(name, {TupleType{}}), "operand 0 is tuple<>, not a tensor");
  }
  EXPECT_EQ(error("nn.softmax", {tensor({3}), tensor({3})}),
            "op nn.softmax takes 1 operand(s), got 2");
}

// softmax without subtracting the maximum, along `axis` of a row-major [outer, n, inner].
Values naive_softmax(const Values& x, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  Values y(x.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += std::exp(x[(o * n + k) * inner + i]);
      for (std::int64_t k = 0; k < n; ++k)
        y[(o * n + k) * inner + i] = std::exp(x[(o * n + k) * inner + i]) / sum;
    }
  }
  return y;
}

TEST_F(NormOpsTest, SoftmaxMatchesTheDefinition) {
  Values in;
  for (int i = 0; i < 24; ++i) in.push_back(std::cos(i * 2.3) * 3);
  auto x = f32({2, 3, 4}, in);
  Values stored;  // the f32 values the kernel sees
  for (double v : in) stored.push_back(static_cast<float>(v));
  struct Case {
    std::int64_t axis, outer, n, inner;
  };
  for (Case c : {Case{0, 1, 2, 12}, Case{1, 2, 3, 4}, Case{-1, 6, 4, 1}, Case{2, 6, 4, 1}}) {
    Values expected = naive_softmax(stored, c.outer, c.n, c.inner);
    Values y = values_of(*run1("nn.softmax", {x}, make_attrs({{"axis", c.axis}})));
    Values log_y = values_of(*run1("nn.log_softmax", {x}, make_attrs({{"axis", c.axis}})));
    expect_near(y, expected, 1e-7);
    for (double& v : expected) v = std::log(v);
    expect_near(log_y, expected, 1e-6);
  }
}

TEST_F(NormOpsTest, SoftmaxIsStable) {
  // exp(1000) overflows a double; shifting by the maximum keeps everything finite.
  auto big = f32({3}, {1000, 1001, 1002});
  Values shifted = naive_softmax({0, 1, 2}, 1, 3, 1);
  expect_near(values_of(*run1("nn.softmax", {big})), shifted, 1e-7);
  expect_near(values_of(*run1("nn.log_softmax", {big})),
              {std::log(shifted[0]), std::log(shifted[1]), std::log(shifted[2])}, 1e-6);
  // -inf takes no share; log_softmax gives it -inf.
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(values_of(*run1("nn.softmax", {f32({2}, {-inf, 5})})), (Values{0, 1}));
  EXPECT_EQ(values_of(*run1("nn.log_softmax", {f32({2}, {-inf, 5})})), (Values{-inf, 0}));
  // Equal inputs share equally, exactly.
  EXPECT_EQ(values_of(*run1("nn.softmax", {f32({4}, {7, 7, 7, 7})})),
            (Values{0.25, 0.25, 0.25, 0.25}));
  // An empty tensor gives an empty result.
  EXPECT_EQ(run1("nn.softmax", {f32({0, 3}, {})})->num_elements(), 0);
}

}  // namespace
}  // namespace uma
