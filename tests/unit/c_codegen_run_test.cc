// Compile-and-run tests of the C code generator: loop-IR functions built by hand, compiled
// with the system C compiler, loaded, and called on real arrays; results are compared with
// values computed here.
#include <gtest/gtest.h>

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

Var index_var(const char* name) { return VarNode::make(name); }

Stmt loop(const Var& v, Expr extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return ForNode::make(v, Expr(0), std::move(extent), kind, std::move(body));
}

PrimFunc make_func(std::string name, std::vector<Buffer> params, std::size_t num_inputs,
                   Stmt body) {
  PrimFunc func;
  func.name = std::move(name);
  func.params = std::move(params);
  func.num_inputs = num_inputs;
  func.body = std::move(body);
  return func;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }

// out[i, j] = a[i, j] * 2 + b[j] over multi-dimensional buffers.
PrimFunc scale_add(ForKind outer_kind) {
  Buffer a = make_buffer("a", DType::f32, {Expr(3), Expr(4)});
  Buffer b = make_buffer("b", DType::f32, {Expr(4)});
  Buffer out = make_buffer("out", DType::f32, {Expr(3), Expr(4)});
  Var i = index_var("i"), j = index_var("j");
  Stmt store =
      StoreNode::make(out, LoadNode::make(a, {i, j}) * 2.0 + LoadNode::make(b, {j}), {i, j});
  Stmt body =
      BlockNode::make("scale_add", {a, b}, {out}, loop(i, 3, loop(j, 4, store), outer_kind));
  return make_func("scale_add", {a, b, out}, 2, body);
}

void check_scale_add(const testing_c::Built& built) {
  std::vector<float> a(12), b = {1, 2, 3, 4}, out(12, -1);
  for (int k = 0; k < 12; ++k) a[k] = 0.5f * static_cast<float>(k) - 2;
  ASSERT_EQ(call(built, 0, {a.data(), b.data(), out.data()}), 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[i * 4 + j], a[i * 4 + j] * 2 + b[j]) << i << "," << j;
}

TEST(CCodegenRun, TwoDimensionalLoopNest) {
  auto built = build({scale_add(ForKind::kParallel)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_EQ(built->source.code.find("omp"), std::string::npos);
  check_scale_add(*built);
}

TEST(CCodegenRun, ParallelLoopWithOpenMP) {
  CCodegenOptions options;
  options.openmp = true;
  auto built = build({scale_add(ForKind::kParallel)}, options, {}, {.openmp = true});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("#pragma omp parallel for"), std::string::npos);
  check_scale_add(*built);
}

// out[i] = sum_k a[i, k], accumulated in a one-element local buffer, or on the heap.
PrimFunc row_sum(std::string name) {
  Buffer a = make_buffer("a", DType::f32, {Expr(4), Expr(5)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)});
  Var i = index_var("i"), k = index_var("k");
  Stmt body = SeqNode::make({
      StoreNode::make(acc, Expr(0.0), {Expr(0)}),
      loop(k, 5,
           StoreNode::make(acc, LoadNode::make(acc, {Expr(0)}) + LoadNode::make(a, {i, k}),
                           {Expr(0)})),
      StoreNode::make(out, LoadNode::make(acc, {Expr(0)}), {i}),
  });
  return make_func(std::move(name), {a, out}, 1, loop(i, 4, AllocateNode::make(acc, body)));
}

void check_row_sum(const testing_c::Built& built) {
  std::vector<float> a(20), out(4);
  for (int k = 0; k < 20; ++k) a[k] = static_cast<float>(k % 7) - 3;
  ASSERT_EQ(call(built, 0, {a.data(), out.data()}), 0);
  for (int i = 0; i < 4; ++i) {
    float sum = 0;
    for (int k = 0; k < 5; ++k) sum += a[i * 5 + k];
    EXPECT_EQ(out[i], sum) << i;
  }
}

TEST(CCodegenRun, ReductionIntoAStackBuffer) {
  auto built = build({row_sum("row_sum")});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("float acc[1];"), std::string::npos);
  check_row_sum(*built);
}

TEST(CCodegenRun, ReductionIntoAHeapBuffer) {
  CCodegenOptions options;
  options.stack_alloc_limit = 0;
  auto built = build({row_sum("row_sum_heap")}, options);
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("uma_alloc(4)"), std::string::npos);
  check_row_sum(*built);
}

