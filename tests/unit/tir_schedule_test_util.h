// Loop nests for the schedule primitives' tests (a small elementwise block and a conv2d
// NCHW nest), and a runner that compiles a conv function with the C driver and compares
// its output with a direct convolution computed here.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "c_test_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/schedule.h"
#include "uma/tir/verifier.h"

namespace uma::tir::testing_schedule {

inline Stmt loop(const Var& v, Expr extent, Stmt body) {
  return ForNode::make(v, Expr(0), std::move(extent), ForKind::kSerial, std::move(body));
}

// out[i, j] = a[i, j] * 2.0f + b[i, j] over rows x cols, in block `scale_add`.
inline PrimFunc elementwise(std::int64_t rows, std::int64_t cols) {
  Buffer a = make_buffer("a", DType::f32, {Expr(rows), Expr(cols)});
  Buffer b = make_buffer("b", DType::f32, {Expr(rows), Expr(cols)});
  Buffer out = make_buffer("out", DType::f32, {Expr(rows), Expr(cols)});
  Var i = VarNode::make("i"), j = VarNode::make("j");
  Stmt store =
      StoreNode::make(out, LoadNode::make(a, {i, j}) * 2.0 + LoadNode::make(b, {i, j}), {i, j});
  PrimFunc func;
  func.name = "scale_add";
  func.params = {a, b, out};
  func.num_inputs = 2;
  func.body = BlockNode::make("scale_add", {a, b}, {out}, loop(i, rows, loop(j, cols, store)));
  return func;
}

// out[i] = combine(b[i], a[i, 0], ..., a[i, cols - 1]) as a reduction block `row_sum` whose
// init is out[i] = b[i] (not the identity, which the partials must not repeat).
inline PrimFunc row_reduce(std::int64_t rows, std::int64_t cols, ExprKind kind = ExprKind::Add) {
  Buffer a = make_buffer("a", DType::f32, {Expr(rows), Expr(cols)});
  Buffer b = make_buffer("b", DType::f32, {Expr(rows)});
  Buffer out = make_buffer("out", DType::f32, {Expr(rows)});
  Var i = VarNode::make("i"), j = VarNode::make("j");
  Expr acc = LoadNode::make(out, {i}), value = LoadNode::make(a, {i, j});
  Expr update = kind == ExprKind::Max ? max(acc, value) : acc + value;
  PrimFunc func;
  func.name = "row_reduce";
  func.params = {a, b, out};
  func.num_inputs = 2;
  func.body = BlockNode::make(
      "row_sum", {a, b}, {out}, loop(i, rows, loop(j, cols, StoreNode::make(out, update, {i}))), {},
      {{"i", Expr(rows), IterKind::kSpatial, i}, {"j", Expr(cols), IterKind::kReduce, j}},
      StoreNode::make(out, LoadNode::make(b, {i}), {i}));
  return func;
}

struct ConvShape {
  std::int64_t n, c, h, w;  // input
  std::int64_t k, r, s;     // output channels, kernel height and width
  std::int64_t stride = 1, pad = 0;
  std::int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
  std::string str() const {
    return fmt::format("x[{},{},{},{}] w[{},{},{},{}] stride {} pad {}", n, c, h, w, k, c, r, s,
                       stride, pad);
  }
};

// conv2d NCHW of x[n, c, h, w] and w[k, c, r, s] into out[n, k, p, q], in block
// `conv2d_nchw` that accumulates into `out`. With `pad_block`, a block `pad` first writes
// the padded input into an allocated %xp (so the conv reads it without a guard); else the
// conv guards its reads of x with an `if` when there is padding.
inline PrimFunc conv2d(const ConvShape& sh, bool pad_block = false) {
  Buffer x = make_buffer("x", DType::f32, {Expr(sh.n), Expr(sh.c), Expr(sh.h), Expr(sh.w)});
  Buffer w = make_buffer("w", DType::f32, {Expr(sh.k), Expr(sh.c), Expr(sh.r), Expr(sh.s)});
  Buffer out = make_buffer("out", DType::f32, {Expr(sh.n), Expr(sh.k), Expr(sh.p()), Expr(sh.q())});
  Var n = VarNode::make("n"), k = VarNode::make("k"), p = VarNode::make("p");
  Var q = VarNode::make("q"), c = VarNode::make("c"), r = VarNode::make("r");
  Var s = VarNode::make("s");
  auto strided = [&](const Var& v) { return sh.stride == 1 ? Expr(v) : v * sh.stride; };
  Expr y = strided(p) + r, z = strided(q) + s;  // in padded coordinates
  Expr acc = LoadNode::make(out, {n, k, p, q});
  Expr weight = LoadNode::make(w, {k, c, r, s});
  Buffer xp;
  Stmt update;
  if (pad_block) {
    xp = make_buffer("xp", DType::f32,
                     {Expr(sh.n), Expr(sh.c), Expr(sh.h + 2 * sh.pad), Expr(sh.w + 2 * sh.pad)});
    update = StoreNode::make(out, acc + LoadNode::make(xp, {n, c, y, z}) * weight, {n, k, p, q});
  } else if (sh.pad == 0) {
    update = StoreNode::make(out, acc + LoadNode::make(x, {n, c, y, z}) * weight, {n, k, p, q});
  } else {
    Expr iy = y - sh.pad, iz = z - sh.pad;
    update = IfThenElseNode::make(
        iy >= 0 && iy < sh.h && iz >= 0 && iz < sh.w,
        StoreNode::make(out, acc + LoadNode::make(x, {n, c, iy, iz}) * weight, {n, k, p, q}));
  }
  Stmt nest =
      loop(n, sh.n,
           loop(k, sh.k,
                loop(p, sh.p(),
                     loop(q, sh.q(),
                          SeqNode::make({StoreNode::make(out, Expr(0.0), {n, k, p, q}),
                                         loop(c, sh.c, loop(r, sh.r, loop(s, sh.s, update)))})))));
  Stmt body = BlockNode::make("conv2d_nchw", {pad_block ? xp : x, w}, {out}, nest);
  if (pad_block) {
    Var pn = VarNode::make("pn"), pc = VarNode::make("pc"), ph = VarNode::make("ph");
    Var pw = VarNode::make("pw");
    Expr inside = ph >= sh.pad && ph < sh.h + sh.pad && pw >= sh.pad && pw < sh.w + sh.pad;
    Stmt fill = StoreNode::make(
        xp,
        SelectNode::make(inside, LoadNode::make(x, {pn, pc, ph - sh.pad, pw - sh.pad}), Expr(0.0)),
        {pn, pc, ph, pw});
    Stmt pad = BlockNode::make(
        "pad", {x}, {xp},
        loop(pn, sh.n,
             loop(pc, sh.c, loop(ph, sh.h + 2 * sh.pad, loop(pw, sh.w + 2 * sh.pad, fill)))));
    body = AllocateNode::make(xp, SeqNode::make({pad, body}));
  }
  PrimFunc func;
  func.name = "conv";
  func.params = {x, w, out};
  func.num_inputs = 2;
  func.body = body;
  return func;
}

// The same convolution (no padding block) as a reduction block: iteration variables bound
// to the loops, the zeroing of `out` as the block's init, and a perfect nest of the seven
// loops around the update.
inline PrimFunc conv2d_reduction(const ConvShape& sh) {
  PrimFunc func = conv2d(sh);
  const auto* block = func.body.as<BlockNode>();
  std::vector<const ForNode*> loops;
  for (const auto* op = block->body.as<ForNode>(); op != nullptr; op = op->body.as<ForNode>()) {
    loops.push_back(op);
    if (const auto* seq = op->body.as<SeqNode>()) {
      for (const auto* red = seq->stmts[1].as<ForNode>(); red != nullptr;
           red = red->body.as<ForNode>())
        loops.push_back(red);
      break;
    }
  }
  const auto* seq = loops[3]->body.as<SeqNode>();
  std::vector<IterVar> iters;
  for (std::size_t d = 0; d < loops.size(); ++d)
    iters.push_back({loops[d]->var.as<VarNode>()->name, loops[d]->extent,
                     d < 4 ? IterKind::kSpatial : IterKind::kReduce, loops[d]->var});
  Stmt nest = loops[6]->body;
  for (std::size_t d = loops.size(); d-- > 0;) nest = loop(loops[d]->var, loops[d]->extent, nest);
  func.body = BlockNode::make(block->name, block->reads, block->writes, nest, block->attrs,
                              std::move(iters), seq->stmts[0]);
  return func;
}

inline std::vector<float> random_data(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> data(size);
  for (float& v : data) v = dist(gen);
  return data;
}

// The convolution, computed directly in double.
inline std::vector<double> reference_conv(const ConvShape& sh, const std::vector<float>& x,
                                          const std::vector<float>& w) {
  std::vector<double> out(sh.n * sh.k * sh.p() * sh.q());
  std::size_t o = 0;
  for (std::int64_t n = 0; n < sh.n; ++n)
    for (std::int64_t k = 0; k < sh.k; ++k)
      for (std::int64_t p = 0; p < sh.p(); ++p)
        for (std::int64_t q = 0; q < sh.q(); ++q, ++o)
          for (std::int64_t c = 0; c < sh.c; ++c)
            for (std::int64_t r = 0; r < sh.r; ++r)
              for (std::int64_t s = 0; s < sh.s; ++s) {
                std::int64_t y = p * sh.stride + r - sh.pad, z = q * sh.stride + s - sh.pad;
                if (y < 0 || y >= sh.h || z < 0 || z >= sh.w) continue;
                out[o] += static_cast<double>(x[((n * sh.c + c) * sh.h + y) * sh.w + z]) *
                          w[((k * sh.c + c) * sh.r + r) * sh.s + s];
              }
  return out;
}

// Verifies `func`, compiles it (with `extra` C sources), runs it on random data and
// compares its output with reference_conv.
// With `openmp`, parallel loops run on several threads.
inline void expect_conv_matches(const PrimFunc& func, const ConvShape& sh,
                                std::vector<runtime::CSourceFile> extra = {}, bool openmp = false) {
  SCOPED_TRACE(sh.str());
  Status verified = verify(func);
  ASSERT_TRUE(verified.ok()) << verified.error().message() << "\n" << to_string(func);
  auto built = testing_c::build({func}, {.openmp = openmp}, std::move(extra), {.openmp = openmp});
  ASSERT_TRUE(built.ok()) << built.error().message() << "\n" << to_string(func);
  std::vector<float> x = random_data(sh.n * sh.c * sh.h * sh.w, 1);
  std::vector<float> w = random_data(sh.k * sh.c * sh.r * sh.s, 2);
  std::vector<float> out(sh.n * sh.k * sh.p() * sh.q(), std::nanf(""));
  ASSERT_EQ(testing_c::call(*built, 0, {x.data(), w.data(), out.data()}), 0);
  std::vector<double> expected = reference_conv(sh, x, w);
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], expected[i], 1e-5 * (1 + std::abs(expected[i]))) << "at " << i;
}

