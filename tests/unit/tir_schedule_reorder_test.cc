// reorder: golden loop IR, errors, and the conv2d nest compiled before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleReorder, Golden) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 1, .s = 1};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  // q and k swap places; n and p, not given, stay.
  expect_ok(sch.reorder({l[3], l[1]}));
  // The reduction loops in reverse.
  expect_ok(sch.reorder({l[6], l[5], l[4]}));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 1, 1]) -> (%out: f32[1, 2, 4, 4]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) {
    for (n, 0, 1) {
      for (q, 0, 4) {
        for (p, 0, 4) {
          for (k, 0, 2) {
            %out[n, k, p, q] = 0.0f
            for (s, 0, 1) {
              for (r, 0, 1) {
                for (c, 0, 2) {
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
  expect_ok(verify(sch.func()));
}

TEST(TirScheduleReorder, Errors) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 1, .s = 1};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
  EXPECT_EQ(error_of(sch.reorder({})), "reorder: no loops given");
  EXPECT_EQ(error_of(sch.reorder({l[0], l[0]})), "reorder: loop 'n' is given twice");
  // q's body is a sequence (the initialization, then the c loop).
  EXPECT_EQ(error_of(sch.reorder({l[4], l[3]})),
            "reorder: loops 'q' and 'c' are not perfectly nested: a Seq lies between them");

  // Loops side by side, and bounds that use an outer loop.
  Buffer a = make_buffer("a", DType::f32, {Expr(4), Expr(4)});
  Var i = VarNode::make("i"), j = VarNode::make("j"), t = VarNode::make("t");
  PrimFunc func;
  func.name = "triangle";
  func.params = {a};
  func.body =
      BlockNode::make("triangle", {}, {a},
                      SeqNode::make({loop(i, 4,
                                          ForNode::make(j, Expr(0), i + 1, ForKind::kSerial,
                                                        StoreNode::make(a, Expr(1.0), {i, j}))),
                                     loop(t, 4, StoreNode::make(a, Expr(0.0), {t, t}))}));
  Schedule tri(func);
  EXPECT_EQ(error_of(tri.reorder({LoopRef{j}, LoopRef{i}})),
            "reorder: the bounds of loop 'j' use loop 'i', which would be inside it");
  EXPECT_EQ(error_of(tri.reorder({LoopRef{t}, LoopRef{i}})),
            "reorder: loops 'i' and 't' are not nested one in the other");
}

TEST(TirScheduleReorder, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    expect_ok(sch.reorder({l[3], l[2], l[1], l[0]}));
    expect_ok(sch.reorder({l[6], l[4], l[5]}));
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
