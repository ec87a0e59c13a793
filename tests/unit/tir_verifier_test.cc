// Unit tests of the loop IR verifier: a well-formed function passes, and each rule's
// violation gives its exact message. Nodes that make() refuses are built directly.
#include "uma/tir/verifier.h"

#include <gtest/gtest.h>

namespace uma::tir {
namespace {

const DataType f32 = DataType::scalar(DType::f32);

class TirVerifier : public ::testing::Test {
 protected:
  Buffer x = make_buffer("x", DType::f32, {Expr(4), Expr(8)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4), Expr(8)});
  Var i = VarNode::make("i"), j = VarNode::make("j"), k = VarNode::make("k");

  // func @f(%x) -> (%out) { block conv2d_nchw(reads: %x; writes: %out) { body } }
  PrimFunc func(Stmt body, std::vector<Buffer> params = {}) {
    PrimFunc f;
    f.name = "f";
    f.params = params.empty() ? std::vector<Buffer>{x, out} : std::move(params);
    f.num_inputs = 1;
    f.body = BlockNode::make("conv2d_nchw", {x}, {out}, std::move(body));
    return f;
  }

  // for (i, 0, 4) { for (j, 0, 8) { body } }
  Stmt nest(Stmt body) {
    return ForNode::make(i, 0, 4, ForKind::kSerial,
                         ForNode::make(j, 0, 8, ForKind::kSerial, std::move(body)));
  }

  std::string error_of(const PrimFunc& f) {
    Status status = verify(f);
    return status.ok() ? "ok" : status.error().message();
  }
};

TEST_F(TirVerifier, AcceptsAWellFormedFunction) {
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)}, "local");
  Var t = VarNode::make("t", f32);
  Stmt body = AllocateNode::make(
      acc,
      SeqNode::make({
          StoreNode::make(acc, Expr(0.0), {Expr(0)}),
          ForNode::make(k, 0, 8, ForKind::kSerial,
                        LetStmtNode::make(
                            t, LoadNode::make(x, {i, k}),
                            StoreNode::make(acc, LoadNode::make(acc, {Expr(0)}) + t, {Expr(0)}))),
          // A variable may be bound again by a sibling loop, out of the first's scope.
          ForNode::make(k, 0, 1, ForKind::kSerial,
                        StoreNode::make(out, LoadNode::make(acc, {Expr(0)}), {i, j + k})),
          EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), "npu_sync",
                                            {acc->data, AddressNode::make(x, {i * 8})},
                                            CallNode::CallKind::kExtern)),
      }));
  EXPECT_EQ(error_of(func(nest(body))), "ok");
}

TEST_F(TirVerifier, ParameterShapesBindTheirVariables) {
  Var n = VarNode::make("n");
  Buffer a = make_buffer("a", DType::f32, {n}, "global", {Expr(1)});
  Buffer b = make_buffer("b", DType::f32, {n});
  PrimFunc f = func(
      ForNode::make(i, 0, n, ForKind::kSerial, StoreNode::make(b, LoadNode::make(a, {i}), {i})),
      {a, b});
  f.body = f.body.as<BlockNode>()->body;
  EXPECT_EQ(error_of(f), "ok");
}

TEST_F(TirVerifier, VariableUsedOutsideItsLoop) {
  Stmt body = SeqNode::make(
      {ForNode::make(k, 0, 3, ForKind::kSerial, StoreNode::make(out, Expr(0.0), {i, k})),
       StoreNode::make(out, Expr(1.0), {i, k})});
  EXPECT_EQ(error_of(func(ForNode::make(i, 0, 4, ForKind::kSerial, body))),
            "func @f, block conv2d_nchw: variable 'k' is used outside its loop");
}

TEST_F(TirVerifier, VariableUsedOutsideItsLet) {
  Var t = VarNode::make("t");
  Stmt body = SeqNode::make({LetStmtNode::make(t, Expr(1), StoreNode::make(out, Expr(0.0), {i, t})),
                             StoreNode::make(out, Expr(1.0), {i, t})});
  EXPECT_EQ(error_of(func(ForNode::make(i, 0, 4, ForKind::kSerial, body))),
            "func @f, block conv2d_nchw: variable 't' is used outside its let");
}

TEST_F(TirVerifier, UnboundVariable) {
  Var q = VarNode::make("q");
  PrimFunc f = func(nest(StoreNode::make(out, Expr(0.0), {i, j + q})));
  f.body = f.body.as<BlockNode>()->body;
  EXPECT_EQ(error_of(f), "func @f: variable 'q' is not bound");
}

TEST_F(TirVerifier, VariableBoundInsideItsOwnScope) {
  Stmt inner = ForNode::make(i, 0, 2, ForKind::kSerial, StoreNode::make(out, Expr(0.0), {i, j}));
  EXPECT_EQ(error_of(func(nest(inner))),
            "func @f, block conv2d_nchw: variable 'i' is bound again inside its own scope");
}

TEST_F(TirVerifier, BufferNeitherParameterNorAllocated) {
  Buffer tmp = make_buffer("tmp", DType::f32, {Expr(4), Expr(8)});
  EXPECT_EQ(error_of(func(nest(StoreNode::make(out, LoadNode::make(tmp, {i, j}), {i, j})))),
            "func @f, block conv2d_nchw: buffer 'tmp' is neither a parameter nor allocated");
  PrimFunc f = func(nest(StoreNode::make(out, Expr(0.0), {i, j})));
  f.body = BlockNode::make("add", {x, tmp}, {out}, f.body.as<BlockNode>()->body);
  EXPECT_EQ(error_of(f), "func @f, block add: buffer 'tmp' is neither a parameter nor allocated");
}

