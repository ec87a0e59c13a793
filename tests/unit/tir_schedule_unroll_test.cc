// unroll: golden loop IR, errors, and the conv2d nest compiled before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleUnroll, Golden) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 3, .s = 3};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
  expect_ok(sch.unroll(l[5]));
  expect_ok(sch.unroll(l[6]));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 3, 3]) -> (%out: f32[1, 2, 2, 2]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) {
    for (n, 0, 1) {
      for (k, 0, 2) {
        for (p, 0, 2) {
          for (q, 0, 2) {
            %out[n, k, p, q] = 0.0f
            for (c, 0, 2) {
              unrolled for (r, 0, 3) {
                unrolled for (s, 0, 3) {
                  %out[n, k, p, q] = %out[n, k, p, q] + %x[n, c, p + r, q + s] * %w[k, c, r, s]
                }
              }
            }
          }
        }
      }
    }
  }
}
)");
}

TEST(TirScheduleUnroll, NonConstantExtentIsAnError) {
  Buffer a = make_buffer("a", DType::f32, {VarNode::make("n")});
  Var i = VarNode::make("i");
  PrimFunc func;
  func.name = "f";
  func.params = {a};
  func.body =
      BlockNode::make("f", {}, {a}, loop(i, a->shape[0], StoreNode::make(a, Expr(0.0), {i})));
  Schedule sch(func);
  EXPECT_EQ(error_of(sch.unroll(LoopRef{i})), "unroll: loop 'i' has extent n, not a constant");
}

TEST(TirScheduleUnroll, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    expect_ok(sch.unroll(l[5]));
    expect_ok(sch.unroll(l[6]));
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
