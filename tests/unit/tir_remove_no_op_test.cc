// Golden tests of the remove-no-op pass, and a check that it preserves results.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"
#include "uma/tiling/passes.h"
#include "uma/tir/dma.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

Expr extern_call(DType dtype, const char* name) {
  return CallNode::make(DataType::scalar(dtype), name, {}, CallNode::CallKind::kExtern);
}

// Every kind of no-op, between statements that stay; the extern calls only when asked (the
// numeric test has no C for them).
PrimFunc cleanup(bool with_externs) {
  Buffer a = make_buffer("a", DType::f32, {Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(8)});
  Buffer t = make_buffer("t", DType::f32, {Expr(8)});
  Buffer u = make_buffer("u", DType::f32, {Expr(1)});
  Var i = var("i"), j = var("j"), k = var("k"), m = var("m");
  Var x = VarNode::make("x", DataType::scalar(DType::f32));
  auto at = [](const Buffer& b, Expr index) { return LoadNode::make(b, {std::move(index)}); };
  std::vector<Stmt> stmts = {
      BlockNode::make("fill", {a}, {out}, loop(i, 8, StoreNode::make(out, at(a, i), {i}))),
      loop(j, 0, StoreNode::make(out, Expr(1.0), {j})),
      loop(k, 4, StoreNode::make(out, at(out, k), {k})),
      IfThenElseNode::make(IntImmNode::make(DataType::scalar(DType::boolean), 1),
                           StoreNode::make(out, Expr(2.0), {Expr(0)}),
                           StoreNode::make(out, Expr(3.0), {Expr(1)})),
      IfThenElseNode::make(IntImmNode::make(DataType::scalar(DType::boolean), 0),
                           StoreNode::make(out, Expr(3.0), {Expr(1)})),
      IfThenElseNode::make(at(a, Expr(0)) > 0.0, SeqNode::make({}),
                           StoreNode::make(out, Expr(4.0), {Expr(2)})),
      IfThenElseNode::make(at(a, Expr(1)) > 0.0, StoreNode::make(out, at(out, Expr(3)), {Expr(3)}),
                           EvaluateNode::make(Expr(0))),
      AllocateNode::make(t, BlockNode::make("scratch", {a}, {t},
                                            loop(m, 8, StoreNode::make(t, at(a, m) * 2.0, {m})))),
      AllocateNode::make(u, SeqNode::make({StoreNode::make(u, at(a, Expr(0)), {Expr(0)}),
                                           StoreNode::make(out, at(u, Expr(0)), {Expr(4)})})),
      LetStmtNode::make(x, at(a, Expr(5)), EvaluateNode::make(x + 1.0)),
      BlockNode::make("empty", {}, {out}, SeqNode::make({})),
  };
  if (with_externs) {
    Buffer v = make_buffer("v", DType::f32, {Expr(1)});
    stmts.push_back(EvaluateNode::make(extern_call(DType::i32, "sync")));
    stmts.push_back(IfThenElseNode::make(extern_call(DType::boolean, "check"), SeqNode::make({})));
    // A buffer nobody reads, but the value stored calls an extern function.
    stmts.push_back(
        AllocateNode::make(v, StoreNode::make(v, extern_call(DType::f32, "noise"), {Expr(0)})));
  }
  return make_func("cleanup", {a, out}, 1, SeqNode::make(std::move(stmts)));
}

TEST(RemoveNoOp, RemovesStatementsThatDoNothing) {
  PrimFunc after = apply(remove_no_op_pass(), cleanup(true));
  EXPECT_EQ(to_string(after), R"(func @cleanup(%a: f32[8]) -> (%out: f32[8]) {
  block fill(reads: %a; writes: %out) {
    for (i, 0, 8) {
      %out[i] = %a[i]
    }
  }
  %out[0] = 2.0f
  if (!(%a[0] > 0.0f)) {
    %out[2] = 4.0f
  }
  allocate %u: f32[1] {
    %u[0] = %a[0]
    %out[4] = %u[0]
  }
  @extern sync<i32>()
  @extern check<bool>()
  allocate %v: f32[1] {
    %v[0] = @extern noise<f32>()
  }
}
)");
  // Nothing is left to remove.
  PrimFunc again = apply(remove_no_op_pass(), after);
  EXPECT_TRUE(again.body.same_as(after.body));
}

TEST(RemoveNoOp, AFunctionThatDoesNothingHasAnEmptyBody) {
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  Var i = var("i");
  PrimFunc func = make_func("nothing", {out}, 0,
                            loop(i, 4, StoreNode::make(out, LoadNode::make(out, {i}), {i})));
  EXPECT_EQ(to_string(apply(remove_no_op_pass(), func)), R"(func @nothing() -> (%out: f32[4]) {
}
)");
}

// The DMA intrinsics move memory: a tile moved into a scratch buffer and back out, which a
// backend without DMA functions of its own leaves to the code generator's copies, stays.
TEST(RemoveNoOp, KeepsDmaMoves) {
  Buffer a = make_buffer("a", DType::f32, {Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(8)});
  Buffer tile = make_buffer("tile", DType::f32, {Expr(8)}, "sram");
  auto address = [](const Buffer& b) { return AddressNode::make(b, {Expr(0)}); };
  Stmt move_in = SeqNode::make(
      {dma_start(Expr(0), address(tile), address(a), Expr(32), Expr(1), Expr(0), Expr(0)),
       dma_wait(Expr(0))});
  Stmt move_out = SeqNode::make(
      {dma_start(Expr(1), address(out), address(tile), Expr(32), Expr(1), Expr(0), Expr(0)),
       dma_wait(Expr(1))});
  PrimFunc func =
      make_func("moves", {a, out}, 1, AllocateNode::make(tile, SeqNode::make({move_in, move_out})));
  PrimFunc after = apply(remove_no_op_pass(), func);
  EXPECT_TRUE(after.body.same_as(func.body)) << to_string(after);
  // Made calls of the core's DMA functions (lower-dma), compiled and run: the output holds
  // the input, moved through the tile.
  auto built = testing_c::build({apply(tiling::lower_dma_pass(tiling::DmaEngine{}), after)});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::vector<float> input(8), output(8, 0.0f);
  for (std::size_t k = 0; k < input.size(); ++k) input[k] = static_cast<float>(k) - 2.5f;
  ASSERT_EQ(testing_c::call(*built, 0, {input.data(), output.data()}), 0);
  EXPECT_EQ(output, input);
}

TEST(RemoveNoOp, PreservesResults) {
  PrimFunc func = cleanup(false);
  expect_same_results(func, apply(remove_no_op_pass(), func));
}

}  // namespace
}  // namespace uma::tir
