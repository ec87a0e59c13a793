// Golden tests of the arithmetic simplifier: specific rewrites, as printed text.
#include "uma/tir/simplify.h"

#include <gtest/gtest.h>

#include <cmath>

#include "uma/tir/printer.h"

namespace uma::tir {
namespace {

const DataType f32 = DataType::scalar(DType::f32);
const DataType i32 = DataType::scalar(DType::i32);
const DataType u8 = DataType::scalar(DType::u8);

class TirSimplify : public ::testing::Test {
 protected:
  Var i = VarNode::make("i"), j = VarNode::make("j"), k = VarNode::make("k");
  Var n = VarNode::make("n");
  Var x = VarNode::make("x", f32);
  // 0 <= i < 16, 0 <= j < 4, 0 <= k < 3; n unknown.
  Bounds known{{i.as<VarNode>(), Interval::range(0, 16)},
               {j.as<VarNode>(), Interval::range(0, 4)},
               {k.as<VarNode>(), Interval::range(0, 3)}};

  std::string s(const Expr& e) { return to_string(simplify(e, known)); }
  std::string s(const Stmt& st) { return to_string(simplify(st)); }
};

TEST_F(TirSimplify, FoldsIntegerConstantsWithFloorSemantics) {
  EXPECT_EQ(s(Expr(7) / 2), "3");
  EXPECT_EQ(s(Expr(-7) / 2), "-4");
  EXPECT_EQ(s(Expr(-7) % 2), "1");
  EXPECT_EQ(s(Expr(7) % -2), "-1");
  EXPECT_EQ(s(Expr(7) / -2), "-4");
  EXPECT_EQ(s(min(Expr(3), Expr(-2)) + max(Expr(1), Expr(5))), "3");
  EXPECT_EQ(s(Expr(3) < Expr(4)), "true");
  // Division by zero is left for the program to meet.
  EXPECT_EQ(s(Expr(1) / 0), "1 / 0");
}

TEST_F(TirSimplify, FoldsConstantsOfEveryType) {
  // i32 overflow is undefined in C: not folded. u8 wraps.
  EXPECT_EQ(s(IntImmNode::make(i32, INT32_MAX) + IntImmNode::make(i32, 1)), "2147483647i32 + 1i32");
  EXPECT_EQ(s(IntImmNode::make(u8, 250) + IntImmNode::make(u8, 10)), "4u8");
  EXPECT_EQ(s(IntImmNode::make(u8, 3) - IntImmNode::make(u8, 5)), "254u8");
  // f32 arithmetic in f32: 0.1f + 0.2f is 0.3f's neighbour, as at run time.
  EXPECT_EQ(s(Expr(0.1) + Expr(0.2)), "0.3f");
  EXPECT_EQ(s(Expr(1.0) / Expr(3.0)), "0.33333334f");
  EXPECT_EQ(s(Expr(1.0) / Expr(0.0)), "inff");
  EXPECT_EQ(s(Expr(2.0) < Expr(3.0)), "true");
  EXPECT_EQ(s(min(Expr(std::nan("")), Expr(1.0))), "min(nanf, 1.0f)");
  EXPECT_EQ(s(CastNode::make(i32, Expr(-2.7))), "-2i32");
  EXPECT_EQ(s(CastNode::make(i32, Expr(3e9))), "i32(3e+09f)");
  EXPECT_EQ(s(CastNode::make(u8, Expr(300))), "44u8");
  EXPECT_EQ(s(CastNode::make(f32, Expr(3))), "3.0f");
  EXPECT_EQ(s(!(Expr(1) < Expr(2)) || Expr(2) == Expr(2)), "true");
}

TEST_F(TirSimplify, FloatIdentitiesOnlyWhenExact) {
  EXPECT_EQ(s(x * 1.0), "x");
  EXPECT_EQ(s(x / 1.0), "x");
  EXPECT_EQ(s(x - 0.0), "x");
  EXPECT_EQ(s(x + -0.0), "x");
  EXPECT_EQ(s(x * 0.0), "x * 0.0f");  // NaN, inf and -0.0 say no
  EXPECT_EQ(s(x + 0.0), "x + 0.0f");  // -0.0 + 0.0 is +0.0
  EXPECT_EQ(s(x - x), "x - x");       // NaN - NaN is NaN
  EXPECT_EQ(s(!(x < 1.0)), "!(x < 1.0f)");
  EXPECT_EQ(s(!(x == 1.0)), "x != 1.0f");
}

TEST_F(TirSimplify, CanonicalLinearForms) {
  EXPECT_EQ(s(n - n), "0");
  EXPECT_EQ(s(n + 0), "n");
  EXPECT_EQ(s(n * 1), "n");
  EXPECT_EQ(s(n * 0), "0");
  EXPECT_EQ(s((n + 1) * 4 - 4), "n * 4");
  EXPECT_EQ(s(i + n * 4 + 2 + i), "n * 4 + i * 2 + 2");
  EXPECT_EQ(s(j + (i * 8 + n * 64)), "n * 64 + i * 8 + j");
  EXPECT_EQ(s(1 - n), "1 - n");
  EXPECT_EQ(s(0 - n - 1), "n * -1 - 1");
  EXPECT_EQ(s(i - n), "i - n");
  EXPECT_EQ(s(n * i - i * n), "0");
  EXPECT_EQ(s(n * i), "i * n");
  EXPECT_EQ(s((n * 2) * (i * -3) + 8), "8 - i * n * 6");
  EXPECT_EQ(s(n * (i * 4)), "i * n * 4");
}

TEST_F(TirSimplify, DivisionAndModuloUseBounds) {
  EXPECT_EQ(s((i * 4 + j) / 4), "i");
  EXPECT_EQ(s((i * 4 + j) % 4), "j");
  EXPECT_EQ(s((i * 4 + j + 4) / 4), "i + 1");
  EXPECT_EQ(s((i * 4 + j) / 2), "i * 2 + j / 2");
  EXPECT_EQ(s((n * 4 + j) / 4), "n");
  EXPECT_EQ(s((n * 8 + i) / 4), "n * 2 + i / 4");
  EXPECT_EQ(s((n * 8 + k) / 4), "n * 2");
  EXPECT_EQ(s((n * 4 + n) / 4), "n * 5 / 4");
  EXPECT_EQ(s(j / 4), "0");
  EXPECT_EQ(s(j % 4), "j");
  EXPECT_EQ(s(k % 2), "k % 2");
  EXPECT_EQ(s((n * 6 + 2) / 4), "(n * 3 + 1) / 2");
  EXPECT_EQ(s((n + 5) / 4), "(n + 5) / 4");
  EXPECT_EQ(s((n * 5 + 1) % 4), "(n + 1) % 4");
  EXPECT_EQ(s((n - 1) % 4), "(n - 1) % 4");
  EXPECT_EQ(s(n / 2 / 3), "n / 6");
  EXPECT_EQ(s(n % 12 % 4), "n % 4");
  EXPECT_EQ(s(n / 1), "n");
  EXPECT_EQ(s(n % 1), "0");
  // What splitting and fusing a loop leaves.
  EXPECT_EQ(s(n / 8 * 8 + n % 8), "n");
  EXPECT_EQ(s(n - n / 8 * 8), "n % 8");
  EXPECT_EQ(s((i * 3 + n) / 8 * 8 + (i * 3 + n) % 8), "i * 3 + n");
  // A non-constant divisor larger than the dividend.
  Var m = VarNode::make("m");
  Bounds m_known = known;
  m_known[m.as<VarNode>()] = {20, 30};
  EXPECT_EQ(to_string(simplify(i / m + i % m, m_known)), "i");
}

TEST_F(TirSimplify, MinMaxWithConstantsAndBounds) {
  EXPECT_EQ(s(min(i, 16)), "i");
  EXPECT_EQ(s(max(i, 15)), "15");
  EXPECT_EQ(s(min(i, 10)), "min(i, 10)");
  EXPECT_EQ(s(min(10, n)), "min(n, 10)");
  EXPECT_EQ(s(min(n + 1, n)), "n");
  EXPECT_EQ(s(max(n + 1, n - 1)), "n + 1");
  EXPECT_EQ(s(min(min(n, 8), 4)), "min(n, 4)");
  EXPECT_EQ(s(max(max(n, 8), 4)), "max(n, 8)");
  EXPECT_EQ(s(max(min(n, 8), 10)), "10");
}

TEST_F(TirSimplify, ComparisonsDecidedByBoundsOrCanonical) {
  EXPECT_EQ(s(i < 16), "true");
  EXPECT_EQ(s(i * 4 + j < 64), "true");
  EXPECT_EQ(s(i >= 0 && j < 4), "true");
  EXPECT_EQ(s(i > 15), "false");
  EXPECT_EQ(s(i == 16), "false");
  EXPECT_EQ(s(i < 10), "i < 10");
  EXPECT_EQ(s(i + 1 < 10), "i < 9");
  EXPECT_EQ(s(5 < n), "n > 5");
  EXPECT_EQ(s(n + 1 < i), "n < i - 1");
  EXPECT_EQ(s(n - i == 2), "n == i + 2");
  EXPECT_EQ(s(!(n < 4)), "n >= 4");
  EXPECT_EQ(s(n < 4 && true), "n < 4");
  EXPECT_EQ(s(n < 4 || i < 16), "true");
}

TEST_F(TirSimplify, SelectsCastsAndLets) {
  EXPECT_EQ(s(SelectNode::make(i < 16, n, n + 1)), "n");
  EXPECT_EQ(s(SelectNode::make(n < 3, x, x)), "x");
  EXPECT_EQ(s(CastNode::make(DataType::scalar(DType::i64), n)), "n");
  Var t = VarNode::make("t");
  EXPECT_EQ(s(LetNode::make(t, Expr(3), t * n)), "n * 3");
  EXPECT_EQ(s(LetNode::make(t, n * 2, t + t)), "(let t = n * 2 in t * 2)");
  EXPECT_EQ(s(LetNode::make(t, i * 4 + j, t / 4)), "(let t = i * 4 + j in t / 4)");
  EXPECT_EQ(s(LetNode::make(t, n * 2, i)), "i");
}

TEST_F(TirSimplify, VectorsOfBroadcastsAndRamps) {
  Expr ramp = RampNode::make(i * 8, 1, 8);
  EXPECT_EQ(s(ramp + BroadcastNode::make(n, 8)), "ramp(i * 8 + n, 1, 8)");
  EXPECT_EQ(s(ramp * BroadcastNode::make(Expr(2), 8)), "ramp(i * 16, 2, 8)");
  EXPECT_EQ(s(BroadcastNode::make(n, 4) + BroadcastNode::make(n, 4)), "x4(n * 2)");
  EXPECT_EQ(s(RampNode::make(n, 0, 4)), "x4(n)");
  EXPECT_EQ(s(RampNode::make(n, 1, 4) - RampNode::make(n, 1, 4)), "x4(0)");
}

TEST_F(TirSimplify, StatementsUseLoopRanges) {
  Buffer a = make_buffer("A", DType::f32, {Expr(64)});
  Buffer b = make_buffer("B", DType::f32, {Expr(16), Expr(4)});
  Var io = VarNode::make("io"), ii = VarNode::make("ii");
  // A split loop: (io * 4 + ii) / 4 is io and % 4 is ii because 0 <= ii < 4.
  Expr fused = io * 4 + ii;
  Stmt loop = ForNode::make(
      io, 0, 16, ForKind::kSerial,
      ForNode::make(ii, 0, 4, ForKind::kSerial,
                    IfThenElseNode::make(fused < 64, StoreNode::make(b, LoadNode::make(a, {fused}),
                                                                     {fused / 4, fused % 4}))));
  EXPECT_EQ(s(loop), R"(for (io, 0, 16) {
  for (ii, 0, 4) {
    %B[io, ii] = %A[io * 4 + ii]
  }
}
)");
}

TEST_F(TirSimplify, TrivialLoopsAndBranchesGoAway) {
  Buffer a = make_buffer("A", DType::f32, {Expr(8)});
  Var c = VarNode::make("c");
  Stmt one = ForNode::make(c, 2, 1, ForKind::kSerial, StoreNode::make(a, Expr(1.0), {c * 2}));
  EXPECT_EQ(s(one), "%A[4] = 1.0f\n");
  Stmt none = ForNode::make(c, 0, 0, ForKind::kSerial, StoreNode::make(a, Expr(1.0), {c}));
  Stmt never = IfThenElseNode::make(Expr(1) > Expr(2), StoreNode::make(a, Expr(1.0), {Expr(0)}));
  Stmt always = IfThenElseNode::make(Expr(1) < Expr(2), StoreNode::make(a, Expr(2.0), {Expr(0)}),
                                     StoreNode::make(a, Expr(3.0), {Expr(0)}));
  EXPECT_EQ(s(SeqNode::make({none, never, always})), "%A[0] = 2.0f\n");
  EXPECT_EQ(s(SeqNode::make({none, never})), "0\n");
  Var t = VarNode::make("t");
  Stmt let = LetStmtNode::make(t, Expr(3), StoreNode::make(a, Expr(1.0), {t + 1}));
  EXPECT_EQ(s(let), "%A[4] = 1.0f\n");
}

TEST_F(TirSimplify, BranchesNarrowBounds) {
  Buffer a = make_buffer("A", DType::f32, {Expr(8)});
  Var c = VarNode::make("c");
  // Inside `if (c < 4)`, c / 4 is 0; in the else branch c >= 4, so c / 4 is 1 for c < 8.
  Stmt body = IfThenElseNode::make(c < 4, StoreNode::make(a, Expr(1.0), {c / 4}),
                                   StoreNode::make(a, Expr(2.0), {c / 4}));
  EXPECT_EQ(s(ForNode::make(c, 0, 8, ForKind::kSerial, body)), R"(for (c, 0, 8) {
  if (c < 4) {
    %A[0] = 1.0f
  } else {
    %A[1] = 2.0f
  }
}
)");
}

TEST_F(TirSimplify, UnchangedExpressionsKeepTheirHandle) {
  Expr e = (n + 5) / 4;
  EXPECT_TRUE(simplify(e).same_as(e));
  Expr canonical = n * 4 + i;
  EXPECT_TRUE(simplify(canonical).same_as(canonical));
}

TEST_F(TirSimplify, SimplifyingTwiceChangesNothing) {
  for (Expr e : {i * 4 + j - n, (n * 6 + 2) / 4, 0 - n - 1, n / 8 * 8 + n % 8 + k, min(10, n)}) {
    Expr once = simplify(e, known);
    EXPECT_EQ(to_string(simplify(once, known)), to_string(once));
  }
}

}  // namespace
}  // namespace uma::tir
