// Unit tests of the reductions (sum, mean, max, min, prod), argmax, argmin, topk and cumsum:
// inference with every error message exactly, and kernels against hand-computed values and an
// independent formulation.
#include <algorithm>
#include <cmath>
#include <functional>
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
using Values = std::vector<double>;

Type tensor(Shape shape, DType dtype = DType::f32) { return test::tensor_type(shape, dtype); }

AttrMap reduce(Ints axes, std::int64_t keepdims = 1) {
  return make_attrs({{"axes", axes}, {"keepdims", keepdims}});
}

class ReduceOpsTest : public test::OpTest {};

TEST_F(ReduceOpsTest, Schema) {
  for (const char* name : {"sum", "mean", "max", "min", "prod"}) {
    AttrMap defaults;
    ASSERT_TRUE(op(name).normalize_attrs(defaults).ok());
    EXPECT_EQ(defaults.get_ints("axes"), Ints{}) << name;
    EXPECT_EQ(defaults.get_int("keepdims"), 1) << name;
    EXPECT_EQ(op(name).fusion, FusionCategory::kAnchor);
  }
  AttrMap defaults;
  ASSERT_TRUE(op("argmax").normalize_attrs(defaults).ok());
  EXPECT_EQ(defaults.get_int("axis"), 0);
  EXPECT_EQ(defaults.get_int("keepdims"), 1);
  EXPECT_EQ(defaults.get_int("select_last_index"), 0);
}

TEST_F(ReduceOpsTest, Shapes) {
  Type x = tensor({2, 3, 4});
  EXPECT_EQ(infer1("sum", {x}), tensor({1, 1, 1}));
  EXPECT_EQ(infer1("sum", {x}, reduce({}, 0)), tensor({}));
  EXPECT_EQ(infer1("mean", {x}, reduce({1})), tensor({2, 1, 4}));
  EXPECT_EQ(infer1("max", {x}, reduce({-1, 0}, 0)), tensor({3}));
  EXPECT_EQ(infer1("min", {tensor({}, DType::i32)}), tensor({}, DType::i32));
  EXPECT_EQ(infer1("argmax", {x}), tensor({1, 3, 4}, DType::i64));
  EXPECT_EQ(infer1("argmax", {x},
                   make_attrs({{"axis", std::int64_t{-1}}, {"keepdims", std::int64_t{0}}})),
            tensor({2, 3}, DType::i64));
}

