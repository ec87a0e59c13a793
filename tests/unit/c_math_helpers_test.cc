// The generated code's vectorizable math helpers (uma_expf, uma_sigmoidf, uma_tanhf,
// uma_erff) and the fma intrinsic, compiled and run over a dense sample of all floats.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "c_test_util.h"

namespace uma::codegen {
namespace {

using namespace tir;
using testing_c::build;
using testing_c::call;

// Every 4099th bit pattern (a prime step, so every exponent and many mantissas are hit),
// the special values, and every float in the regions where results overflow, underflow
// into denormals, or where the helpers switch formulas.
std::vector<float> sample_floats() {
  std::vector<float> values;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 4099)
    values.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()})
    values.push_back(v);
  for (float center : {88.72284f, -87.33655f, -103.27893f, -103.97208f, 2.0f, 4.0f, 3.9192f, 20.0f,
                       0.0078125f, 1.0f, 0.5f}) {
    for (float sign : {1.0f, -1.0f}) {
      float v = sign * center;
      for (int k = 0; k < 2000; ++k) v = std::nextafter(v, inf);
      for (int k = 0; k < 4000; ++k) values.push_back(v = std::nextafter(v, -inf));
    }
  }
  return values;
}

// The distance in units in the last place: the number of floats between a and b.
double ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : 1e9;
  auto ordered = [](float f) {
    auto bits = std::bit_cast<std::int32_t>(f);
    return bits < 0 ? std::int64_t{INT32_MIN} - bits : std::int64_t{bits};
  };
  return static_cast<double>(std::llabs(ordered(a) - ordered(b)));
}

PrimFunc unary(const std::string& name, const std::string& intrinsic, std::int64_t n) {
  Buffer x = make_buffer("x", DType::f32, {Expr(n)});
  Buffer y = make_buffer("y", DType::f32, {Expr(n)});
  Var i = VarNode::make("i");
  Expr load = LoadNode::make(x, {i});
  Stmt body = ForNode::make(
      i, Expr(0), Expr(n), ForKind::kSerial,
      StoreNode::make(
          y, CallNode::make(load.type(), intrinsic, {load}, CallNode::CallKind::kIntrinsic), {i}));
  PrimFunc func;
  func.name = name;
  func.params = {x, y};
  func.num_inputs = 1;
  func.body = body;
  return func;
}

TEST(CMathHelpers, WithinTwoUlpOfTheExactResultOverTheWholeRange) {
  std::vector<float> x = sample_floats();
  auto n = static_cast<std::int64_t>(x.size());
  struct Case {
    const char* intrinsic;
    const char* helper;
    double (*exact)(double);
  };
  const Case cases[] = {
      {"exp", "uma_expf", [](double v) { return std::exp(v); }},
      {"sigmoid", "uma_sigmoidf", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"tanh", "uma_tanhf", [](double v) { return std::tanh(v); }},
      {"erf", "uma_erff", [](double v) { return std::erf(v); }},
  };
  std::vector<PrimFunc> funcs;
  for (const Case& c : cases) funcs.push_back(unary(c.intrinsic, c.intrinsic, n));
  auto built = build(funcs);
  ASSERT_TRUE(built.ok()) << built.error().message();
  for (std::size_t f = 0; f < funcs.size(); ++f) {
    const Case& c = cases[f];
    EXPECT_NE(built->source.code.find(std::string(c.helper) + "(x[i])"), std::string::npos);
    std::vector<float> y(x.size());
    ASSERT_EQ(call(*built, f, {x.data(), y.data()}), 0);
    double worst = 0;
    float worst_at = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      double d = ulp_distance(y[k], static_cast<float>(c.exact(x[k])));
      if (d > worst) worst = d, worst_at = x[k];
    }
    EXPECT_LE(worst, 2) << c.intrinsic << " at " << worst_at;
    // The sign of zero, infinities and NaN exactly.
    for (std::size_t k = x.size() - 11 * 2 * 4000 - 9; k < x.size() - 11 * 2 * 4000; ++k)
      EXPECT_EQ(ulp_distance(y[k], static_cast<float>(c.exact(x[k]))), 0)
          << c.intrinsic << " " << x[k];
  }
}

TEST(CMathHelpers, PreciseMathKeepsLibm) {
  CCodegenOptions options;
  options.precise_math = true;
  auto source = generate_c({unary("e", "exp", 4), unary("t", "tanh", 4)}, options);
  ASSERT_TRUE(source.ok()) << source.error().message();
  EXPECT_NE(source->code.find("y[i] = expf(x[i]);"), std::string::npos) << source->code;
  EXPECT_NE(source->code.find("y[i] = tanhf(x[i]);"), std::string::npos);
  EXPECT_EQ(source->code.find("uma_exp_core"), std::string::npos);
}

TEST(CMathHelpers, FmaRoundsOnce) {
  // a * a - 1 with a = 1 - 2^-23, so a * a = 1 - 2^-22 + 2^-46: rounded first, the product
  // loses the 2^-46; fused, the difference keeps it.
  Buffer a = make_buffer("a", DType::f32, {Expr(1)}),
         out = make_buffer("out", DType::f32, {Expr(2)});
  Expr v = LoadNode::make(a, {Expr(0)});
  Expr fma = CallNode::make(v.type(), "fma", {v, v, Expr(-1.0f)}, CallNode::CallKind::kIntrinsic);
  Stmt body = SeqNode::make(
      {StoreNode::make(out, fma, {Expr(0)}), StoreNode::make(out, v * v + Expr(-1.0f), {Expr(1)})});
  PrimFunc func;
  func.name = "fma";
  func.params = {a, out};
  func.num_inputs = 1;
  func.body = body;
  auto built = build({func});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("out[0] = fmaf(a[0], a[0], -1.0f);"), std::string::npos)
      << built->source.code;
  std::vector<float> av = {1 - 0x1p-23f}, o(2);
  ASSERT_EQ(call(*built, 0, {av.data(), o.data()}), 0);
  EXPECT_EQ(o[0], -0x1p-22f + 0x1p-46f);
  EXPECT_EQ(o[1], (1 - 0x1p-22f) - 1);
}

}  // namespace
}  // namespace uma::codegen
