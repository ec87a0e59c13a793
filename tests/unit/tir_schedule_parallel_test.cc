// parallel: golden loop IR, errors, and the conv2d nest compiled with OpenMP.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleParallel, Golden) {
  Schedule sch(elementwise(6, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  expect_ok(sch.parallel(loops[0]));
  expect_ok(sch.parallel(loops[0]));  // again: nothing changes
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[6, 10], %b: f32[6, 10]) -> (%out: f32[6, 10]) {
  block scale_add(reads: %a, %b; writes: %out) {
    parallel for (i, 0, 6) {
      for (j, 0, 10) {
        %out[i, j] = %a[i, j] * 2.0f + %b[i, j]
      }
    }
  }
}
)");
}

TEST(TirScheduleParallel, AReductionLoopIsAnError) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 1, .s = 1};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
  EXPECT_EQ(error_of(sch.parallel(l[4])),
            "parallel: loop 'c' carries a reduction: it stores to %out at indices that do not "
            "use it");
}

TEST(TirScheduleParallel, ConvRunsWithOpenMP) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    UMA_SCHED_ASSIGN(LoopRef nk, sch.fuse(l[0], l[1]));
    expect_ok(sch.parallel(nk));
    expect_conv_matches(sch.func(), sh, {}, /*openmp=*/true);
  }
}

}  // namespace
}  // namespace uma::tir