TEST_F(ReduceOpsTest, InferenceErrors) {
  Type x = tensor({2, 3});
  EXPECT_EQ(error("sum", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("mean", {x}, reduce({2})),
            "attribute 'axes' has 2 at index 0, but the valid range for rank 2 is [-2, 1]");
  EXPECT_EQ(error("max", {x}, reduce({1, -1})), "attribute 'axes' [1, -1] names axis 1 twice");
  EXPECT_EQ(error("min", {x}, reduce({}, 2)), "attribute 'keepdims' must be 0 or 1, got 2");
  EXPECT_EQ(error("min", {tensor({})}, reduce({0})),
            "attribute 'axes' has 0 at index 0, but a scalar has no axes");
  EXPECT_EQ(error("mean", {tensor({2, 0}, DType::i32)}, reduce({1})),
            "the mean of zero elements is undefined for i32");
  EXPECT_EQ(error("sum", {x, x}), "op sum takes 1 operand(s), got 2");
}

TEST_F(ReduceOpsTest, ArgmaxInferenceErrors) {
  Type x = tensor({2, 0});
  EXPECT_EQ(error("argmax", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("argmax", {x}, make_attrs({{"axis", std::int64_t{2}}})),
            "attribute 'axis' is 2, but the valid range for rank 2 is [-2, 1]");
  EXPECT_EQ(error("argmax", {x}, make_attrs({{"axis", std::int64_t{-1}}})),
            "attribute 'axis' is -1, but dimension 1 has no elements to compare");
  EXPECT_EQ(error("argmax", {tensor({2})}, make_attrs({{"keepdims", std::int64_t{-1}}})),
            "attribute 'keepdims' must be 0 or 1, got -1");
  EXPECT_EQ(error("argmax", {tensor({2})}, make_attrs({{"select_last_index", std::int64_t{3}}})),
            "attribute 'select_last_index' must be 0 or 1, got 3");
  EXPECT_EQ(error("argmax", {tensor({})}), "attribute 'axis' is 0, but a scalar has no axes");
}

TEST_F(ReduceOpsTest, HandComputed) {
  // [[1, 2, 3], [4, 5, 6]]
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values_of(*run1("sum", {x})), (Values{21}));
  EXPECT_EQ(values_of(*run1("sum", {x}, reduce({0}))), (Values{5, 7, 9}));
  EXPECT_EQ(values_of(*run1("mean", {x}, reduce({1}, 0))), (Values{2, 5}));
  EXPECT_EQ(values_of(*run1("max", {x}, reduce({-2}))), (Values{4, 5, 6}));
  EXPECT_EQ(values_of(*run1("min", {x}, reduce({1}))), (Values{1, 4}));
  EXPECT_EQ(values_of(*run1("mean", {x}, reduce({0, 1}))), (Values{3.5}));
  EXPECT_EQ(values_of(*run1("sum", {f32({}, {2.5})})), (Values{2.5}));
}

// An independent formulation: for every result element, walk the reduced axes of a rank-3
// operand explicitly.
Values reference(const Tensor& x, std::vector<bool> reduced,
                 const std::function<double(Values)>& f) {
  const Shape& s = x.shape();
  Values out;
  for (std::int64_t i = 0; i < (reduced[0] ? 1 : s[0]); ++i)
    for (std::int64_t j = 0; j < (reduced[1] ? 1 : s[1]); ++j)
      for (std::int64_t k = 0; k < (reduced[2] ? 1 : s[2]); ++k) {
        Values group;
        for (std::int64_t a = 0; a < (reduced[0] ? s[0] : 1); ++a)
          for (std::int64_t b = 0; b < (reduced[1] ? s[1] : 1); ++b)
            for (std::int64_t c = 0; c < (reduced[2] ? s[2] : 1); ++c)
              group.push_back(x.get(((i + a) * s[1] + (j + b)) * s[2] + (k + c)));
        out.push_back(f(group));
      }
  return out;
}

TEST_F(ReduceOpsTest, MatchIndependentFormulation) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-4, 4);
  Values values(3 * 4 * 5);
  for (double& v : values) v = uniform(rng);
  auto x = f32({3, 4, 5}, values);
  auto sum = [](Values g) {
    double s = 0;
    for (double v : g) s += v;
    return s;
  };
  auto mean = [&](Values g) { return sum(g) / static_cast<double>(g.size()); };
  auto max = [](Values g) { return *std::max_element(g.begin(), g.end()); };
  auto min = [](Values g) { return *std::min_element(g.begin(), g.end()); };
  for (Ints axes : {Ints{0}, Ints{1}, Ints{2}, Ints{0, 2}, Ints{2, 1}, Ints{0, 1, 2}}) {
    std::vector<bool> reduced(3, false);
    for (std::int64_t a : axes) reduced[static_cast<std::size_t>(a)] = true;
    auto check = [&](const char* name, const std::function<double(Values)>& f) {
      Values got = values_of(*run1(name, {x}, reduce(axes, 0)));
      Values want = reference(*x, reduced, f);
      ASSERT_EQ(got.size(), want.size()) << name;
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_FLOAT_EQ(got[i], static_cast<float>(want[i])) << name << " " << i;
    };
    check("sum", sum);
    check("mean", mean);
    check("max", max);
    check("min", min);
  }
}

TEST_F(ReduceOpsTest, Integers) {
  auto x = make_tensor(DType::i32, {2, 3}, {-7, 2, 4, 1, 1, 0});
  EXPECT_EQ(values_of(*run1("sum", {x}, reduce({1}))), (Values{-1, 2}));
  // Mean truncates toward zero: -1/3 is 0, 2/3 is 0, -7+1 / 2 is -3.
  EXPECT_EQ(values_of(*run1("mean", {x}, reduce({1}))), (Values{0, 0}));
  EXPECT_EQ(values_of(*run1("mean", {x}, reduce({0}))), (Values{-3, 1, 2}));
  EXPECT_EQ(values_of(*run1("max", {x}, reduce({0}))), (Values{1, 2, 4}));
  // Sums wrap modulo 2^bits, like elementwise integer arithmetic.
  auto i8 = make_tensor(DType::i8, {2}, {100, 100});
  EXPECT_EQ(values_of(*run1("sum", {i8})), (Values{-56}));
  // i64 stays exact beyond 2^53.
  auto big = std::make_shared<Tensor>(TensorType{DType::i64, {2}});
  big->data<std::int64_t>()[0] = (std::int64_t{1} << 60) + 1;
  big->data<std::int64_t>()[1] = 1;
  EXPECT_EQ(run1("sum", {big})->data<std::int64_t>()[0], (std::int64_t{1} << 60) + 2);
  EXPECT_EQ(run1("max", {big})->data<std::int64_t>()[0], (std::int64_t{1} << 60) + 1);
}

