// Golden test of lift-allocations: which allocations become workspace parameters.
#include <gtest/gtest.h>

#include "uma/tir/passes.h"
#include "uma/tir/printer.h"

namespace uma::tir {
namespace {

TEST(LiftAllocations, LargeGlobalAllocationsAroundTheBodyBecomeParameters) {
  Buffer x = make_buffer("x", DType::f32, {Expr(64)});
  Buffer y = make_buffer("y", DType::f32, {Expr(64)});
  Buffer big = make_buffer("big", DType::f32, {Expr(64)});            // 256 bytes
  Buffer small = make_buffer("small", DType::f32, {Expr(4)});         // 16 bytes: stays
  Buffer sram = make_buffer("sram", DType::f32, {Expr(64)}, "sram");  // another scope: stays
  Buffer inner = make_buffer("inner", DType::f32, {Expr(64)});        // inside a loop: stays
  Var i = VarNode::make("i");
  Stmt loop =
      ForNode::make(i, Expr(0), Expr(64), ForKind::kSerial,
                    AllocateNode::make(
                        inner, SeqNode::make({StoreNode::make(inner, LoadNode::make(x, {i}), {i}),
                                              StoreNode::make(big, LoadNode::make(inner, {i}), {i}),
                                              StoreNode::make(y, LoadNode::make(big, {i}), {i})})));
  PrimFunc f;
  f.name = "f";
  f.params = {x, y};
  f.num_inputs = 1;
  f.body = AllocateNode::make(small, AllocateNode::make(big, AllocateNode::make(sram, loop)));
  auto out = lift_allocations_pass(64).run(f);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(to_string(*out),
            "func @f(%x: f32[64]) -> (%y: f32[64], %big: f32[64]) attributes {workspace = [2]} {\n"
            "  allocate %small: f32[4] {\n"
            "    allocate %sram: f32[64] in \"sram\" {\n"
            "      for (i, 0, 64) {\n"
            "        allocate %inner: f32[64] {\n"
            "          %inner[i] = %x[i]\n"
            "          %big[i] = %inner[i]\n"
            "          %y[i] = %big[i]\n"
            "        }\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(workspace_params(*out), (std::vector<std::size_t>{2}));
  // Twice is once.
  auto again = lift_allocations_pass(64).run(*out);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->body.same_as(out->body));
  EXPECT_EQ(again->params.size(), 3u);
}

}  // namespace
}  // namespace uma::tir
