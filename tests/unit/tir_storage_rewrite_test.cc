// Golden tests of the storage-rewrite pass, and checks that it preserves results.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

Expr at(const Buffer& b, Expr index) { return LoadNode::make(b, {std::move(index)}); }

// Four blocks in a chain through three intermediates; t1 is dead when t3 is born.
PrimFunc chain() {
  Buffer a = make_buffer("a", DType::f32, {Expr(16)});
  Buffer out = make_buffer("out", DType::f32, {Expr(16)});
  Buffer t1 = make_buffer("t1", DType::f32, {Expr(16)});
  Buffer t2 = make_buffer("t2", DType::f32, {Expr(16)});
  Buffer t3 = make_buffer("t3", DType::f32, {Expr(8)});
  Var i = var("i"), j = var("j"), k = var("k"), l = var("l");
  Stmt blocks = SeqNode::make({
      BlockNode::make("b1", {a}, {t1}, loop(i, 16, StoreNode::make(t1, at(a, i) + 1.0, {i}))),
      BlockNode::make("b2", {t1}, {t2}, loop(j, 16, StoreNode::make(t2, at(t1, j) * 2.0, {j}))),
      BlockNode::make("b3", {t2}, {t3},
                      loop(k, 8, StoreNode::make(t3, at(t2, k) + at(t2, k + 8), {k}))),
      BlockNode::make("b4", {t3}, {out}, loop(l, 16, StoreNode::make(out, at(t3, l % 8), {l}))),
  });
  return make_func("chain", {a, out}, 1,
                   AllocateNode::make(t1, AllocateNode::make(t2, AllocateNode::make(t3, blocks))));
}

TEST(StorageRewrite, BuffersThatAreNeverLiveTogetherShareOneAllocation) {
  PrimFunc after = apply(storage_rewrite_pass(), chain());
  EXPECT_EQ(to_string(after), R"(func @chain(%a: f32[16]) -> (%out: f32[16]) {
  allocate %t1: f32[16] {
    allocate %t2: f32[16] {
      block b1(reads: %a; writes: %t1) {
        for (i, 0, 16) {
          %t1[i] = %a[i] + 1.0f
        }
      }
      block b2(reads: %t1; writes: %t2) {
        for (j, 0, 16) {
          %t2[j] = %t1[j] * 2.0f
        }
      }
      block b3(reads: %t2; writes: %t1) {
        for (k, 0, 8) {
          %t1[k] = %t2[k] + %t2[k + 8]
        }
      }
      block b4(reads: %t1; writes: %out) {
        for (l, 0, 16) {
          %out[l] = %t1[l % 8]
        }
      }
    }
  }
}
)");
  expect_same_results(chain(), after);
}

// Buffers that must stay apart: another dtype, another scope, the local scope, and a value
// carried from one iteration of a loop to the next.
PrimFunc apart() {
  Buffer a = make_buffer("a", DType::f32, {Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(16)});
  Buffer p = make_buffer("p", DType::f32, {Expr(1)});
  Buffer q = make_buffer("q", DType::f32, {Expr(1)});
  Buffer n = make_buffer("n", DType::i32, {Expr(1)});
  Buffer s = make_buffer("s", DType::f32, {Expr(1)}, "sram");
  Buffer r = make_buffer("r", DType::f32, {Expr(1)}, "local");
  Var i = var("i");
  Stmt carried = SeqNode::make({
      StoreNode::make(p, Expr(0.0), {Expr(0)}),
      loop(i, 4,
           SeqNode::make({
               StoreNode::make(p, at(p, Expr(0)) + at(a, i), {Expr(0)}),
               StoreNode::make(out, at(p, Expr(0)), {i}),
               StoreNode::make(q, at(a, i) * 2.0, {Expr(0)}),
               StoreNode::make(out, at(q, Expr(0)), {i + 4}),
           })),
  });
  Stmt others = SeqNode::make({
      StoreNode::make(n, IntImmNode::make(DataType::scalar(DType::i32), 3), {Expr(0)}),
      StoreNode::make(out, CastNode::make(DataType::scalar(DType::f32), at(n, Expr(0))), {Expr(8)}),
      StoreNode::make(s, at(a, Expr(1)), {Expr(0)}),
      StoreNode::make(out, at(s, Expr(0)), {Expr(9)}),
      StoreNode::make(r, at(a, Expr(2)), {Expr(0)}),
      StoreNode::make(out, at(r, Expr(0)), {Expr(10)}),
  });
  Stmt body = AllocateNode::make(
      p, AllocateNode::make(
             q, AllocateNode::make(
                    n, AllocateNode::make(
                           s, AllocateNode::make(r, SeqNode::make({carried, others}))))));
  return make_func("apart", {a, out}, 1, body);
}