TEST_F(ReduceOpsTest, EmptyReductions) {
  auto empty = f32({2, 0}, {});
  EXPECT_EQ(values_of(*run1("sum", {empty}, reduce({1}))), (Values{0, 0}));
  EXPECT_TRUE(std::isnan(values_of(*run1("mean", {empty}, reduce({1})))[0]));
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(values_of(*run1("max", {empty}, reduce({1}))), (Values{-inf, -inf}));
  EXPECT_EQ(values_of(*run1("min", {empty}, reduce({1}))), (Values{inf, inf}));
  auto ints = make_tensor(DType::i8, {0}, {});
  EXPECT_EQ(values_of(*run1("max", {ints})), (Values{-128}));
  EXPECT_EQ(values_of(*run1("min", {ints})), (Values{127}));
  // Reducing no elements into no results.
  EXPECT_EQ(run1("sum", {empty}, reduce({0}))->shape(), (Shape{1, 0}));
}

TEST_F(ReduceOpsTest, NanPropagatesAndHalfPrecisionRoundsOnce) {
  double nan = std::nan("");
  auto x = f32({2, 2}, {nan, 1, 2, 3});
  Values max = values_of(*run1("max", {x}, reduce({1})));
  EXPECT_TRUE(std::isnan(max[0]));
  EXPECT_EQ(max[1], 3);
  EXPECT_TRUE(std::isnan(values_of(*run1("min", {x}, reduce({0})))[0]));
  // 2048 + 1 + 1 is 2050 in double; adding in f16 would give 2048 twice (its spacing is 2).
  auto h = make_tensor(DType::f16, {3}, {2048, 1, 1});
  EXPECT_EQ(values_of(*run1("sum", {h})), (Values{2050}));
}

TEST_F(ReduceOpsTest, Argmax) {
  // [[1, 5, 5], [7, 0, 7]]
  auto x = f32({2, 3}, {1, 5, 5, 7, 0, 7});
  EXPECT_EQ(values_of(*run1("argmax", {x})), (Values{1, 0, 1}));
  EXPECT_EQ(values_of(*run1("argmax", {x}, make_attrs({{"axis", std::int64_t{1}}}))),
            (Values{1, 0}));
  EXPECT_EQ(values_of(*run1(
                "argmax", {x},
                make_attrs({{"axis", std::int64_t{1}}, {"select_last_index", std::int64_t{1}}}))),
            (Values{2, 2}));
  TensorPtr flat =
      run1("argmax", {x}, make_attrs({{"axis", std::int64_t{-1}}, {"keepdims", std::int64_t{0}}}));
  EXPECT_EQ(flat->type(), (TensorType{DType::i64, {2}}));
  // NaN is larger than any number; the first NaN wins, or the last with select_last_index.
  double nan = std::nan("");
  auto with_nan = f32({4}, {1, nan, 9, nan});
  EXPECT_EQ(values_of(*run1("argmax", {with_nan})), (Values{1}));
  EXPECT_EQ(
      values_of(*run1("argmax", {with_nan}, make_attrs({{"select_last_index", std::int64_t{1}}}))),
      (Values{3}));
  // i64 compares exactly beyond 2^53.
  auto big = std::make_shared<Tensor>(TensorType{DType::i64, {2}});
  big->data<std::int64_t>()[0] = (std::int64_t{1} << 60) + 1;
  big->data<std::int64_t>()[1] = (std::int64_t{1} << 60);
  EXPECT_EQ(values_of(*run1("argmax", {big})), (Values{0}));
}

TEST_F(ReduceOpsTest, Topk) {
  auto k = [](std::int64_t count, std::int64_t axis = -1, std::int64_t largest = 1) {
    return make_attrs({{"k", count}, {"axis", axis}, {"largest", largest}});
  };
  // [[1, 5, 5, 2], [7, 0, 7, 3]]: equal elements keep their order.
  auto x = f32({2, 4}, {1, 5, 5, 2, 7, 0, 7, 3});
  std::vector<TensorPtr> top = run("topk", {x}, k(3));
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0]->type(), (TensorType{DType::f32, {2, 3}}));
  EXPECT_EQ(top[1]->type(), (TensorType{DType::i64, {2, 3}}));
  EXPECT_EQ(values_of(*top[0]), (Values{5, 5, 2, 7, 7, 3}));
  EXPECT_EQ(values_of(*top[1]), (Values{1, 2, 3, 0, 2, 3}));
  std::vector<TensorPtr> low = run("topk", {x}, k(1, 0, 0));
  EXPECT_EQ(values_of(*low[0]), (Values{1, 0, 5, 2}));
  EXPECT_EQ(values_of(*low[1]), (Values{0, 1, 0, 0}));
  // NaN is above every number, as in argmax.
  double nan = std::nan("");
  std::vector<TensorPtr> with_nan = run("topk", {f32({3}, {1, nan, 9})}, k(2));
  EXPECT_TRUE(std::isnan(values_of(*with_nan[0])[0]));
  EXPECT_EQ(values_of(*with_nan[1]), (Values{1, 2}));
  EXPECT_EQ(error("topk", {tensor({2, 4})}, k(5)),
            "attribute 'k' is 5, but must be in [0, 4] (dimension 1)");
  EXPECT_EQ(error("topk", {tensor({2, 4})}, k(1, 2)),
            "attribute 'axis' is 2, but the valid range for rank 2 is [-2, 1]");
  EXPECT_EQ(error("topk", {tensor({2}, DType::boolean)}, k(1)),
            "operand is bool, but only numbers are supported");
}

