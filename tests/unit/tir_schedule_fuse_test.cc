// fuse: golden loop IR, errors, and the conv2d nest compiled before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleFuse, Golden) {
  Schedule sch(elementwise(6, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(LoopRef fused, sch.fuse(loops[0], loops[1]));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[6, 10], %b: f32[6, 10]) -> (%out: f32[6, 10]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i_j_fused, 0, 60) {
      %out[i_j_fused / 10, i_j_fused % 10] = %a[i_j_fused / 10, i_j_fused % 10] * 2.0f + %b[i_j_fused / 10, i_j_fused % 10]
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  EXPECT_EQ(fused.var.as<VarNode>()->name, "i_j_fused");
}

TEST(TirScheduleFuse, Errors) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 1, .s = 1};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  EXPECT_EQ(error_of(sch.fuse(l[3], l[4])), "fuse: loop 'c' is not the whole body of loop 'q'");
  EXPECT_EQ(error_of(sch.fuse(l[1], l[0])), "fuse: loop 'n' is not the whole body of loop 'k'");
  expect_ok(sch.parallel(l[1]));
  EXPECT_EQ(error_of(sch.fuse(l[1], l[2])),
            "fuse: loops 'k' (parallel) and 'p' (serial) are of different kinds");
}

TEST(TirScheduleFuse, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    UMA_SCHED_ASSIGN(LoopRef nk, sch.fuse(l[0], l[1]));
    UMA_SCHED_ASSIGN(LoopRef nkp, sch.fuse(nk, l[2]));
    UMA_SCHED_ASSIGN(LoopRef rs, sch.fuse(l[5], l[6]));
    (void)nkp;
    (void)rs;
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