TEST(StorageRewrite, BuffersThatCannotShareStayApart) {
  PrimFunc func = apart();
  PrimFunc after = apply(storage_rewrite_pass(), func);
  EXPECT_TRUE(after.body.same_as(func.body)) << to_string(after);
  expect_same_results(func, after);
}

// A parallel loop whose iterations each allocate two buffers one after the other: they share
// inside the loop (each iteration has its own), not outside it.
PrimFunc per_iteration() {
  Buffer a = make_buffer("a", DType::f32, {Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(8)});
  Buffer r = make_buffer("r", DType::f32, {Expr(2)});
  Buffer s = make_buffer("s", DType::f32, {Expr(3)});
  Var i = var("i");
  Stmt body = SeqNode::make({
      AllocateNode::make(r, SeqNode::make({
                                StoreNode::make(r, at(a, i), {Expr(0)}),
                                StoreNode::make(r, at(a, i + 4), {Expr(1)}),
                                StoreNode::make(out, at(r, Expr(0)) + at(r, Expr(1)), {i}),
                            })),
      AllocateNode::make(s, SeqNode::make({
                                StoreNode::make(s, at(a, i) * 3.0, {Expr(2)}),
                                StoreNode::make(out, at(s, Expr(2)), {i + 4}),
                            })),
  });
  return make_func("per_iteration", {a, out}, 1, loop(i, 4, body, ForKind::kParallel));
}

TEST(StorageRewrite, ParallelIterationsShareWithinTheirOwnIteration) {
  PrimFunc after = apply(storage_rewrite_pass(), per_iteration());
  EXPECT_EQ(to_string(after), R"(func @per_iteration(%a: f32[8]) -> (%out: f32[8]) {
  parallel for (i, 0, 4) {
    allocate %r: f32[3] {
      %r[0] = %a[i]
      %r[1] = %a[i + 4]
      %out[i] = %r[0] + %r[1]
      %r[2] = %a[i] * 3.0f
      %out[i + 4] = %r[2]
    }
  }
}
)");
  expect_same_results(per_iteration(), after);
}

// One block uses %x, then %y, each passed by its data variable to extern calls.
PrimFunc moves(const std::string& scope) {
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  Buffer x = make_buffer("x", DType::f32, {Expr(4)}, scope);
  Buffer y = make_buffer("y", DType::f32, {Expr(4)}, scope);
  DataType i32 = DataType::scalar(DType::i32);
  auto call = [&](const char* name, std::vector<Expr> args) {
    return EvaluateNode::make(
        CallNode::make(i32, name, std::move(args), CallNode::CallKind::kExtern));
  };
  Stmt block = BlockNode::make(
      "load", {x, y}, {out},
      SeqNode::make({call("dma_in", {x->data}), call("dma_out", {x->data, out->data}),
                     call("dma_in", {y->data}), call("dma_out", {y->data, out->data})}));
  return make_func("dma", {out}, 0, AllocateNode::make(x, AllocateNode::make(y, block)));
}

TEST(StorageRewrite, DataVariablesAndBlockListsFollowTheSharedBuffer) {
  // They share, and the block lists the shared buffer once.
  EXPECT_EQ(to_string(apply(storage_rewrite_pass(), moves("global"))),
            R"(func @dma() -> (%out: f32[4]) {
  allocate %x: f32[4] {
    block load(reads: %x; writes: %out) {
      @extern dma_in<i32>(%x)
      @extern dma_out<i32>(%x, %out)
      @extern dma_in<i32>(%x)
      @extern dma_out<i32>(%x, %out)
    }
  }
}
)");
}

// Buffers in an accelerator's memory stay where the tiling plan put them.
TEST(StorageRewrite, BuffersOfAnAcceleratorsMemoryStayApart) {
  PrimFunc func = moves("sram");
  EXPECT_TRUE(apply(storage_rewrite_pass(), func).body.same_as(func.body));
}

TEST(StorageRewrite, PreservesResultsOfNestedScopes) {
  // t1 and t3 of the chain, once more inside a serial loop around all of it.
  PrimFunc func = chain();
  Var rep = var("rep");
  func.body = loop(rep, 2, func.body);
  expect_same_results(func, apply(storage_rewrite_pass(), func));
}

}  // namespace
}  // namespace uma::tir
