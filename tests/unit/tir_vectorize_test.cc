// Golden tests of the vectorize pass, its fallbacks with their reasons, and a check that
// it preserves results.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

DataType f32 = DataType::scalar(DType::f32);

Expr intrinsic(const char* name, Expr arg) {
  return CallNode::make(arg.type(), name, {arg}, CallNode::CallKind::kIntrinsic);
}

// out[i * 8 + j] = a[i * 8 + j] * 2 + b[j], flat, with j vectorized.
PrimFunc scale_add() {
  Buffer a = make_buffer("a", DType::f32, {Expr(32)});
  Buffer b = make_buffer("b", DType::f32, {Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(32)});
  Var i = var("i"), j = var("j");
  Stmt store = StoreNode::make(out, LoadNode::make(a, {i * 8 + j}) * 2.0 + LoadNode::make(b, {j}),
                               {i * 8 + j});
  return make_func("scale_add", {a, b, out}, 2,
                   loop(i, 4, loop(j, 8, store, ForKind::kVectorized)));
}

TEST(Vectorize, StoresBecomeVectorStoresOfRampsAndBroadcasts) {
  PrimFunc after = apply(vectorize_pass(), scale_add());
  EXPECT_EQ(to_string(after),
            R"(func @scale_add(%a: f32[32], %b: f32[8]) -> (%out: f32[32]) {
  for (i, 0, 4) {
    %out[ramp(i * 8, 1, 8)] = %a[ramp(i * 8, 1, 8)] * x8(2.0f) + %b[ramp(0, 1, 8)]
  }
}
)");
}

// Lets, selects, casts and intrinsics on the lanes; invariant parts stay scalar.
PrimFunc leaky_exp() {
  Buffer a = make_buffer("a", DType::f32, {Expr(16)});
  Buffer s = make_buffer("s", DType::f32, {Expr(1)});
  Buffer out = make_buffer("out", DType::f32, {Expr(16)});
  Var j = var("j");
  Var x = VarNode::make("x", f32), scale = VarNode::make("scale", f32);
  Stmt body = LetStmtNode::make(
      scale, LoadNode::make(s, {Expr(0)}) * 0.5,
      LetStmtNode::make(x, LoadNode::make(a, {Expr(15) - j}),
                        StoreNode::make(out,
                                        SelectNode::make(x > 0.0, intrinsic("exp", x), x * scale) +
                                            CastNode::make(f32, j % 3),
                                        {j + 4})));
  return make_func("leaky_exp", {a, s, out}, 2,
                   ForNode::make(j, Expr(0), Expr(12), ForKind::kVectorized, body));
}

TEST(Vectorize, LetsSelectsCastsAndIntrinsics) {
  PrimFunc after = apply(vectorize_pass(), leaky_exp());
  EXPECT_EQ(to_string(after),
            R"(func @leaky_exp(%a: f32[16], %s: f32[1]) -> (%out: f32[16]) {
  let scale = %s[0] * 0.5f {
    let x = %a[x12(15) - ramp(0, 1, 12)] {
      %out[ramp(4, 1, 12)] = select(x > x12(0.0f), exp(x), x * x12(scale)) + f32x12(ramp(0, 1, 12) % x12(3))
    }
  }
}
)");
}

// One vectorized loop per reason it cannot be vectorized.
PrimFunc fallbacks() {
  Buffer a = make_buffer("a", DType::f32, {Expr(64)});
  Buffer out = make_buffer("out", DType::f32, {Expr(64)});
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)});
  Var i = var("i"), j = var("j"), k = var("k"), l = var("l"), m = var("m"), q = var("q");
  DataType i32 = DataType::scalar(DType::i32);
  auto vectorized = [](const Var& v, Expr extent, Stmt body) {
    return ForNode::make(v, Expr(0), std::move(extent), ForKind::kVectorized, std::move(body));
  };
  return make_func(
      "fallbacks", {a, out}, 1,
      SeqNode::make({
          vectorized(i, 4,
                     loop(j, 4, StoreNode::make(out, LoadNode::make(a, {i * 4 + j}), {i * 4 + j}))),
          vectorized(k, 4, IfThenElseNode::make(k < 2, StoreNode::make(out, Expr(0.0), {k}))),
          AllocateNode::make(
              acc, vectorized(l, 8, StoreNode::make(acc, LoadNode::make(a, {l}), {Expr(0)}))),
          vectorized(m, 128, StoreNode::make(out, Expr(1.0), {m % 64})),
          vectorized(q, 4,
                     EvaluateNode::make(CallNode::make(i32, "touch", {AddressNode::make(out, {q})},
                                                       CallNode::CallKind::kExtern))),
      }));
}

