// Unit tests of integer intervals and the bounds of index expressions.
#include "uma/tir/interval.h"

#include <gtest/gtest.h>

namespace uma::tir {
namespace {

constexpr std::int64_t kNegInf = Interval::kNegInf;
constexpr std::int64_t kPosInf = Interval::kPosInf;

TEST(TirInterval, FloorDivisionAndModulo) {
  EXPECT_EQ(floor_div(7, 2), 3);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_div(7, -2), -4);
  EXPECT_EQ(floor_div(-7, -2), 3);
  EXPECT_EQ(floor_mod(-7, 2), 1);
  EXPECT_EQ(floor_mod(7, -2), -1);
  EXPECT_EQ(floor_mod(-8, 4), 0);
}

TEST(TirInterval, ArithmeticSaturatesAtInfinity) {
  Interval everything = Interval::everything();
  EXPECT_EQ(Interval::range(2, 3), (Interval{2, 4}));
  EXPECT_EQ((Interval{0, 3} + Interval{kNegInf, 5}), (Interval{kNegInf, 8}));
  EXPECT_EQ((Interval{0, 3} - Interval{1, kPosInf}), (Interval{kNegInf, 2}));
  EXPECT_EQ((Interval{-2, 3} * Interval{4, 5}), (Interval{-10, 15}));
  EXPECT_EQ(Interval::point(0) * everything, Interval::point(0));
  EXPECT_EQ((Interval{1, 2} * everything), everything);
  EXPECT_EQ((Interval{kPosInf - 1, kPosInf - 1} + Interval::point(5)).max, kPosInf);
}

TEST(TirInterval, DivisionAndModulo) {
  EXPECT_EQ(floor_div(Interval{-7, 9}, Interval::point(4)), (Interval{-2, 2}));
  EXPECT_EQ(floor_div(Interval{-7, 9}, Interval::point(-4)), (Interval{-3, 1}));
  EXPECT_EQ(floor_div(Interval{8, 20}, Interval{2, 4}), (Interval{2, 10}));
  EXPECT_EQ(floor_div(Interval{-8, 20}, Interval{2, kPosInf}), (Interval{-4, 10}));
  EXPECT_EQ(floor_div(Interval{1, 2}, Interval{-1, 1}), Interval::everything());
  EXPECT_EQ(floor_mod(Interval{-7, 9}, Interval::point(4)), (Interval{0, 3}));
  EXPECT_EQ(floor_mod(Interval{5, 6}, Interval::point(4)), (Interval{1, 2}));
  EXPECT_EQ(floor_mod(Interval{-3, -1}, Interval::point(4)), (Interval{1, 3}));
  EXPECT_EQ(floor_mod(Interval{0, 2}, Interval{5, 9}), (Interval{0, 2}));
  EXPECT_EQ(floor_mod(Interval{0, 20}, Interval{5, 9}), (Interval{0, 8}));
  EXPECT_EQ(floor_mod(Interval::everything(), Interval::point(-4)), (Interval{-3, 0}));
}

TEST(TirInterval, BoundsOfExpressions) {
  Var i = VarNode::make("i"), j = VarNode::make("j"), n = VarNode::make("n");
  Bounds known{{i.as<VarNode>(), Interval::range(0, 16)}, {j.as<VarNode>(), Interval::range(0, 4)}};
  EXPECT_EQ(bounds_of(i * 4 + j, known), (Interval{0, 63}));
  EXPECT_EQ(bounds_of((i * 4 + j) / 4, known), (Interval{0, 15}));
  EXPECT_EQ(bounds_of(n % 8, known), (Interval{0, 7}));
  EXPECT_EQ(bounds_of(min(n, i), known), (Interval{kNegInf, 15}));
  EXPECT_EQ(bounds_of(SelectNode::make(n < 0, i, j + 20), known), (Interval{0, 23}));
  Var t = VarNode::make("t");
  EXPECT_EQ(bounds_of(LetNode::make(t, i * 2, t + 1), known), (Interval{1, 31}));
  // Types bound what nothing else does; i32 values stay within i32.
  Var k = VarNode::make("k", DataType::scalar(DType::i32));
  EXPECT_EQ(bounds_of(k, known), (Interval{INT32_MIN, INT32_MAX}));
  Buffer b = make_buffer("b", DType::u8, {Expr(4)});
  EXPECT_EQ(bounds_of(CastNode::make(DataType::scalar(DType::i64), LoadNode::make(b, {i})), known),
            (Interval{0, 255}));
  EXPECT_EQ(bounds_of(n, known), Interval::everything());
}

}  // namespace
}  // namespace uma::tir
