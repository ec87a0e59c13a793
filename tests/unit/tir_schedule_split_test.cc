// split: golden loop IR, errors, and the conv2d nest compiled before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleSplit, Golden) {
  Schedule sch(elementwise(6, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  // 10 by 4 leaves a tail: a guard. 6 by 3 divides: none.
  UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], 4));
  UMA_SCHED_ASSIGN(auto i, sch.split(loops[0], 3, TailStrategy::kError));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[6, 10], %b: f32[6, 10]) -> (%out: f32[6, 10]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i_outer, 0, 2) {
      for (i_inner, 0, 3) {
        for (j_outer, 0, 3) {
          for (j_inner, 0, 4) {
            if (j_outer * 4 + j_inner < 10) {
              %out[i_outer * 3 + i_inner, j_outer * 4 + j_inner] = %a[i_outer * 3 + i_inner, j_outer * 4 + j_inner] * 2.0f + %b[i_outer * 3 + i_inner, j_outer * 4 + j_inner]
            }
          }
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  EXPECT_EQ(i[0].var.as<VarNode>()->name, "i_outer");
  EXPECT_EQ(j[1].var.as<VarNode>()->name, "j_inner");
}

TEST(TirScheduleSplit, SymbolicExtentAndNonzeroMin) {
  Buffer a = make_buffer("a", DType::f32, {VarNode::make("n")});
  Var i = VarNode::make("i");
  PrimFunc func;
  func.name = "fill";
  func.params = {a};
  func.body = BlockNode::make("fill", {}, {a},
                              ForNode::make(i, Expr(1), a->shape[0] - 1, ForKind::kParallel,
                                            StoreNode::make(a, Expr(1.0), {i})));
  Schedule sch(func);
  EXPECT_EQ(error_of(sch.split(LoopRef{i}, 8, TailStrategy::kError)),
            "split: extent n - 1 of loop 'i' is not a constant multiple of 8");
  UMA_SCHED_ASSIGN(auto halves, sch.split(LoopRef{i}, 8));
  (void)halves;
  EXPECT_EQ(to_string(sch.func()), R"(func @fill() -> (%a: f32[n]) {
  block fill(writes: %a) {
    parallel for (i_outer, 0, (n - 1 + 7) / 8) {
      for (i_inner, 0, 8) {
        if (i_outer * 8 + i_inner < n - 1) {
          %a[i_outer * 8 + i_inner + 1] = 1.0f
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
}

TEST(TirScheduleSplit, Errors) {
  Schedule sch(elementwise(6, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  EXPECT_EQ(error_of(sch.split(loops[1], 0)),
            "split: the factor of loop 'j' must be positive, got 0");
  EXPECT_EQ(error_of(sch.split(loops[1], 4, TailStrategy::kError)),
            "split: extent 10 of loop 'j' is not a multiple of 4");
  // A failed split changes nothing.
  EXPECT_EQ(to_string(sch.func()), to_string(elementwise(6, 10)));
}

TEST(TirScheduleSplit, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto loops, sch.get_loops(conv));
    ASSERT_TRUE(sch.split(loops[3], 3).ok());  // q, mostly with a tail
    ASSERT_TRUE(sch.split(loops[4], 2).ok());  // c, the reduction
    ASSERT_TRUE(sch.split(loops[0], 4).ok());  // n, beyond its extent
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