// Shapes with and without padding, strides 1 and 2, non-square, sizes that tile unevenly.
inline std::vector<ConvShape> conv_shapes() {
  return {
      {.n = 1, .c = 3, .h = 8, .w = 8, .k = 4, .r = 3, .s = 3, .stride = 1, .pad = 1},
      {.n = 2, .c = 2, .h = 9, .w = 7, .k = 3, .r = 3, .s = 2, .stride = 2, .pad = 0},
      {.n = 1, .c = 4, .h = 11, .w = 10, .k = 5, .r = 5, .s = 3, .stride = 2, .pad = 2},
  };
}

// `lhs = *expr`, or a fatal test failure with the error's message.
#define UMA_SCHED_ASSIGN(lhs, expr)                              \
  auto UMA_CONCAT_(sched_result_, __LINE__) = (expr);            \
  ASSERT_TRUE(UMA_CONCAT_(sched_result_, __LINE__).ok())         \
      << UMA_CONCAT_(sched_result_, __LINE__).error().message(); \
  lhs = std::move(UMA_CONCAT_(sched_result_, __LINE__)).value()

inline void expect_ok(const Status& status) {
  EXPECT_TRUE(status.ok()) << status.error().message();
}

template <typename T>
std::string error_of(const Expected<T>& result) {
  return result.ok() ? "(no error)" : result.error().message();
}
inline std::string error_of(const Status& status) {
  return status.ok() ? "(no error)" : status.error().message();
}

}  // namespace uma::tir::testing_schedule
