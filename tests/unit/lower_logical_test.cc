// Lowered comparisons, logical operators, isnan, isinf and where, compiled and compared with
// the reference interpreter, with numpy broadcasting and every operand dtype.
#include <limits>

#include "lower_test_util.h"
#include "tensor_util.h"

namespace uma::testing_lower {
namespace {

using test::make_attrs;
using test::make_tensor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TensorType typed(DType dtype, Shape shape) { return TensorType{dtype, std::move(shape)}; }

const char* const kComparisons[] = {"equal", "less", "less_equal", "greater", "greater_equal"};

TEST(LowerLogical, ComparisonsOfEveryDType) {
  std::vector<Case> cases;
  for (DType dtype : test::kAllDTypes) {
    for (const char* op : kComparisons) {
      if (dtype == DType::boolean && std::string_view(op) != "equal") continue;
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                              {typed(dtype, {3, 1, 4}), typed(dtype, {2, 4})}, {}, 0.0));
    }
  }
  check_cases(cases);
}

// NaN is unequal to everything, -0 equals 0; u64 values from 2^63 on compare unsigned.
TEST(LowerLogical, ComparisonsOfSpecialValues) {
  const std::vector<double> a = {kNaN, kNaN, 1, -0.0, kInf, -kInf, 2, 3, 0.5};
  const std::vector<double> b = {kNaN, 1, kNaN, 0.0, kInf, kInf, 2, -3, 0.25};
  std::vector<Case> cases;
  for (const char* op : kComparisons) {
    for (DType dtype : {DType::f32, DType::f16, DType::f64})
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {make_tensor(dtype, {9}, a), make_tensor(dtype, {9}, b)}, {},
                                    0.0));
    cases.push_back(constant_case(
        fmt::format("u64 {}", op), op,
        {make_tensor(DType::u64, {9}, {0x1p63, 1, 0x1p64 - 2048, 5, 0, 0x1p63, 7, 8, 9}),
         make_tensor(DType::u64, {9}, {1, 0x1p63, 5, 0x1p64 - 2048, 0x1p63, 0, 7, 9, 8})},
        {}, 0.0));
  }
  check_cases(cases);
}

TEST(LowerLogical, IsNanAndIsInf) {
  const std::vector<double> values = {kNaN, kInf, -kInf, -0.0, 1, -2, 65504, 1e-7};
  auto detect = [](std::int64_t positive, std::int64_t negative) {
    return make_attrs({{"detect_positive", positive}, {"detect_negative", negative}});
  };
  std::vector<Case> cases;
  for (DType dtype : {DType::f32, DType::f16, DType::f64}) {
    TensorPtr x = make_tensor(dtype, {8}, values);
    std::string name(dtype_name(dtype));
    cases.push_back(constant_case(name + " isnan", "isnan", {x}, {}, 0.0));
    for (auto [positive, negative] :
         {std::pair{1, 1}, std::pair{1, 0}, std::pair{0, 1}, std::pair{0, 0}})
      cases.push_back(constant_case(fmt::format("{} isinf {} {}", name, positive, negative),
                                    "isinf", {x}, detect(positive, negative), 0.0));
  }
  cases.push_back(op_case("random isnan", "isnan", {f32({3, 4})}, {}, 0.0));
  check_cases(cases);
}

TEST(LowerLogical, LogicalOperators) {
  auto b = [](Shape shape) { return typed(DType::boolean, std::move(shape)); };
  check_cases({
      op_case("and", "logical_and", {b({2, 3, 4}), b({3, 1})}, {}, 0.0),
      op_case("or", "logical_or", {b({2, 3, 4}), b({4})}, {}, 0.0),
      op_case("xor", "logical_xor", {b({1, 4}), b({3, 1})}, {}, 0.0),
      op_case("not", "logical_not", {b({2, 5})}, {}, 0.0),
  });
}

TEST(LowerLogical, Where) {
  auto b = [](Shape shape) { return typed(DType::boolean, std::move(shape)); };
  std::vector<Case> cases = {
      op_case("same shapes", "where", {b({2, 3}), f32({2, 3}), f32({2, 3})}, {}, 0.0),
      op_case("all broadcast", "where", {b({3, 1}), f32({1, 4}), f32({2, 1, 1})}, {}, 0.0),
      op_case("scalar values", "where", {b({2, 5}), f32({}), f32({5})}, {}, 0.0),
  };
  for (DType dtype : {DType::i64, DType::u8, DType::f16, DType::boolean, DType::f64})
    cases.push_back(op_case(fmt::format("{}", dtype_name(dtype)), "where",
                            {b({4, 1}), typed(dtype, {4, 3}), typed(dtype, {3})}, {}, 0.0));
  check_cases(cases);
}

}  // namespace
}  // namespace uma::testing_lower