TEST(Vectorize, FallsBackToSerialLoopsWithAReason) {
  PrimFunc after = apply(vectorize_pass(), fallbacks());
  EXPECT_EQ(
      to_string(after),
      R"(func @fallbacks(%a: f32[64]) -> (%out: f32[64]) attributes {vectorize_fallback = ["loop 'i': its body holds the loop 'j'", "loop 'k': its body holds an if", "loop 'l': it stores to %acc at an index that does not use 'l'", "loop 'm': its extent 128 is more than the 64 lanes vectorize makes", "loop 'q': it calls 'touch' for its effect"]} {
  for (i, 0, 4) {
    for (j, 0, 4) {
      %out[i * 4 + j] = %a[i * 4 + j]
    }
  }
  for (k, 0, 4) {
    if (k < 2) {
      %out[k] = 0.0f
    }
  }
  allocate %acc: f32[1] {
    for (l, 0, 8) {
      %acc[0] = %a[l]
    }
  }
  for (m, 0, 128) {
    %out[m % 64] = 1.0f
  }
  for (q, 0, 4) {
    @extern touch<i32>(&%out[q])
  }
}
)");
}

TEST(Vectorize, InnerLoopsFirstAndTrivialExtents) {
  Buffer out = make_buffer("out", DType::i64, {Expr(16)});
  Var i = var("i"), j = var("j"), k = var("k"), z = var("z");
  PrimFunc func = make_func(
      "nest", {out}, 0,
      SeqNode::make({
          ForNode::make(i, Expr(0), Expr(2), ForKind::kVectorized,
                        ForNode::make(j, Expr(0), Expr(4), ForKind::kVectorized,
                                      StoreNode::make(out, i * 4 + j, {i * 4 + j}))),
          ForNode::make(k, Expr(8), Expr(1), ForKind::kVectorized,
                        StoreNode::make(out, k * 2, {k})),
          ForNode::make(z, Expr(0), Expr(0), ForKind::kVectorized, StoreNode::make(out, z, {z})),
      }));
  PrimFunc after = apply(vectorize_pass(), func);
  EXPECT_EQ(
      to_string(after),
      R"(func @nest() -> (%out: i64[16]) attributes {vectorize_fallback = ["loop 'i': its body holds vectors already"]} {
  for (i, 0, 2) {
    %out[ramp(i * 4, 1, 4)] = ramp(i * 4, 1, 4)
  }
  %out[8] = 8 * 2
}
)");
}

TEST(Vectorize, LeavesFunctionsWithoutVectorizedLoopsAsTheyAre) {
  PrimFunc func = scale_add();
  func.body = loop(var("i"), 4, EvaluateNode::make(Expr(0)));
  PrimFunc after = apply(vectorize_pass(), func);
  EXPECT_TRUE(after.body.same_as(func.body));
}

TEST(Vectorize, PreservesResults) {
  for (PrimFunc func : {scale_add(), leaky_exp()})
    expect_same_results(func, apply(vectorize_pass(), func));
  // Reading and writing the same buffer at the same elements.
  Buffer a = make_buffer("a", DType::i32, {Expr(16)});
  Var j = var("j");
  PrimFunc in_place =
      make_func("in_place", {a}, 0,
                ForNode::make(j, Expr(0), Expr(16), ForKind::kVectorized,
                              StoreNode::make(a,
                                              LoadNode::make(a, {j}) * 3 -
                                                  CastNode::make(DataType::scalar(DType::i32), j),
                                              {j})));
  expect_same_results(in_place, apply(vectorize_pass(), in_place));
}

}  // namespace
}  // namespace uma::tir
