// Golden tests of the flatten-buffers pass, and a check that it preserves results.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

// out[i, j] = a[i, j] * 2 + b[j], with `a` strided when `a_strides` is given.
PrimFunc scale_add(std::vector<Expr> a_strides = {}) {
  Buffer a = make_buffer("a", DType::f32, {Expr(3), Expr(4)}, "global", std::move(a_strides));
  Buffer b = make_buffer("b", DType::f32, {Expr(4)});
  Buffer out = make_buffer("out", DType::f32, {Expr(3), Expr(4)});
  Var i = var("i"), j = var("j");
  Stmt store =
      StoreNode::make(out, LoadNode::make(a, {i, j}) * 2.0 + LoadNode::make(b, {j}), {i, j});
  return make_func("scale_add", {a, b, out}, 2,
                   BlockNode::make("scale_add", {a, b}, {out}, loop(i, 3, loop(j, 4, store))));
}

TEST(FlattenBuffers, DenseBuffersTakeRowMajorIndices) {
  PrimFunc after = apply(flatten_buffers_pass(), scale_add());
  EXPECT_EQ(to_string(after),
            R"(func @scale_add(%a: f32[12], %b: f32[4]) -> (%out: f32[12]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i, 0, 3) {
      for (j, 0, 4) {
        %out[i * 4 + j] = %a[i * 4 + j] * 2.0f + %b[j]
      }
    }
  }
}
)");
}

TEST(FlattenBuffers, StridedBuffersUseTheirStrides) {
  PrimFunc after = apply(flatten_buffers_pass(), scale_add({Expr(8), Expr(1)}));
  // The rows are 8 apart: the buffer spans 2 * 8 + 3 + 1 elements.
  EXPECT_EQ(to_string(after),
            R"(func @scale_add(%a: f32[20], %b: f32[4]) -> (%out: f32[12]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i, 0, 3) {
      for (j, 0, 4) {
        %out[i * 4 + j] = %a[i * 8 + j] * 2.0f + %b[j]
      }
    }
  }
}
)");
}

TEST(FlattenBuffers, SymbolicShapesStayInTheFlatShape) {
  Var n = var("n");
  Buffer a = make_buffer("a", DType::f32, {n, Expr(4)});
  Buffer s = make_buffer("s", DType::f32, {n}, "global", {Expr(2)});
  Var i = var("i"), j = var("j");
  PrimFunc func =
      make_func("sym", {a, s}, 1,
                loop(i, n,
                     SeqNode::make({StoreNode::make(s, LoadNode::make(a, {i, Expr(0)}), {i}),
                                    loop(j, 4, StoreNode::make(a, Expr(1.0), {i, j}))})));
  EXPECT_EQ(to_string(apply(flatten_buffers_pass(), func)),
            R"(func @sym(%a: f32[n * 4]) -> (%s: f32[(n - 1) * 2 + 1]) {
  for (i, 0, n) {
    %s[i * 2] = %a[i * 4]
    for (j, 0, 4) {
      %a[i * 4 + j] = 1.0f
    }
  }
}
)");
}

TEST(FlattenBuffers, AllocationsAddressesAndFlatAccesses) {
  Buffer out = make_buffer("out", DType::i32, {Expr(2), Expr(3)});
  Buffer t = make_buffer("t", DType::i32, {Expr(2), Expr(3)}, "sram");
  Buffer scalar = make_buffer("c", DType::i32, {});
  Var i = var("i");
  DataType i32 = DataType::scalar(DType::i32);
  Expr call = CallNode::make(i32, "fill", {AddressNode::make(t, {Expr(1), Expr(0)}), t->data},
                             CallNode::CallKind::kExtern);
  Stmt body = SeqNode::make({
      EvaluateNode::make(call),
      StoreNode::make(scalar, LoadNode::make(t, {Expr(0), Expr(2)}), {}),
      // One index into a 2-d buffer is flat already.
      loop(i, 6, StoreNode::make(out, LoadNode::make(t, {i}) + LoadNode::make(scalar, {}), {i})),
  });
  PrimFunc func = make_func(
      "alloc", {out}, 0,
      AllocateNode::make(t, AllocateNode::make(scalar, BlockNode::make("copy", {t}, {out}, body))));
  EXPECT_EQ(to_string(apply(flatten_buffers_pass(), func)),
            R"(func @alloc() -> (%out: i32[6]) {
  allocate %t: i32[6] in "sram" {
    allocate %c: i32[1] {
      block copy(reads: %t; writes: %out) {
        @extern fill<i32>(&%t[3], %t)
        %c[0] = %t[2]
        for (i, 0, 6) {
          %out[i] = %t[i] + %c[0]
        }
      }
    }
  }
}
)");
}

TEST(FlattenBuffers, FlatFunctionsAreLeftAsTheyAre) {
  PrimFunc once = apply(flatten_buffers_pass(), scale_add());
  PrimFunc twice = apply(flatten_buffers_pass(), once);
  EXPECT_TRUE(twice.body.same_as(once.body));
  EXPECT_EQ(twice.params, once.params);
}

TEST(FlattenBuffers, PreservesResults) {
  for (auto strides : {std::vector<Expr>{}, std::vector<Expr>{Expr(5), Expr(1)},
                       std::vector<Expr>{Expr(1), Expr(3)}}) {
    PrimFunc func = scale_add(strides);
    expect_same_results(func, apply(flatten_buffers_pass(), func));
  }
}

}  // namespace
}  // namespace uma::tir
