// Golden tests of the loop IR's text form (docs/loop-ir.md).
#include "uma/tir/printer.h"

#include <gtest/gtest.h>

namespace uma::tir {
namespace {

DataType f32 = DataType::scalar(DType::f32);
DataType i32 = DataType::scalar(DType::i32);

TEST(TirPrinter, ParenthesizesByPrecedence) {
  Var i = VarNode::make("i"), j = VarNode::make("j");
  EXPECT_EQ(to_string((i + j) * 4), "(i + j) * 4");
  EXPECT_EQ(to_string(i + j * 4), "i + j * 4");
  EXPECT_EQ(to_string(i - (j - 1)), "i - (j - 1)");
  EXPECT_EQ(to_string((i - j) - 1), "i - j - 1");
  EXPECT_EQ(to_string(i / (j * 2)), "i / (j * 2)");
  EXPECT_EQ(to_string((i % 4) * 2), "i % 4 * 2");
  EXPECT_EQ(to_string(i < 4 && j >= 0), "i < 4 && j >= 0");
  EXPECT_EQ(to_string((i < 4 || j < 4) && i != j), "(i < 4 || j < 4) && i != j");
  EXPECT_EQ(to_string((i < j) == (j < i)), "(i < j) == (j < i)");
  EXPECT_EQ(to_string(!(i == j)), "!(i == j)");
  EXPECT_EQ(to_string(min(i, max(j, 0)) - 1), "min(i, max(j, 0)) - 1");
  EXPECT_EQ(to_string(i * -1), "i * -1");
}

TEST(TirPrinter, LiteralsShowTheirType) {
  EXPECT_EQ(to_string(Expr(3)), "3");
  EXPECT_EQ(to_string(Expr(-3)), "-3");
  EXPECT_EQ(to_string(IntImmNode::make(i32, 3)), "3i32");
  EXPECT_EQ(to_string(IntImmNode::make(DataType::scalar(DType::u8), 255)), "255u8");
  EXPECT_EQ(to_string(IntImmNode::make(DataType::scalar(DType::boolean), 1)), "true");
  EXPECT_EQ(to_string(Expr(0.0)), "0.0f");
  EXPECT_EQ(to_string(Expr(0.1)), "0.1f");
  EXPECT_EQ(to_string(FloatImmNode::make(DataType::scalar(DType::f16), 2.0)), "2.0h");
  EXPECT_EQ(to_string(FloatImmNode::make(DataType::scalar(DType::bf16), 1e30)), "1e+30bf");
  EXPECT_EQ(to_string(Expr(-1.0 / 0.0)), "-inff");
  EXPECT_EQ(to_string(FloatImmNode::make(DataType::scalar(DType::f16), std::nan(""))), "nanh");
}

TEST(TirPrinter, CastsVectorsAndCalls) {
  Var x = VarNode::make("x", f32);
  Var i = VarNode::make("i");
  EXPECT_EQ(to_string(CastNode::make(i32, i)), "i32(i)");
  EXPECT_EQ(to_string(RampNode::make(i * 8, 1, 8)), "ramp(i * 8, 1, 8)");
  EXPECT_EQ(to_string(BroadcastNode::make(x, 8) * BroadcastNode::make(Expr(2.0), 8)),
            "x8(x) * x8(2.0f)");
  EXPECT_EQ(to_string(CastNode::make(DataType::vector(DType::f32, 4),
                                     RampNode::make(CastNode::make(i32, i), 1, 4))),
            "f32x4(ramp(i32(i), 1i32, 4))");
  EXPECT_EQ(to_string(CallNode::make(f32, "exp", {x}, CallNode::CallKind::kIntrinsic)), "exp(x)");
  EXPECT_EQ(to_string(CallNode::make(i32, "npu_run", {i}, CallNode::CallKind::kExtern)),
            "@extern npu_run<i32>(i)");
  // An intrinsic that would read as a built-in form, and a callee that is no identifier.
  EXPECT_EQ(to_string(CallNode::make(f32, "f32", {x}, CallNode::CallKind::kIntrinsic)),
            "\"f32\"(x)");
  EXPECT_EQ(to_string(CallNode::make(f32, "a b", {x}, CallNode::CallKind::kExtern)),
            "@extern \"a b\"(x)");
  EXPECT_EQ(to_string(SelectNode::make(x > 0.0, x, Expr(0.0))), "select(x > 0.0f, x, 0.0f)");
  Var t = VarNode::make("t");
  EXPECT_EQ(to_string(LetNode::make(t, i + 1, t * t) + 1), "(let t = i + 1 in t * t) + 1");
}

TEST(TirPrinter, DistinctVariablesWithOneNameAreNumbered) {
  Var i = VarNode::make("i"), i2 = VarNode::make("i"), i1 = VarNode::make("i_1");
  EXPECT_EQ(to_string(i + i2 + i1 + i2), "i + i_1 + i_1_1 + i_1");
  // Names become C identifiers, and never spell a literal.
  Var odd = VarNode::make("3x.y"), nan = VarNode::make("nanf"), t = VarNode::make("true");
  EXPECT_EQ(to_string(odd + nan * 2), "_3x_y + nanf_1 * 2");
  EXPECT_EQ(to_string(t == t), "true_1 == true_1");
}

TEST(TirPrinter, BuffersLoadsAndAddresses) {
  Buffer a = make_buffer("A", DType::f32, {Expr(4), Expr(8)});
  Buffer a2 = make_buffer("A", DType::f32, {Expr(32)}, "sram");
  Var i = VarNode::make("i");
  EXPECT_EQ(to_string(LoadNode::make(a, {i, Expr(0)}) + LoadNode::make(a2, {i * 8})),
            "%A[i, 0] + %A_1[i * 8]");
  EXPECT_EQ(to_string(AddressNode::make(a, {Expr(0), Expr(0)})), "&%A[0, 0]");
  // A buffer's data variable is its address and prints as the buffer.
  EXPECT_EQ(to_string(CallNode::make(i32, "f", {a->data, LoadNode::make(a, {i})},
                                     CallNode::CallKind::kExtern)),
            "@extern f<i32>(%A, %A[i])");
}

TEST(TirPrinter, Function) {
  Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h");
  Var w = VarNode::make("w"), k = VarNode::make("k");
  Buffer x = make_buffer("x", DType::f32, {Expr(1), Expr(3), Expr(8), Expr(8)});
  Buffer wt = make_buffer("w", DType::f32, {Expr(4), Expr(3)});
  Buffer out = make_buffer("out", DType::f32, {Expr(1), Expr(4), Expr(8), Expr(8)});
  Buffer acc = make_buffer("acc", DType::f32, {Expr(1)}, "local");
  Stmt body = SeqNode::make({
      StoreNode::make(acc, Expr(0.0), {Expr(0)}),
      ForNode::make(
          k, 0, 3, ForKind::kUnrolled,
          StoreNode::make(acc,
                          LoadNode::make(acc, {Expr(0)}) +
                              LoadNode::make(x, {n, k, h, w}) * LoadNode::make(wt, {c, k}),
                          {Expr(0)})),
      IfThenElseNode::make(
          h < 4, StoreNode::make(out, max(LoadNode::make(acc, {Expr(0)}), 0.0), {n, c, h, w}),
          StoreNode::make(out, Expr(0.0), {n, c, h, w})),
  });
  Stmt nest = ForNode::make(
      n, 0, 1, ForKind::kParallel,
      ForNode::make(
          c, 0, 4, ForKind::kSerial,
          ForNode::make(h, 0, 8, ForKind::kSerial,
                        ForNode::make(w, 0, 8, ForKind::kSerial, AllocateNode::make(acc, body)))));
  AttrMap block_attrs;
  block_attrs.set("strides", std::vector<std::int64_t>{1, 1});
  PrimFunc func;
  func.name = "fused_conv2d_relu";
  func.params = {x, wt, out};
  func.num_inputs = 2;
  func.body = BlockNode::make("conv2d_nchw", {x, wt}, {out}, nest, block_attrs);
  func.attrs.set("global_symbol", std::string("tiny_fused_conv2d_relu"));
  EXPECT_EQ(
      to_string(func),
      R"(func @fused_conv2d_relu(%x: f32[1, 3, 8, 8], %w: f32[4, 3]) -> (%out: f32[1, 4, 8, 8]) attributes {global_symbol = "tiny_fused_conv2d_relu"} {
  block conv2d_nchw(reads: %x, %w; writes: %out) attributes {strides = [1, 1]} {
    parallel for (n, 0, 1) {
      for (c, 0, 4) {
        for (h, 0, 8) {
          for (w, 0, 8) {
            allocate %acc: f32[1] in "local" {
              %acc[0] = 0.0f
              unrolled for (k, 0, 3) {
                %acc[0] = %acc[0] + %x[n, k, h, w] * %w[c, k]
              }
              if (h < 4) {
                %out[n, c, h, w] = max(%acc[0], 0.0f)
              } else {
                %out[n, c, h, w] = 0.0f
              }
            }
          }
        }
      }
    }
  }
}
)");
}

TEST(TirPrinter, StatementsWithScopes) {
  Buffer a = make_buffer("a", DType::f32, {Var(VarNode::make("n"))}, "global", {Expr(2)});
  Var t = VarNode::make("t");
  Var v = VarNode::make("v");
  Stmt s = LetStmtNode::make(
      t, Expr(3),
      SeqNode::make(
          {ForNode::make(v, 0, 2, ForKind::kVectorized, StoreNode::make(a, Expr(1.0), {t + v})),
           EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), "sync", {},
                                             CallNode::CallKind::kExtern))}));
  EXPECT_EQ(to_string(s), R"(let t = 3 {
  vectorized for (v, 0, 2) {
    %a[t + v] = 1.0f
  }
  @extern sync<i32>()
}
)");
  PrimFunc func;
  func.name = "f.g";
  func.params = {a};
  func.num_inputs = 1;
  func.body = BlockNode::make("fill", {}, {a}, EvaluateNode::make(Expr(0)));
  EXPECT_EQ(to_string(func), R"(func @"f.g"(%a: f32[n] strides [2]) -> () {
  block fill(writes: %a) {
    0
  }
}
)");
}

}  // namespace
}  // namespace uma::tir