TEST(CCodegenRun, FloorDivisionAndModuloOfNegativeValues) {
  for (DType dtype : {DType::i32, DType::i64, DType::i8}) {
    SCOPED_TRACE(dtype_name(dtype));
    Buffer a = make_buffer("a", dtype, {Expr(8)}), b = make_buffer("b", dtype, {Expr(8)});
    Buffer q = make_buffer("q", dtype, {Expr(8)}), r = make_buffer("r", dtype, {Expr(8)});
    Var i = index_var("i");
    Expr x = LoadNode::make(a, {i}), y = LoadNode::make(b, {i});
    Stmt body =
        loop(i, 8, SeqNode::make({StoreNode::make(q, x / y, {i}), StoreNode::make(r, x % y, {i})}));
    auto built = build({make_func("floor_ops", {a, b, q, r}, 2, body)});
    ASSERT_TRUE(built.ok()) << built.error().message();
    std::vector<std::int64_t> xs = {7, -7, 7, -7, 0, -1, 6, -6}, ys = {2, 2, -2, -2, 3, 3, -3, 4};
    auto run = [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> av(xs.begin(), xs.end()), bv(ys.begin(), ys.end()), qv(8), rv(8);
      ASSERT_EQ(call(*built, 0, {av.data(), bv.data(), qv.data(), rv.data()}), 0);
      for (int k = 0; k < 8; ++k) {
        EXPECT_EQ(qv[k], floor_div(xs[k], ys[k])) << xs[k] << " / " << ys[k];
        EXPECT_EQ(rv[k], floor_mod(xs[k], ys[k])) << xs[k] << " % " << ys[k];
      }
    };
    if (dtype == DType::i32) run(std::int32_t{0});
    if (dtype == DType::i64) run(std::int64_t{0});
    if (dtype == DType::i8) run(std::int8_t{0});
  }
}

