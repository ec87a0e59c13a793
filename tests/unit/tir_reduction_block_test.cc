// Reduction blocks: iteration variables and init, as printed, verified and rewritten.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"
#include "uma/tir/functor.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

const ConvShape kSmall{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 1, .s = 1};

std::string verify_error(const PrimFunc& func) {
  Status status = verify(func);
  return status.ok() ? "ok" : status.error().message();
}

// `func` with its (single) block rebuilt by `edit`.
template <typename Edit>
PrimFunc with_block(PrimFunc func, Edit edit) {
  const auto* b = func.body.as<BlockNode>();
  std::vector<IterVar> iters = b->iter_vars;
  Stmt init = b->init;
  edit(iters, init);
  func.body = BlockNode::make(b->name, b->reads, b->writes, b->body, b->attrs, iters, init);
  return func;
}

TEST(TirReductionBlock, PrintsIterationsAndInit) {
  PrimFunc func = conv2d_reduction(kSmall);
  EXPECT_EQ(to_string(func),
            R"(func @conv(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 1, 1]) -> (%out: f32[1, 2, 4, 4]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) iters {n: spatial(1) = n, k: spatial(2) = k, p: spatial(4) = p, q: spatial(4) = q, c: reduce(2) = c, r: reduce(1) = r, s: reduce(1) = s} {
    init {
      %out[n, k, p, q] = 0.0f
    }
    for (n, 0, 1) {
      for (k, 0, 2) {
        for (p, 0, 4) {
          for (q, 0, 4) {
            for (c, 0, 2) {
              for (r, 0, 1) {
                for (s, 0, 1) {
                  %out[n, k, p, q] = %out[n, k, p, q] + %x[n, c, p + r, q + s] * %w[k, c, r, s]
                }
              }
            }
          }
        }
      }
    }
  }
}
)");
  EXPECT_EQ(verify_error(func), "ok");
}

TEST(TirReductionBlock, VerifierErrors) {
  PrimFunc func = conv2d_reduction(kSmall);
  const auto* block = func.body.as<BlockNode>();
  const Buffer& out = block->writes[0];
  Var c = block->iter_vars[4].binding, n = block->iter_vars[0].binding;
  EXPECT_EQ(verify_error(with_block(func,
                                    [&](auto&, Stmt& init) {
                                      init = StoreNode::make(out, Expr(0.0), {n, c, c, c});
                                    })),
            "func @conv, block conv2d_nchw: the init uses variable 'c' of a reduce iteration "
            "variable");
  EXPECT_EQ(
      verify_error(with_block(func, [&](std::vector<IterVar>& iters,
                                        Stmt&) { iters[1].binding = VarNode::make("elsewhere"); })),
      "func @conv, block conv2d_nchw: iteration variable 'k' is bound to variable "
      "'elsewhere', not a loop of the block");
  EXPECT_EQ(verify_error(with_block(func,
                                    [&](std::vector<IterVar>& iters, Stmt&) {
                                      for (IterVar& iv : iters) iv.kind = IterKind::kSpatial;
                                    })),
            "func @conv, block conv2d_nchw: the block has an init but no reduce iteration "
            "variable");
  EXPECT_EQ(verify_error(
                with_block(func, [&](std::vector<IterVar>& iters, Stmt&) { iters[2].name = "n"; })),
            "func @conv, block conv2d_nchw: iteration variable 'n' is declared twice");
  EXPECT_EQ(verify_error(with_block(func,
                                    [&](std::vector<IterVar>& iters, Stmt&) {
                                      iters[3].binding =
                                          FloatImmNode::make(DataType::scalar(DType::f32), 1.0);
                                    })),
            "func @conv, block conv2d_nchw: the binding of iteration variable 'q' is f32, not an "
            "integer");
}

TEST(TirReductionBlock, MutatorsRewriteBindingsAndInit) {
  PrimFunc func = conv2d_reduction(kSmall);
  const auto* block = func.body.as<BlockNode>();
  Var n = block->iter_vars[0].binding;
  Stmt now = substitute(func.body, {{n.as<VarNode>(), n + 1}});
  const auto* rebuilt = now.as<BlockNode>();
  ASSERT_NE(rebuilt, nullptr);
  EXPECT_EQ(to_string(rebuilt->iter_vars[0].binding), "n + 1");
  EXPECT_EQ(to_string(rebuilt->init), "%out[n + 1, k, p, q] = 0.0f\n");
}

}  // namespace
}  // namespace uma::tir