TEST_F(ReduceOpsTest, Prod) {
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values_of(*run1("prod", {x})), (Values{720}));
  EXPECT_EQ(values_of(*run1("prod", {x}, reduce({1}, 0))), (Values{6, 120}));
  EXPECT_EQ(values_of(*run1("prod", {x}, reduce({0}))), (Values{4, 10, 18}));
  // Over zero elements the product is 1; integers wrap: 16 * 16 is 0 in u8.
  EXPECT_EQ(values_of(*run1("prod", {f32({2, 0}, {})}, reduce({1}))), (Values{1, 1}));
  EXPECT_EQ(values_of(*run1("prod", {make_tensor(DType::u8, {2}, {16, 16})})), (Values{0}));
  EXPECT_EQ(values_of(*run1("prod", {make_tensor(DType::i8, {3}, {-2, 3, -5})})), (Values{30}));
  EXPECT_EQ(error("prod", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
}

TEST_F(ReduceOpsTest, Argmin) {
  // [[1, 5, 1], [7, 0, 0]]
  auto x = f32({2, 3}, {1, 5, 1, 7, 0, 0});
  EXPECT_EQ(values_of(*run1("argmin", {x})), (Values{0, 1, 1}));
  EXPECT_EQ(values_of(*run1("argmin", {x}, make_attrs({{"axis", std::int64_t{1}}}))),
            (Values{0, 1}));
  EXPECT_EQ(values_of(*run1(
                "argmin", {x},
                make_attrs({{"axis", std::int64_t{1}}, {"select_last_index", std::int64_t{1}}}))),
            (Values{2, 2}));
  // NaN beats every number here too, as in numpy.
  double nan = std::nan("");
  EXPECT_EQ(values_of(*run1("argmin", {f32({4}, {1, nan, -9, nan})})), (Values{1}));
  // u8 compares unsigned; i64 exactly beyond 2^53.
  EXPECT_EQ(values_of(*run1("argmin", {make_tensor(DType::u8, {3}, {200, 3, 255})})), (Values{1}));
  auto big = std::make_shared<Tensor>(TensorType{DType::i64, {2}});
  big->data<std::int64_t>()[0] = (std::int64_t{1} << 60) + 1;
  big->data<std::int64_t>()[1] = (std::int64_t{1} << 60);
  EXPECT_EQ(values_of(*run1("argmin", {big})), (Values{1}));
  EXPECT_EQ(error("argmin", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("argmin", {tensor({2, 0})}, make_attrs({{"axis", std::int64_t{1}}})),
            "attribute 'axis' is 1, but dimension 1 has no elements to compare");
}

TEST_F(ReduceOpsTest, Cumsum) {
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto cumsum = [&](std::int64_t axis, std::int64_t exclusive, std::int64_t reverse) {
    return values_of(
        *run1("cumsum", {x},
              make_attrs({{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}})));
  };
  EXPECT_EQ(cumsum(1, 0, 0), (Values{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(cumsum(0, 0, 0), (Values{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(cumsum(-1, 1, 0), (Values{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(cumsum(1, 0, 1), (Values{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(cumsum(1, 1, 1), (Values{5, 3, 0, 11, 6, 0}));
  // Integers wrap: 100 + 100 is -56 in i8.
  EXPECT_EQ(values_of(*run1("cumsum", {make_tensor(DType::i8, {2}, {100, 100})})),
            (Values{100, -56}));
  EXPECT_EQ(error("cumsum", {tensor({2}, DType::boolean)}),
            "operand is bool, but only numbers are supported");
  EXPECT_EQ(error("cumsum", {tensor({2, 3})}, make_attrs({{"axis", std::int64_t{2}}})),
            "attribute 'axis' is 2, but the valid range for rank 2 is [-2, 1]");
  EXPECT_EQ(error("cumsum", {tensor({2})}, make_attrs({{"reverse", std::int64_t{2}}})),
            "attribute 'reverse' must be 0 or 1, got 2");
}

}  // namespace
}  // namespace uma