TEST(CCodegenRun, FloorDivisionOfALoopCounterThatGoesNegative) {
  // for i in [-7, 7): out[i + 7] = (i / 3) * 100 + i % 3, and a counter from 0 uses C's / %.
  Buffer out = make_buffer("out", DType::i64, {Expr(14)});
  Buffer plain = make_buffer("plain", DType::i64, {Expr(14)});
  Var i = index_var("i"), j = index_var("j");
  Stmt body = SeqNode::make({
      ForNode::make(i, Expr(-7), Expr(14), ForKind::kSerial,
                    StoreNode::make(out, (i / 3) * 100 + i % 3, {i + 7})),
      loop(j, 14, StoreNode::make(plain, (j / 4) * 100 + j % 4, {j})),
  });
  auto built = build({make_func("counter_div", {out, plain}, 0, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("uma_floordiv_i64(i, 3)"), std::string::npos);
  EXPECT_NE(built->source.code.find("j / 4 * 100 + j % 4"), std::string::npos);
  std::vector<std::int64_t> got(14), got_plain(14);
  ASSERT_EQ(call(*built, 0, {got.data(), got_plain.data()}), 0);
  for (std::int64_t k = -7; k < 7; ++k)
    EXPECT_EQ(got[k + 7], floor_div(k, 3) * 100 + floor_mod(k, 3)) << k;
  for (std::int64_t k = 0; k < 14; ++k) EXPECT_EQ(got_plain[k], k / 4 * 100 + k % 4) << k;
}

TEST(CCodegenRun, SelectAndIntrinsics) {
  Buffer a = make_buffer("a", DType::f32, {Expr(6)});
  Buffer leaky = make_buffer("leaky", DType::f32, {Expr(6)});
  Buffer rounded = make_buffer("rounded", DType::f32, {Expr(6)});
  Buffer sig = make_buffer("sig", DType::f32, {Expr(6)});
  Buffer big = make_buffer("big", DType::f32, {Expr(6)});
  Var i = index_var("i");
  Expr x = LoadNode::make(a, {i});
  auto intrinsic = [](const char* name, Expr arg) {
    return CallNode::make(arg.type(), name, {arg}, CallNode::CallKind::kIntrinsic);
  };
  Stmt body =
      loop(i, 6,
           SeqNode::make({
               StoreNode::make(leaky, SelectNode::make(x > 0.0, x, x * 0.125), {i}),
               StoreNode::make(rounded, intrinsic("round", x), {i}),
               StoreNode::make(sig, intrinsic("sigmoid", x), {i}),
               StoreNode::make(
                   big, max(intrinsic("exp", x), intrinsic("sqrt", intrinsic("fabs", x))), {i}),
           }));
  auto built = build({make_func("select_intrinsics", {a, leaky, rounded, sig, big}, 1, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<float> av = {-2.5f, -0.5f, 0.5f, 1.5f, 2.5f, 4.0f}, l(6), r(6), s(6), e(6);
  ASSERT_EQ(call(*built, 0, {av.data(), l.data(), r.data(), s.data(), e.data()}), 0);
  std::vector<float> round_even = {-2, -0.0f, 0, 2, 2, 4};
  for (int k = 0; k < 6; ++k) {
    float v = av[k];
    EXPECT_EQ(l[k], v > 0 ? v : v * 0.125f) << k;
    EXPECT_EQ(r[k], round_even[k]) << k;
    EXPECT_FLOAT_EQ(s[k], 1 / (1 + std::exp(-v))) << k;
    EXPECT_FLOAT_EQ(e[k], std::max(std::exp(v), std::sqrt(std::fabs(v)))) << k;
  }
}

TEST(CCodegenRun, ExternCallIntoAnExtraSource) {
  // The extern function scales n values starting at &a[1] into &out[1].
  runtime::CSourceFile kernel{
      "kernel",
      "#include <stdint.h>\n"
      "int32_t test_scale(float* out, const float* in, int64_t n, float s) {\n"
      "  for (int64_t k = 0; k < n; ++k) out[k] = in[k] * s;\n"
      "  return 0;\n"
      "}\n"};
  Buffer a = make_buffer("a", DType::f32, {Expr(2), Expr(4)});
  Buffer out = make_buffer("out", DType::f32, {Expr(2), Expr(4)});
  Stmt body = EvaluateNode::make(
      CallNode::make(DataType::scalar(DType::i32), "test_scale",
                     {AddressNode::make(out, {Expr(0), Expr(1)}),
                      AddressNode::make(a, {Expr(0), Expr(1)}), Expr(6), Expr(3.0)},
                     CallNode::CallKind::kExtern));
  auto built = build({make_func("extern_call", {a, out}, 1, body)}, {}, {kernel});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("int32_t test_scale(void*, void*, int64_t, float);"),
            std::string::npos)
      << built->source.code;
  EXPECT_NE(built->source.code.find("test_scale(&out[1], &a[1], 6, 3.0f);"), std::string::npos);
  std::vector<float> av = {1, 2, 3, 4, 5, 6, 7, 8}, o(8, 0);
  ASSERT_EQ(call(*built, 0, {av.data(), o.data()}), 0);
  std::vector<float> expected = {0, 6, 9, 12, 15, 18, 21, 0};
  EXPECT_EQ(o, expected);
}

TEST(CCodegenRun, VectorStoresLaneByLane) {
  // c[i*8 .. i*8+7] = a[...] + broadcast(1); then x[1..8] = x[0..7] reads what it writes, which
  // a vector store does before writing any lane.
  Buffer a = make_buffer("a", DType::f32, {Expr(16)}), c = make_buffer("c", DType::f32, {Expr(16)});
  Buffer x = make_buffer("x", DType::i32, {Expr(9)});
  Var i = index_var("i");
  Expr lanes = RampNode::make(i * 8, Expr(1), 8);
  Stmt body = SeqNode::make({
      loop(i, 2,
           StoreNode::make(c, LoadNode::make(a, {lanes}) + BroadcastNode::make(Expr(1.0), 8),
                           {lanes})),
      StoreNode::make(x, LoadNode::make(x, {RampNode::make(Expr(0), Expr(1), 8)}),
                      {RampNode::make(Expr(1), Expr(1), 8)}),
  });
  auto built = build({make_func("vectors", {a, c, x}, 1, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<float> av(16), cv(16);
  for (int k = 0; k < 16; ++k) av[k] = static_cast<float>(k) * 1.5f;
  std::vector<std::int32_t> xv = {10, 11, 12, 13, 14, 15, 16, 17, 18};
  ASSERT_EQ(call(*built, 0, {av.data(), cv.data(), xv.data()}), 0);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(cv[k], av[k] + 1) << k;
  std::vector<std::int32_t> shifted = {10, 10, 11, 12, 13, 14, 15, 16, 17};
  EXPECT_EQ(xv, shifted);
}

TEST(CCodegenRun, WholeVectorLetsAndArithmetic) {
  // On GCC vectors: t = a[i*8:] * b[i*8:] - 2 (a let), out = fma(t, t, min(a, b)) / 4 and
  // top = max(a, b); min and max keep the scalar helpers' NaN rule; i64 lanes add exactly.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buffer a = make_buffer("a", DType::f32, {Expr(16)}), b = make_buffer("b", DType::f32, {Expr(16)});
  Buffer out = make_buffer("out", DType::f32, {Expr(16)});
  Buffer top = make_buffer("top", DType::f32, {Expr(16)});
  Buffer p = make_buffer("p", DType::i64, {Expr(4)}), q = make_buffer("q", DType::i64, {Expr(4)});
  Var i = index_var("i"), t = VarNode::make("t", DataType{DType::f32, 8, false});
  Expr lanes = RampNode::make(i * 8, Expr(1), 8);
  Expr x = LoadNode::make(a, {lanes}), y = LoadNode::make(b, {lanes});
  Expr fma =
      CallNode::make(t.type(), "fma", {t, t, MinNode::make(x, y)}, CallNode::CallKind::kIntrinsic);
  Expr i64_lanes = RampNode::make(Expr(0), Expr(1), 4);
  Stmt body = SeqNode::make({
      loop(
          i, 2,
          LetStmtNode::make(
              t, x * y - BroadcastNode::make(Expr(2.0), 8),
              SeqNode::make({StoreNode::make(out, fma / BroadcastNode::make(Expr(4.0), 8), {lanes}),
                             StoreNode::make(top, MaxNode::make(x, y), {lanes})}))),
      StoreNode::make(q, LoadNode::make(p, {i64_lanes}) + LoadNode::make(q, {i64_lanes}),
                      {i64_lanes}),
  });
  auto built = build({make_func("vectors", {a, b, out, top, p, q}, 2, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("uma_vfma_f32x8"), std::string::npos);
  std::vector<float> av(16), bv(16), ov(16), tv(16);
  for (int k = 0; k < 16; ++k) {
    av[k] = static_cast<float>(k) * 0.75f - 3;
    bv[k] = 5 - static_cast<float>(k) * 0.5f;
  }
  av[3] = nan;
  bv[9] = nan;
  std::vector<std::int64_t> pv = {1, -2, std::numeric_limits<std::int64_t>::max(), 1LL << 40};
  std::vector<std::int64_t> qv = {10, 20, 1, 3};
  ASSERT_EQ(call(*built, 0, {av.data(), bv.data(), ov.data(), tv.data(), pv.data(), qv.data()}), 0);
  for (int k = 0; k < 16; ++k) {
    float tk = av[k] * bv[k] - 2;
    float low = bv[k] < av[k] ? bv[k] : av[k], high = av[k] < bv[k] ? bv[k] : av[k];
    float expected = std::fma(tk, tk, low) / 4;
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(ov[k])) << k;
    else
      EXPECT_EQ(ov[k], expected) << k;
    if (std::isnan(high))
      EXPECT_TRUE(std::isnan(tv[k])) << k;
    else
      EXPECT_EQ(tv[k], high) << k;
  }
  EXPECT_TRUE(std::isnan(tv[3]));  // max(NaN, b) is NaN
  EXPECT_EQ(tv[9], av[9]);         // max(a, NaN) is a
  std::vector<std::int64_t> sums = {11, 18, std::numeric_limits<std::int64_t>::min(),
                                    (1LL << 40) + 3};
  EXPECT_EQ(qv, sums);
}

TEST(CCodegenRun, AnArrayOfVectorsReadLaneByLane) {
  // acc (local) is written as whole vectors, so it is declared as GCC vectors; exp of it has
  // no vector form and reads it lane by lane through its elements.
  Buffer a = make_buffer("a", DType::f32, {Expr(8)}),
         out = make_buffer("out", DType::f32, {Expr(16)});
  Buffer acc = make_buffer("acc", DType::f32, {Expr(2), Expr(8)}, "local");
  Expr first = RampNode::make(Expr(0), Expr(1), 8), second = RampNode::make(Expr(8), Expr(1), 8);
  Expr exp =
      CallNode::make(DataType{DType::f32, 8, false}, "exp", {LoadNode::make(acc, {Expr(0), first})},
                     CallNode::CallKind::kIntrinsic);
  Stmt body = AllocateNode::make(
      acc, SeqNode::make({
               StoreNode::make(acc, BroadcastNode::make(Expr(0.5), 8), {Expr(0), first}),
               StoreNode::make(acc, LoadNode::make(a, {first}), {Expr(1), first}),
               StoreNode::make(out, exp, {first}),
               StoreNode::make(
                   out, LoadNode::make(acc, {Expr(1), first}) * BroadcastNode::make(Expr(2.0), 8),
                   {second}),
           }));
  auto built = build({make_func("vector_array", {a, out}, 1, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("uma_f32x8 acc[2];"), std::string::npos) << built->source.code;
  std::vector<float> av = {1, -2, 3.5f, 0, 7, -0.25f, 9, 10}, ov(16);
  ASSERT_EQ(call(*built, 0, {av.data(), ov.data()}), 0);
  for (int k = 0; k < 8; ++k) {
    EXPECT_NEAR(ov[k], std::exp(0.5f), 1e-6f) << k;
    EXPECT_EQ(ov[8 + k], av[k] * 2) << k;
  }
}

TEST(CCodegenRun, HalfPrecisionBuffersRoundOnStore) {
  Buffer a = make_buffer("a", DType::f16, {Expr(5)}),
         out = make_buffer("out", DType::f16, {Expr(5)});
  Buffer bf = make_buffer("bf", DType::bf16, {Expr(5)});
  Var i = index_var("i");
  Expr x = LoadNode::make(a, {i});
  Stmt body =
      loop(i, 5,
           SeqNode::make(
               {StoreNode::make(out, x * 3.0 + 0.1, {i}),
                StoreNode::make(bf, CastNode::make(DataType::scalar(DType::bf16), x / 3.0), {i})}));
  auto built = build({make_func("half", {a, out, bf}, 1, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<float> values = {1.0f, -2.5f, 0.333f, 65504.0f, 1e-6f};
  std::vector<std::uint16_t> av, o(5), b(5);
  for (float v : values) av.push_back(f32_to_f16(v));
  ASSERT_EQ(call(*built, 0, {av.data(), o.data(), b.data()}), 0);
  for (int k = 0; k < 5; ++k) {
    float v = f16_to_f32(av[k]);
    EXPECT_EQ(o[k], f32_to_f16(v * 3.0f + 0.1f)) << k;
    EXPECT_EQ(b[k], f32_to_bf16(v / 3.0f)) << k;
  }
}

TEST(CCodegenRun, IntegerDivisionAndPowerAreDefinedEverywhere) {
  // truncdiv truncates toward zero, gives 0 for a zero divisor and wraps INT32_MIN / -1;
  // integer pow wraps like repeated multiplication and truncates negative powers.
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  std::vector<std::int32_t> av = {7, -7, 7, -7, 5, kMin, 3, 3, -1, 2, 0};
  std::vector<std::int32_t> bv = {2, 2, -2, -2, 0, -1, 31, -2, -3, -1, 0};
  const int n = static_cast<int>(av.size());
  Buffer a = make_buffer("a", DType::i32, {Expr(n)}), b = make_buffer("b", DType::i32, {Expr(n)});
  Buffer q = make_buffer("q", DType::i32, {Expr(n)}), p = make_buffer("p", DType::i32, {Expr(n)});
  Var i = index_var("i");
  Expr x = LoadNode::make(a, {i}), y = LoadNode::make(b, {i});
  auto call2 = [](const char* name, Expr u, Expr v) {
    return CallNode::make(u.type(), name, {u, v}, CallNode::CallKind::kIntrinsic);
  };
  Stmt body = loop(i, n,
                   SeqNode::make({StoreNode::make(q, call2("truncdiv", x, y), {i}),
                                  StoreNode::make(p, call2("pow", x, y), {i})}));
  auto built = build({make_func("int_ops", {a, b, q, p}, 2, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<std::int32_t> qv(n), pv(n);
  ASSERT_EQ(call(*built, 0, {av.data(), bv.data(), qv.data(), pv.data()}), 0);
  EXPECT_EQ(qv, (std::vector<std::int32_t>{3, -3, -3, 3, 0, kMin, 0, -1, 0, -2, 0}));
  // 3^31 wraps modulo 2^32 to 1264544299.
  EXPECT_EQ(pv, (std::vector<std::int32_t>{49, 49, 0, 0, 1, 0, 1264544299, 0, -1, 0, 1}));
}

TEST(CCodegenRun, SignedOverflowWrapsAsInTheIR) {
  // The loop IR's integers wrap. In C a signed overflow is undefined, and at -O2 GCC folds
  // x + 1 > x to true; the driver's default -fwrapv makes the generated code wrap instead.
  Buffer a = make_buffer("a", DType::i32, {Expr(1)}), b = make_buffer("b", DType::i64, {Expr(1)});
  Buffer out = make_buffer("out", DType::i32, {Expr(2)});
  auto grows = [](const Buffer& buffer) {
    Expr x = LoadNode::make(buffer, {Expr(0)});
    Expr one = IntImmNode::make(x.type(), 1);
    return SelectNode::make(x + one > x, IntImmNode::make(DataType::scalar(DType::i32), 1),
                            IntImmNode::make(DataType::scalar(DType::i32), 0));
  };
  Stmt body = SeqNode::make(
      {StoreNode::make(out, grows(a), {Expr(0)}), StoreNode::make(out, grows(b), {Expr(1)})});
  auto built = build({make_func("wraps", {a, b, out}, 2, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::int32_t av = std::numeric_limits<std::int32_t>::max();
  std::int64_t bv = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int32_t> o(2, -1);
  ASSERT_EQ(call(*built, 0, {&av, &bv, o.data()}), 0);
  EXPECT_EQ(o, (std::vector<std::int32_t>{0, 0}));
}

TEST(CCodegenRun, NarrowIntegerIntrinsicsWrapToTheirType) {
  // abs(-128) of an i8 is -128 (it wraps, as negation does), also when widened afterwards.
  Buffer a = make_buffer("a", DType::i8, {Expr(3)}),
         out = make_buffer("out", DType::i16, {Expr(3)});
  Var i = index_var("i");
  Expr x = LoadNode::make(a, {i});
  Expr abs = CallNode::make(x.type(), "abs", {x}, CallNode::CallKind::kIntrinsic);
  Stmt body =
      loop(i, 3, StoreNode::make(out, CastNode::make(DataType::scalar(DType::i16), abs), {i}));
  auto built = build({make_func("narrow", {a, out}, 1, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<std::int8_t> av = {-128, -5, 7};
  std::vector<std::int16_t> o(3);
  ASSERT_EQ(call(*built, 0, {av.data(), o.data()}), 0);
  EXPECT_EQ(o, (std::vector<std::int16_t>{-128, 5, 7}));
}

TEST(CCodegenRun, WideValuesRoundOnceToHalfPrecision) {
  // 1 + 2^-11 + 2^-40 rounds to float as 1 + 2^-11, exactly between two f16 values, and
  // 2^24 + 2^16 + 1 rounds to float as the midpoint of two bf16 values: rounding to nearest
  // twice would round down, but both lie above the midpoint.
  Buffer d = make_buffer("d", DType::f64, {Expr(1)}), n = make_buffer("n", DType::i32, {Expr(1)});
  Buffer h = make_buffer("h", DType::f16, {Expr(1)}),
         bf = make_buffer("bf", DType::bf16, {Expr(1)});
  Stmt body = SeqNode::make(
      {StoreNode::make(h,
                       CastNode::make(DataType::scalar(DType::f16), LoadNode::make(d, {Expr(0)})),
                       {Expr(0)}),
       StoreNode::make(bf,
                       CastNode::make(DataType::scalar(DType::bf16), LoadNode::make(n, {Expr(0)})),
                       {Expr(0)})});
  auto built = build({make_func("wide_to_half", {d, n, h, bf}, 2, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  double dv = 1 + 0x1p-11 + 0x1p-40;
  std::int32_t nv = (1 << 24) + (1 << 16) + 1;
  std::uint16_t hv = 0, bv = 0;
  ASSERT_EQ(call(*built, 0, {&dv, &nv, &hv, &bv}), 0);
  EXPECT_EQ(hv, f32_to_f16(1 + 0x1p-10f));
  EXPECT_EQ(bv, f32_to_bf16(static_cast<float>((1 << 24) + (1 << 17))));
}

TEST(CCodegenRun, LetsIfsAndUnrolledLoops) {
  // out[i] = i < 2 ? (let t = a[i] * a[i] in t + t) : -a[i], with an unrolled loop and a let
  // statement holding the scale.
  Buffer a = make_buffer("a", DType::f32, {Expr(4)}),
         out = make_buffer("out", DType::f32, {Expr(4)});
  Var i = index_var("i"), t = VarNode::make("t", DataType::scalar(DType::f32));
  Var s = VarNode::make("s", DataType::scalar(DType::f32));
  Expr x = LoadNode::make(a, {i});
  Stmt then_case = StoreNode::make(out, LetNode::make(t, x * x, t + t) * s, {i});
  Stmt else_case = StoreNode::make(out, Expr(0.0) - x, {i});
  Stmt body = LetStmtNode::make(
      s, Expr(1.0),
      loop(i, 4, IfThenElseNode::make(i < 2, then_case, else_case), ForKind::kUnrolled));
  auto built = build({make_func("lets", {a, out}, 1, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("#pragma GCC unroll 4"), std::string::npos);
  std::vector<float> av = {1, -2, 3, -4}, o(4);
  ASSERT_EQ(call(*built, 0, {av.data(), o.data()}), 0);
  EXPECT_EQ(o, (std::vector<float>{2, 8, -3, 4}));
}

TEST(CCodegenRun, RankZeroBuffersTakeNoIndices) {
  // Scalars as rank-0 buffers, read and written with no index (as before flattening):
  // out[] = a[] * 2 + b[1], and a local acc[] summing b into total[].
  Buffer a = make_buffer("a", DType::f32, {}), b = make_buffer("b", DType::f32, {Expr(3)});
  Buffer out = make_buffer("out", DType::f32, {}), total = make_buffer("total", DType::f32, {});
  Buffer acc = make_buffer("acc", DType::f32, {});
  Var k = index_var("k");
  Stmt sum = AllocateNode::make(
      acc,
      SeqNode::make({
          StoreNode::make(acc, Expr(0.0), {}),
          loop(k, 3, StoreNode::make(acc, LoadNode::make(acc, {}) + LoadNode::make(b, {k}), {})),
          StoreNode::make(total, LoadNode::make(acc, {}), {}),
      }));
  Stmt body = SeqNode::make({
      StoreNode::make(out, LoadNode::make(a, {}) * 2.0 + LoadNode::make(b, {Expr(1)}), {}),
      sum,
  });
  auto built = build({make_func("scalars", {a, b, out, total}, 2, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  EXPECT_NE(built->source.code.find("out[0] = "), std::string::npos) << built->source.code;
  float av = 1.5f, ov = 0, tv = 0;
  std::vector<float> bv = {0.25f, -4, 8};
  ASSERT_EQ(call(*built, 0, {&av, bv.data(), &ov, &tv}), 0);
  EXPECT_EQ(ov, -1.0f);
  EXPECT_EQ(tv, 4.25f);
}

TEST(CCodegenRun, LiteralArithmeticHappensInTheIRType) {
  // 100000 * 100000 overflows int but not i64.
  Buffer out = make_buffer("out", DType::i64, {Expr(1)});
  Expr big = IntImmNode::make(DataType::scalar(DType::i64), 100000);
  Stmt body = StoreNode::make(out, MulNode::make(big, big), {Expr(0)});
  auto built = build({make_func("literals", {out}, 0, body)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<std::int64_t> o(1);
  ASSERT_EQ(call(*built, 0, {o.data()}), 0);
  EXPECT_EQ(o[0], 10000000000);
}

}  // namespace
}  // namespace uma::codegen
