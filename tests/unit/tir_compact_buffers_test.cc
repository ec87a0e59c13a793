// compact-buffers: golden loop IR, allocations that must stay, and results unchanged.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

// tmp = x * 2 row by row, then out = tmp + 1 in the same row loop; tmp is allocated whole.
PrimFunc row_chain() {
  Buffer x = make_buffer("x", DType::f32, {Expr(4), Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4), Expr(8)});
  Buffer tmp = make_buffer("tmp", DType::f32, {Expr(4), Expr(8)});
  Var i = var("i"), j = var("j"), jj = var("jj");
  Stmt body =
      loop(i, 4,
           SeqNode::make({
               BlockNode::make(
                   "scale", {x}, {tmp},
                   loop(j, 8, StoreNode::make(tmp, LoadNode::make(x, {i, j}) * 2.0, {i, j}))),
               BlockNode::make(
                   "add_one", {tmp}, {out},
                   loop(jj, 8, StoreNode::make(out, LoadNode::make(tmp, {i, jj}) + 1.0, {i, jj}))),
           }));
  return make_func("f", {x, out}, 1, AllocateNode::make(tmp, body));
}

TEST(TirCompactBuffers, MovesIntoTheLoopAndShrinks) {
  PrimFunc before = row_chain();
  PrimFunc after = apply(compact_buffers_pass(), before);
  EXPECT_EQ(to_string(after), R"(func @f(%x: f32[4, 8]) -> (%out: f32[4, 8]) {
  for (i, 0, 4) {
    allocate %tmp: f32[1, 8] in "local" {
      block scale(reads: %x; writes: %tmp) {
        for (j, 0, 8) {
          %tmp[0, j] = %x[i, j] * 2.0f
        }
      }
      block add_one(reads: %tmp; writes: %out) {
        for (jj, 0, 8) {
          %out[i, jj] = %tmp[0, jj] + 1.0f
        }
      }
    }
  }
}
)");
  expect_same_results(before, after);
}

TEST(TirCompactBuffers, LeavesValuesThatCrossIterations) {
  // out[i] = s[0] (the previous row's x), then s[0] = x[i]: s carries a value from one
  // iteration of i to the next.
  Buffer x = make_buffer("x", DType::f32, {Expr(4)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  Buffer s = make_buffer("s", DType::f32, {Expr(1)});
  Var i = var("i");
  Stmt body = SeqNode::make({
      StoreNode::make(s, Expr(0.0), {Expr(0)}),
      loop(i, 4,
           SeqNode::make({StoreNode::make(out, LoadNode::make(s, {Expr(0)}), {i}),
                          StoreNode::make(s, LoadNode::make(x, {i}), {Expr(0)})})),
  });
  PrimFunc func = make_func("carry", {x, out}, 1, AllocateNode::make(s, body));
  EXPECT_TRUE(apply(compact_buffers_pass(), func).body.same_as(func.body));
  // The same with every access in the loop.
  func.body =
      AllocateNode::make(s, loop(i, 4,
                                 SeqNode::make({
                                     StoreNode::make(out, LoadNode::make(s, {Expr(0)}), {i}),
                                     StoreNode::make(s, LoadNode::make(x, {i}), {Expr(0)}),
                                 })));
  EXPECT_TRUE(apply(compact_buffers_pass(), func).body.same_as(func.body));
}

}  // namespace
}  // namespace uma::tir
