// vectorize: golden loop IR, errors, and the conv2d nest compiled before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleVectorize, Golden) {
  Schedule sch(elementwise(6, 16));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], 8));
  expect_ok(sch.vectorize(j[1]));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[6, 16], %b: f32[6, 16]) -> (%out: f32[6, 16]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i, 0, 6) {
      for (j_outer, 0, 2) {
        vectorized for (j_inner, 0, 8) {
          %out[i, j_outer * 8 + j_inner] = %a[i, j_outer * 8 + j_inner] * 2.0f + %b[i, j_outer * 8 + j_inner]
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
}

TEST(TirScheduleVectorize, Errors) {
  Buffer a = make_buffer("a", DType::f32, {VarNode::make("n")});
  Buffer sum = make_buffer("sum", DType::f32, {Expr(1)});
  Var i = VarNode::make("i"), k = VarNode::make("k");
  PrimFunc func;
  func.name = "f";
  func.params = {a, sum};
  func.num_inputs = 1;
  func.body = BlockNode::make(
      "f", {a}, {a, sum},
      SeqNode::make(
          {loop(i, a->shape[0], StoreNode::make(a, Expr(0.0), {i})),
           loop(k, 8, StoreNode::make(sum, LoadNode::make(sum, {Expr(0)}) + 1.0, {Expr(0)}))}));
  Schedule sch(func);
  EXPECT_EQ(error_of(sch.vectorize(LoopRef{i})),
            "vectorize: loop 'i' has extent n, not a constant");
  EXPECT_EQ(error_of(sch.vectorize(LoopRef{k})),
            "vectorize: loop 'k' carries a reduction: it stores to %sum at indices that do not "
            "use it");
}

TEST(TirScheduleVectorize, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    UMA_SCHED_ASSIGN(auto q, sch.split(l[3], 4));
    expect_ok(sch.vectorize(q[1]));
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
