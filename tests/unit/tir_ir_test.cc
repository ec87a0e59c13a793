// Unit tests of the loop IR's nodes: checked construction, immediates taking the other
// operand's type, structural equality, and mutators that share unchanged subtrees.
#include <gtest/gtest.h>

#include "uma/tir/functor.h"

namespace uma::tir {
namespace {

TEST(TirIr, ImmediatesTakeTheOtherOperandsType) {
  Var i = VarNode::make("i", DataType::scalar(DType::i32));
  Expr e = i * 2 + 1;
  EXPECT_EQ(e.type(), DataType::scalar(DType::i32));
  const auto* add = e.as<AddNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->b.type(), DataType::scalar(DType::i32));
  EXPECT_EQ(as_const_int(add->b), 1);

  Var x = VarNode::make("x", DataType::scalar(DType::f32));
  Expr f = x * 2;
  ASSERT_NE(f.as<MulNode>()->b.as<FloatImmNode>(), nullptr);
  EXPECT_EQ(f.as<MulNode>()->b.as<FloatImmNode>()->value, 2.0);
}

TEST(TirIr, ComparisonsAreBoolWithTheOperandsLanes) {
  Var i = VarNode::make("i");
  EXPECT_EQ((i < 4).type(), DataType::scalar(DType::boolean));
  Expr ramp = RampNode::make(i, 1, 8);
  EXPECT_EQ(ramp.type(), DataType::vector(DType::i64, 8));
  EXPECT_EQ((ramp < BroadcastNode::make(Expr(4), 8)).type(), DataType::vector(DType::boolean, 8));
}

TEST(TirIr, LoadsTakeTheBufferDtypeAndTheIndexLanes) {
  Buffer a = make_buffer("A", DType::f32, {Expr(4), Expr(8)});
  Var i = VarNode::make("i");
  EXPECT_EQ(LoadNode::make(a, {i, Expr(0)}).type(), DataType::scalar(DType::f32));
  EXPECT_EQ(LoadNode::make(a, {RampNode::make(i, 1, 4)}).type(), DataType::vector(DType::f32, 4));
  EXPECT_EQ(a->scope, "global");
  EXPECT_EQ(a->data.type(), DataType::pointer());
}

TEST(TirIr, StructuralEqualityComparesVariablesByIdentity) {
  Var i = VarNode::make("i"), j = VarNode::make("i");
  EXPECT_TRUE(equal(i * 2 + 1, i * 2 + 1));
  EXPECT_FALSE(equal(i * 2 + 1, j * 2 + 1));
  EXPECT_FALSE(equal(i * 2, i * 3));
  EXPECT_FALSE(equal(i + 2, i - 2));
}

TEST(TirIr, SequencesFlattenAndASingleStatementStaysItself) {
  Buffer a = make_buffer("A", DType::f32, {Expr(4)});
  Stmt s1 = StoreNode::make(a, Expr(1.0), {Expr(0)});
  Stmt s2 = StoreNode::make(a, Expr(2.0), {Expr(1)});
  EXPECT_TRUE(SeqNode::make({s1}).same_as(s1));
  Stmt nested = SeqNode::make({SeqNode::make({s1, s2}), s1});
  ASSERT_NE(nested.as<SeqNode>(), nullptr);
  EXPECT_EQ(nested.as<SeqNode>()->stmts.size(), 3u);
}

TEST(TirIr, MutatorsReturnTheSameHandleWhenNothingChanged) {
  Buffer a = make_buffer("A", DType::f32, {Expr(16)});
  Var i = VarNode::make("i");
  Stmt loop = ForNode::make(i, 0, 16, ForKind::kSerial,
                            StoreNode::make(a, LoadNode::make(a, {i}) * 2.0, {i}));
  Mutator identity;
  EXPECT_TRUE(identity.mutate(loop).same_as(loop));

  Var k = VarNode::make("k");
  Stmt replaced = substitute(loop, {{i.as<VarNode>(), k + 1}});
  EXPECT_FALSE(replaced.same_as(loop));
  const auto* store = replaced.as<ForNode>()->body.as<StoreNode>();
  EXPECT_TRUE(equal(store->indices[0], k + 1));
  // The unchanged loop bounds are shared, not copied.
  EXPECT_TRUE(replaced.as<ForNode>()->extent.same_as(loop.as<ForNode>()->extent));
}

TEST(TirIr, PreOrderVisitSeesParentsFirst) {
  Buffer a = make_buffer("A", DType::f32, {Expr(4)});
  Var i = VarNode::make("i");
  Stmt loop = ForNode::make(i, 0, 4, ForKind::kParallel, StoreNode::make(a, Expr(0.0), {i}));
  std::vector<std::string> seen;
  pre_order_visit(loop, [&](const ExprNode* e, const StmtNode* s) {
    seen.emplace_back(e ? expr_kind_name(e->kind) : stmt_kind_name(s->kind));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"For", "IntImm", "IntImm", "Store", "IntImm",
                                            "FloatImm", "Var"}));
}

}  // namespace
}  // namespace uma::tir
