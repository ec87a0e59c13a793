// Golden tests of the unroll pass, and a check that it preserves results.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

// out[i] = sum_k a[i * 3 + k] * w[k], with the k loop of `kind`, accumulated in %acc.
PrimFunc dot3(ForKind kind, Expr k_min = Expr(0)) {
  Buffer a = make_buffer("a", DType::f32, {Expr(12)});
  Buffer w = make_buffer("w", DType::f32, {Expr(5)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)}, "local");
  Var i = var("i"), k = var("k");
  Stmt body = AllocateNode::make(
      acc, SeqNode::make({
               StoreNode::make(acc, Expr(0.0), {Expr(0)}),
               ForNode::make(k, k_min, Expr(3), kind,
                             StoreNode::make(acc,
                                             LoadNode::make(acc, {Expr(0)}) +
                                                 LoadNode::make(a, {i * 3 + k - k_min}) *
                                                     LoadNode::make(w, {k}),
                                             {Expr(0)})),
               StoreNode::make(out, LoadNode::make(acc, {Expr(0)}), {i}),
           }));
  return make_func("dot3", {a, w, out}, 2, loop(i, 4, body));
}

TEST(Unroll, LoopsMarkedUnrolledBecomeCopiesOfTheirBody) {
  PrimFunc after = apply(unroll_pass(), dot3(ForKind::kUnrolled));
  EXPECT_EQ(to_string(after),
            R"(func @dot3(%a: f32[12], %w: f32[5]) -> (%out: f32[4]) {
  for (i, 0, 4) {
    allocate %acc: f32[1] in "local" {
      %acc[0] = 0.0f
      %acc[0] = %acc[0] + %a[i * 3 + 0 - 0] * %w[0]
      %acc[0] = %acc[0] + %a[i * 3 + 1 - 0] * %w[1]
      %acc[0] = %acc[0] + %a[i * 3 + 2 - 0] * %w[2]
      %out[i] = %acc[0]
    }
  }
}
)");
}

TEST(Unroll, ASymbolicMinIsAddedToEachIteration) {
  // The k loop starts at s, a variable.
  Var s = var("s");
  PrimFunc shifted = dot3(ForKind::kUnrolled, s);
  shifted.body = LetStmtNode::make(s, Expr(2), shifted.body);
  EXPECT_EQ(to_string(apply(unroll_pass(), shifted)),
            R"(func @dot3(%a: f32[12], %w: f32[5]) -> (%out: f32[4]) {
  let s = 2 {
    for (i, 0, 4) {
      allocate %acc: f32[1] in "local" {
        %acc[0] = 0.0f
        %acc[0] = %acc[0] + %a[i * 3 + (s + 0) - s] * %w[s + 0]
        %acc[0] = %acc[0] + %a[i * 3 + (s + 1) - s] * %w[s + 1]
        %acc[0] = %acc[0] + %a[i * 3 + (s + 2) - s] * %w[s + 2]
        %out[i] = %acc[0]
      }
    }
  }
}
)");
  expect_same_results(shifted, apply(unroll_pass(), shifted));
}

TEST(Unroll, SmallSerialLoopsWhenAsked) {
  UnrollOptions options;
  options.auto_max_extent = 3;
  // The k loop (extent 3) goes, the i loop (extent 4) stays.
  PrimFunc after = apply(unroll_pass(options), dot3(ForKind::kSerial));
  EXPECT_EQ(to_string(after),
            R"(func @dot3(%a: f32[12], %w: f32[5]) -> (%out: f32[4]) {
  for (i, 0, 4) {
    allocate %acc: f32[1] in "local" {
      %acc[0] = 0.0f
      %acc[0] = %acc[0] + %a[i * 3 + 0 - 0] * %w[0]
      %acc[0] = %acc[0] + %a[i * 3 + 1 - 0] * %w[1]
      %acc[0] = %acc[0] + %a[i * 3 + 2 - 0] * %w[2]
      %out[i] = %acc[0]
    }
  }
}
)");
  // Without the option, serial loops stay; so do parallel ones with it.
  PrimFunc serial = dot3(ForKind::kSerial);
  EXPECT_TRUE(apply(unroll_pass(), serial).body.same_as(serial.body));
  PrimFunc parallel = dot3(ForKind::kParallel);
  EXPECT_TRUE(apply(unroll_pass(options), parallel).body.same_as(parallel.body));
}

TEST(Unroll, NestedLoopsUnrollInnerFirst) {
  Buffer out = make_buffer("out", DType::i64, {Expr(4)});
  Var i = var("i"), j = var("j"), big = var("big"), none = var("none");
  PrimFunc func = make_func(
      "nest", {out}, 0,
      SeqNode::make({
          loop(i, 2, loop(j, 2, StoreNode::make(out, i - j, {i * 2 + j}), ForKind::kUnrolled),
               ForKind::kUnrolled),
          // Larger than max_extent: left to the C compiler.
          loop(big, 2000, StoreNode::make(out, big, {big % 4}), ForKind::kUnrolled),
          loop(none, 0, StoreNode::make(out, none, {none}), ForKind::kUnrolled),
      }));
  PrimFunc after = apply(unroll_pass(), func);
  EXPECT_EQ(to_string(after), R"(func @nest() -> (%out: i64[4]) {
  %out[0 * 2 + 0] = 0 - 0
  %out[0 * 2 + 1] = 0 - 1
  %out[1 * 2 + 0] = 1 - 0
  %out[1 * 2 + 1] = 1 - 1
  unrolled for (big, 0, 2000) {
    %out[big % 4] = big
  }
}
)");
  expect_same_results(func, after);
}

TEST(Unroll, PreservesResults) {
  PrimFunc func = dot3(ForKind::kUnrolled);
  expect_same_results(func, apply(unroll_pass(), func));
}

}  // namespace
}  // namespace uma::tir