TEST_F(TirVerifier, BufferUsedOutsideItsAllocation) {
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)});
  Stmt alloc = AllocateNode::make(acc, StoreNode::make(acc, Expr(0.0), {Expr(0)}));
  EXPECT_EQ(error_of(func(nest(SeqNode::make(
                {alloc, StoreNode::make(out, LoadNode::make(acc, {Expr(0)}), {i, j})})))),
            "func @f, block conv2d_nchw: buffer 'acc' is used outside its allocation");
  // Its data variable, too.
  Stmt call = EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), "run", {acc->data},
                                                CallNode::CallKind::kExtern));
  EXPECT_EQ(error_of(func(nest(SeqNode::make({alloc, call})))),
            "func @f, block conv2d_nchw: buffer 'acc' is used outside its allocation");
}

TEST_F(TirVerifier, BufferAllocatedInsideItsOwnScope) {
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)});
  Stmt store = StoreNode::make(acc, Expr(0.0), {Expr(0)});
  EXPECT_EQ(error_of(func(AllocateNode::make(acc, AllocateNode::make(acc, store)))),
            "func @f, block conv2d_nchw: buffer 'acc' is allocated inside its own scope");
  EXPECT_EQ(error_of(func(AllocateNode::make(x, StoreNode::make(x, Expr(0.0), {Expr(0)})))),
            "func @f, block conv2d_nchw: buffer 'x' is a parameter and is allocated");
}

TEST_F(TirVerifier, ParameterTwice) {
  EXPECT_EQ(error_of(func(nest(StoreNode::make(out, Expr(0.0), {i, j})), {x, x, out})),
            "func @f: buffer 'x' is a parameter twice");
}

TEST_F(TirVerifier, IndexCountMustMatchTheRankOrBeOne) {
  // make() refuses this; a pass that builds nodes directly could still produce it.
  Expr load = Expr(std::make_shared<const LoadNode>(f32, x, std::vector<Expr>{i, j, k}));
  EXPECT_EQ(error_of(func(nest(StoreNode::make(out, load, {i, j})))),
            "func @f, block conv2d_nchw: buffer 'x' has 2 dimension(s) but 3 index(es) are given");
  // One flat index is fine.
  EXPECT_EQ(error_of(func(nest(StoreNode::make(out, LoadNode::make(x, {i * 8 + j}), {i, j})))),
            "ok");
}

TEST_F(TirVerifier, IndicesMustBeIntegers) {
  Expr load = Expr(std::make_shared<const LoadNode>(f32, x, std::vector<Expr>{Expr(1.0)}));
  EXPECT_EQ(error_of(func(nest(StoreNode::make(out, load, {i, j})))),
            "func @f, block conv2d_nchw: an index of buffer 'x' is f32, not an integer");
}

TEST_F(TirVerifier, StoreValueMustMatchTheBuffer) {
  auto store = [&](Expr value, std::vector<Expr> indices) {
    return Stmt(std::make_shared<const StoreNode>(out, std::move(value), std::move(indices)));
  };
  EXPECT_EQ(error_of(func(nest(store(i, {i, j})))),
            "func @f, block conv2d_nchw: a store of i64 into buffer 'out' needs f32");
  EXPECT_EQ(error_of(func(nest(store(Expr(1.0), {RampNode::make(i * 8, 1, 4)})))),
            "func @f, block conv2d_nchw: a store of f32 into buffer 'out' needs f32x4");
}

TEST_F(TirVerifier, LoopBoundsMustBeIntegers) {
  Stmt loop = Stmt(std::make_shared<const ForNode>(i, Expr(0), Expr(4.0), ForKind::kSerial,
                                                   StoreNode::make(out, Expr(0.0), {i, i})));
  EXPECT_EQ(error_of(func(loop)),
            "func @f, block conv2d_nchw: the extent of loop 'i' is f32, not the loop variable's "
            "type i64");
}

TEST_F(TirVerifier, VectorizedLoopsHaveConstantExtents) {
  Var n = VarNode::make("n");
  Stmt loop = ForNode::make(
      n, 1, 4, ForKind::kSerial,
      ForNode::make(i, 0, n, ForKind::kVectorized, StoreNode::make(out, Expr(0.0), {i, i})));
  EXPECT_EQ(error_of(func(loop)),
            "func @f, block conv2d_nchw: vectorized loop 'i' has a non-constant extent");
}

TEST_F(TirVerifier, BlocksHaveNames) {
  Stmt block = Stmt(std::make_shared<const BlockNode>(
      "", std::vector<Buffer>{}, std::vector<Buffer>{out}, StoreNode::make(out, Expr(0.0), {i, j}),
      AttrMap(), std::vector<IterVar>{}, Stmt()));
  EXPECT_EQ(error_of(func(nest(block))), "func @f, block conv2d_nchw: a block has no name");
}

TEST_F(TirVerifier, IfConditionsAreBools) {
  Stmt s = Stmt(
      std::make_shared<const IfThenElseNode>(i, StoreNode::make(out, Expr(0.0), {i, j}), Stmt()));
  EXPECT_EQ(error_of(func(nest(s))),
            "func @f, block conv2d_nchw: an if condition is i64, not bool");
}

}  // namespace
}  // namespace uma::tir
