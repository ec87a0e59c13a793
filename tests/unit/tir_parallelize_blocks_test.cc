// Golden tests of parallelize-blocks: which loop of a block becomes parallel, and when the
// pass proves nothing and leaves the block alone.
#include <gtest/gtest.h>

#include "uma/tir/passes.h"
#include "uma/tir/printer.h"

namespace uma::tir {
namespace {

Stmt loop(const Var& v, std::int64_t extent, Stmt body) {
  return ForNode::make(v, Expr(0), Expr(extent), ForKind::kSerial, std::move(body));
}

PrimFunc func_of(std::vector<Buffer> params, std::size_t num_inputs, Stmt body) {
  PrimFunc f;
  f.name = "f";
  f.params = std::move(params);
  f.num_inputs = num_inputs;
  f.body = std::move(body);
  return f;
}

std::string run(const PrimFunc& f) {
  auto out = parallelize_blocks_pass().run(f);
  EXPECT_TRUE(out.ok());
  return out.ok() ? to_string(*out) : "";
}

TEST(ParallelizeBlocks, OuterLoopBelowLoopsOfOneIteration) {
  Buffer x = make_buffer("x", DType::f32, {Expr(1), Expr(4), Expr(3)});
  Buffer y = make_buffer("y", DType::f32, {Expr(1), Expr(4), Expr(3)});
  Var n = VarNode::make("n"), c = VarNode::make("c"), w = VarNode::make("w");
  Stmt store = StoreNode::make(y, LoadNode::make(x, {n, c, w}) * 2.0, {n, c, w});
  PrimFunc f = func_of(
      {x, y}, 1, BlockNode::make("multiply", {x}, {y}, loop(n, 1, loop(c, 4, loop(w, 3, store)))));
  EXPECT_EQ(run(f),
            "func @f(%x: f32[1, 4, 3]) -> (%y: f32[1, 4, 3]) {\n"
            "  block multiply(reads: %x; writes: %y) {\n"
            "    for (n, 0, 1) {\n"
            "      parallel for (c, 0, 4) {\n"
            "        for (w, 0, 3) {\n"
            "          %y[n, c, w] = %x[n, c, w] * 2.0f\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// A reduction with its accumulator inside the output loop: iterations are independent.
TEST(ParallelizeBlocks, ReductionWithItsAccumulatorInside) {
  Buffer x = make_buffer("x", DType::f32, {Expr(4), Expr(8)});
  Buffer y = make_buffer("y", DType::f32, {Expr(4)});
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)}, "local");
  Var i = VarNode::make("i"), k = VarNode::make("k");
  Stmt body = AllocateNode::make(
      acc, SeqNode::make({StoreNode::make(acc, Expr(0.0), {Expr(0)}),
                          loop(k, 8,
                               StoreNode::make(
                                   acc, LoadNode::make(acc, {Expr(0)}) + LoadNode::make(x, {i, k}),
                                   {Expr(0)})),
                          StoreNode::make(y, LoadNode::make(acc, {Expr(0)}), {i})}));
  PrimFunc f = func_of({x, y}, 1, BlockNode::make("sum", {x}, {y}, loop(i, 4, body)));
  std::string text = run(f);
  EXPECT_NE(text.find("parallel for (i, 0, 4)"), std::string::npos) << text;
  EXPECT_EQ(text.find("parallel for (k"), std::string::npos) << text;
}

// What cannot be proven independent stays serial: a store whose index is not the loop's
// variable itself, a buffer read at another index than it is written, a block that is not
// a loop (a scalar reduction), an extern call through an address.
TEST(ParallelizeBlocks, LeavesWhatItCannotProve) {
  Buffer x = make_buffer("x", DType::f32, {Expr(8)});
  Buffer y = make_buffer("y", DType::f32, {Expr(8)});
  Var i = VarNode::make("i");
  auto unchanged = [](const PrimFunc& f) {
    auto out = parallelize_blocks_pass().run(f);
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out->body.same_as(f.body)) << to_string(*out);
  };
  // y[i / 2] = x[i]: two iterations write one element.
  unchanged(
      func_of({x, y}, 1,
              BlockNode::make("b", {x}, {y},
                              loop(i, 8, StoreNode::make(y, LoadNode::make(x, {i}), {i / 2})))));
  // y[i] = y[7 - i]: an iteration reads what another writes.
  unchanged(func_of(
      {x, y}, 1,
      BlockNode::make("b", {y}, {y},
                      loop(i, 8, StoreNode::make(y, LoadNode::make(y, {Expr(7) - i}), {i})))));
  // A scalar result: the block's body is no loop.
  Buffer s = make_buffer("s", DType::f32, {});
  unchanged(func_of(
      {x, s}, 1,
      BlockNode::make("b", {x}, {s}, StoreNode::make(s, LoadNode::make(x, {Expr(0)}), {}))));
  // An extern call may touch anything.
  Stmt call =
      EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), "kernel",
                                        {AddressNode::make(y, {i})}, CallNode::CallKind::kExtern));
  unchanged(func_of({x, y}, 1, BlockNode::make("b", {x}, {y}, loop(i, 8, call))));
  // A loop outside any block.
  unchanged(func_of({x, y}, 1, loop(i, 8, StoreNode::make(y, LoadNode::make(x, {i}), {i}))));
}

// Blocks that store fewer elements than the threshold stay serial: each store counts as
// often as its loops repeat it, and a loop of unknown extent counts as large.
TEST(ParallelizeBlocks, SmallBlocksStaySerial) {
  Buffer x = make_buffer("x", DType::f32, {Expr(64), Expr(32)});
  Buffer y = make_buffer("y", DType::f32, {Expr(64), Expr(32)});
  Var i = VarNode::make("i"), j = VarNode::make("j");
  Stmt store = StoreNode::make(y, LoadNode::make(x, {i, j}) + 1.0, {i, j});
  PrimFunc f = func_of({x, y}, 1, BlockNode::make("b", {x}, {y}, loop(i, 64, loop(j, 32, store))));
  auto parallel_at = [&](const PrimFunc& func, std::int64_t min_work) {
    auto out = parallelize_blocks_pass(min_work).run(func);
    EXPECT_TRUE(out.ok());
    return out.ok() && to_string(*out).find("parallel for (i") != std::string::npos;
  };
  EXPECT_TRUE(parallel_at(f, 2048));  // 64 * 32 stores
  EXPECT_FALSE(parallel_at(f, 2049));
  Var n = VarNode::make("n");
  Buffer dx = make_buffer("x", DType::f32, {n}), dy = make_buffer("y", DType::f32, {n});
  PrimFunc dynamic =
      func_of({dx, dy}, 1,
              BlockNode::make("b", {dx}, {dy},
                              ForNode::make(i, Expr(0), n, ForKind::kSerial,
                                            StoreNode::make(dy, LoadNode::make(dx, {i}), {i}))));
  EXPECT_TRUE(parallel_at(dynamic, std::int64_t{1} << 40));
}

}  // namespace
}  // namespace uma::tir
