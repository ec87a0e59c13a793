// Lowered activations (nn.leaky_relu, nn.elu, nn.selu, nn.hard_sigmoid, nn.hard_swish,
// nn.gelu, nn.softplus, nn.softsign, nn.celu, nn.thresholded_relu, nn.shrink, nn.prelu, clip),
// compiled and compared with the reference interpreter over their attributes and dtypes, and on
// NaN, infinities and values where a naive formula cancels.
#include <cmath>
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

// Each activation with its default attributes and with others.
std::vector<std::pair<std::string, AttrMap>> activations() {
  return {
      {"nn.leaky_relu", {}},
      {"nn.leaky_relu", make_attrs({{"alpha", 0.3}})},
      {"nn.elu", {}},
      {"nn.elu", make_attrs({{"alpha", 0.5}})},
      {"nn.selu", {}},
      {"nn.selu", make_attrs({{"alpha", 2.0}, {"gamma", 0.5}})},
      {"nn.hard_sigmoid", {}},
      {"nn.hard_sigmoid", make_attrs({{"alpha", 1.5}, {"beta", 0.25}})},
      {"nn.hard_swish", {}},
      {"nn.gelu", {}},
      {"nn.gelu", make_attrs({{"approximate", std::string("tanh")}})},
      {"nn.softplus", {}},
      {"nn.softsign", {}},
      {"nn.celu", {}},
      {"nn.celu", make_attrs({{"alpha", 0.5}})},
      {"nn.thresholded_relu", {}},
      {"nn.thresholded_relu", make_attrs({{"alpha", -0.5}})},
      {"nn.shrink", {}},
      {"nn.shrink", make_attrs({{"bias", 0.25}, {"lambd", 0.75}})},
  };
}

TEST(LowerActivation, EveryActivationAndDType) {
  std::vector<Case> cases;
  for (auto [dtype, tolerance] : {std::pair{DType::f32, 1e-6}, std::pair{DType::f64, 1e-12},
                                  std::pair{DType::f16, 1e-3}, std::pair{DType::bf16, 8e-3}}) {
    for (const auto& [op, attrs] : activations())
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                              {typed(dtype, {2, 3, 5})}, attrs, tolerance));
  }
  check_cases(cases);
}

// NaN, infinities, signed zeros, large magnitudes, and tiny ones where exp(x) - 1, 1 + erf(x)
// or 1 + tanh(x) would cancel in f32.
TEST(LowerActivation, SpecialValues) {
  const std::vector<double> values = {kNaN,  kInf, -kInf, -0.0, 0.0,  1e-7, -1e-7,
                                      -3e-4, 40,   -40,   -6,   -9.5, 3,    6};
  std::vector<Case> cases;
  for (DType dtype : {DType::f32, DType::f64})
    for (const auto& [op, attrs] : activations())
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {make_tensor(dtype, {14}, values)}, attrs,
                                    dtype == DType::f32 ? 1e-6 : 1e-12));
  check_cases(cases);
}

TEST(LowerActivation, Prelu) {
  std::vector<Case> cases = {
      op_case("per channel", "nn.prelu", {f32({2, 3, 4, 4}), f32({3, 1, 1})}, {}, 1e-6),
      op_case("one slope", "nn.prelu", {f32({2, 5}), f32({1})}, {}, 1e-6),
      op_case("same shape", "nn.prelu", {f32({3, 4}), f32({3, 4})}, {}, 1e-6),
      op_case("last axis", "nn.prelu", {f32({2, 3, 4}), f32({4})}, {}, 1e-6),
  };
  for (DType dtype : {DType::i8, DType::i32, DType::i64, DType::u8, DType::f16, DType::f64})
    cases.push_back(op_case(fmt::format("{}", dtype_name(dtype)), "nn.prelu",
                            {typed(dtype, {2, 3, 4}), typed(dtype, {3, 1})}, {}, 0.0));
  check_cases(cases);
}

AttrMap bounds(double lo, double hi) { return make_attrs({{"a_min", lo}, {"a_max", hi}}); }

// Fractional bounds on integers compare as ceil(a_min) and floor(a_max); bounds beyond an
// integer type saturate; a_min > a_max gives a_max everywhere; a NaN x stays NaN.
TEST(LowerActivation, Clip) {
  std::vector<Case> cases;
  const std::vector<std::pair<double, double>> ranges = {
      {-0.5, 0.5}, {0, kInf}, {-kInf, 0.3}, {-kInf, kInf}, {0.7, 0.2}, {-2.5, 3.5}, {-1e30, 1e30}};
  for (auto [dtype, tolerance] :
       {std::pair{DType::f32, 0.0}, std::pair{DType::f64, 0.0}, std::pair{DType::f16, 0.0},
        std::pair{DType::bf16, 0.0}, std::pair{DType::i8, 0.0}, std::pair{DType::i64, 0.0},
        std::pair{DType::u8, 0.0}, std::pair{DType::u64, 0.0}})
    for (auto [lo, hi] : ranges)
      cases.push_back(op_case(fmt::format("{} [{}, {}]", dtype_name(dtype), lo, hi), "clip",
                              {typed(dtype, {3, 6})}, bounds(lo, hi), tolerance));
  const std::vector<double> values = {kNaN, kInf, -kInf, -0.0, 0.1, 0.2, 0.30000001, -7, 1e6};
  for (DType dtype : {DType::f32, DType::f16})
    cases.push_back(constant_case(fmt::format("{} special", dtype_name(dtype)), "clip",
                                  {make_tensor(dtype, {9}, values)}, bounds(0.1, 0.3), 0.0));
  cases.push_back(constant_case(
      "i64 beyond 2^53", "clip",
      {make_tensor(DType::i64, {9}, {-0x1p62, -0x1p53 - 2, -3, 0, 3, 0x1p53 + 2, 0x1p62, 5, 6})},
      bounds(-0x1p53, 0x1p60), 0.0));
  check_cases(cases);
}

}  // namespace
}  // namespace uma::testing_lower
