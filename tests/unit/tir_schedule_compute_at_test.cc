// compute_at: golden loop IR, errors, and the conv2d nest with a padding producer compiled
// before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

// b = relu(a) over 10 elements, then out[i] = b[index(i, j)] summed over j in [0, taps).
PrimFunc relu_then_window(std::int64_t taps, const std::function<Expr(Var, Var)>& index) {
  Buffer a = make_buffer("a", DType::f32, {Expr(10)});
  Buffer b = make_buffer("b", DType::f32, {Expr(10)});
  Buffer out = make_buffer("out", DType::f32, {Expr(8)});
  Var v = VarNode::make("v"), i = VarNode::make("i"), j = VarNode::make("j");
  Stmt relu = BlockNode::make(
      "relu", {a}, {b}, loop(v, 10, StoreNode::make(b, max(LoadNode::make(a, {v}), 0.0), {v})));
  Stmt window = BlockNode::make(
      "window", {b}, {out},
      loop(i, 8,
           SeqNode::make({StoreNode::make(out, Expr(0.0), {i}),
                          loop(j, taps,
                               StoreNode::make(
                                   out, LoadNode::make(out, {i}) + LoadNode::make(b, {index(i, j)}),
                                   {i}))})));
  PrimFunc func;
  func.name = "window";
  func.params = {a, out};
  func.num_inputs = 1;
  func.body = AllocateNode::make(b, SeqNode::make({relu, window}));
  return func;
}

// s[i] = b[i] + sum_j a[i, j] (a reduction block with an init), then out[o] = s[o] + s[o + 1].
PrimFunc row_sums_then_pairs(std::int64_t rows, std::int64_t cols) {
  Buffer a = make_buffer("a", DType::f32, {Expr(rows), Expr(cols)});
  Buffer b = make_buffer("b", DType::f32, {Expr(rows)});
  Buffer sums = make_buffer("s", DType::f32, {Expr(rows)});
  Buffer out = make_buffer("out", DType::f32, {Expr(rows - 1)});
  Var i = VarNode::make("i"), j = VarNode::make("j"), o = VarNode::make("o");
  Stmt row_sum = BlockNode::make(
      "row_sum", {a, b}, {sums},
      loop(i, rows,
           loop(j, cols,
                StoreNode::make(sums, LoadNode::make(sums, {i}) + LoadNode::make(a, {i, j}), {i}))),
      {}, {{"i", Expr(rows), IterKind::kSpatial, i}, {"j", Expr(cols), IterKind::kReduce, j}},
      StoreNode::make(sums, LoadNode::make(b, {i}), {i}));
  Stmt pairs = BlockNode::make(
      "pairs", {sums}, {out},
      loop(o, rows - 1,
           StoreNode::make(out, LoadNode::make(sums, {o}) + LoadNode::make(sums, {o + 1}), {o})));
  PrimFunc func;
  func.name = "pairs";
  func.params = {a, b, out};
  func.num_inputs = 2;
  func.body = AllocateNode::make(sums, SeqNode::make({row_sum, pairs}));
  return func;
}

TEST(TirScheduleComputeAt, Golden) {
  Schedule sch(relu_then_window(3, [](Var i, Var j) { return i + j; }));
  UMA_SCHED_ASSIGN(BlockRef relu, sch.get_block("relu"));
  UMA_SCHED_ASSIGN(BlockRef window, sch.get_block("window"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(window));
  expect_ok(sch.compute_at(relu, loops[0]));
  EXPECT_EQ(to_string(sch.func()), R"(func @window(%a: f32[10]) -> (%out: f32[8]) {
  allocate %b: f32[10] {
    block window(reads: %b; writes: %out) {
      for (i, 0, 8) {
        block relu(reads: %a; writes: %b) {
          for (v, i, 3) {
            %b[v] = max(%a[v], 0.0f)
          }
        }
        %out[i] = 0.0f
        for (j, 0, 3) {
          %out[i] = %out[i] + %b[i + j]
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
}

TEST(TirScheduleComputeAt, ReductionProducerGolden) {
  // The rows each output reads are summed under its loop, every column of them, init first.
  Schedule sch(row_sums_then_pairs(4, 3));
  UMA_SCHED_ASSIGN(BlockRef row_sum, sch.get_block("row_sum"));
  UMA_SCHED_ASSIGN(BlockRef pairs, sch.get_block("pairs"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(pairs));
  expect_ok(sch.compute_at(row_sum, loops[0]));
  EXPECT_EQ(to_string(sch.func()), R"(func @pairs(%a: f32[4, 3], %b: f32[4]) -> (%out: f32[3]) {
  allocate %s: f32[4] {
    block pairs(reads: %s; writes: %out) {
      for (o, 0, 3) {
        block row_sum(reads: %a, %b; writes: %s) iters {i: spatial(4) = i, j: reduce(3) = j} {
          init {
            %s[i] = %b[i]
          }
          for (i, o, 2) {
            for (j, 0, 3) {
              %s[i] = %s[i] + %a[i, j]
            }
          }
        }
        %out[o] = %s[o] + %s[o + 1]
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
}

TEST(TirScheduleComputeAt, ReductionProducerRuns) {
  const std::int64_t rows = 6, cols = 5;
  Schedule sch(row_sums_then_pairs(rows, cols));
  UMA_SCHED_ASSIGN(BlockRef row_sum, sch.get_block("row_sum"));
  UMA_SCHED_ASSIGN(BlockRef pairs, sch.get_block("pairs"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(pairs));
  expect_ok(sch.compute_at(row_sum, loops[0]));
  UMA_SCHED_ASSIGN(auto sum_loops, sch.get_loops(row_sum));
  ASSERT_EQ(sum_loops.size(), 3u);  // o, i, j
  UMA_SCHED_ASSIGN(BlockRef init, sch.decompose_reduction(row_sum, sum_loops[2]));
  (void)init;
  expect_ok(verify(sch.func()));
  auto built = testing_c::build({sch.func()});
  ASSERT_TRUE(built.ok()) << built.error().message() << "\n" << to_string(sch.func());
  std::vector<float> a = random_data(rows * cols, 4), b = random_data(rows, 5);
  std::vector<float> out(rows - 1, std::nanf(""));
  ASSERT_EQ(testing_c::call(*built, 0, {a.data(), b.data(), out.data()}), 0);
  auto row = [&](std::int64_t i) {
    float sum = b[i];
    for (std::int64_t c = 0; c < cols; ++c) sum += a[i * cols + c];
    return sum;
  };
  for (std::int64_t o = 0; o + 1 < rows; ++o) EXPECT_EQ(out[o], row(o) + row(o + 1)) << o;
}

TEST(TirScheduleComputeAt, RegionsOfStridedAndModuloReads) {
  // A stride of 2 (reads b[i * 2 - 1 + j], clamped at 0) and a modulo (reads all of b[0, 4)).
  Schedule strided(relu_then_window(2, [](Var i, Var j) { return max(i * 2 - 1 + j, 0) / 2; }));
  UMA_SCHED_ASSIGN(BlockRef relu, strided.get_block("relu"));
  UMA_SCHED_ASSIGN(BlockRef window, strided.get_block("window"));
  UMA_SCHED_ASSIGN(auto loops, strided.get_loops(window));
  expect_ok(strided.compute_at(relu, loops[0]));
  EXPECT_EQ(to_string(strided.func()), R"(func @window(%a: f32[10]) -> (%out: f32[8]) {
  allocate %b: f32[10] {
    block window(reads: %b; writes: %out) {
      for (i, 0, 8) {
        block relu(reads: %a; writes: %b) {
          for (v, max(i * 2 - 1, 0) / 2, i - max(i * 2 - 1, 0) / 2 + 1) {
            %b[v] = max(%a[v], 0.0f)
          }
        }
        %out[i] = 0.0f
        for (j, 0, 2) {
          %out[i] = %out[i] + %b[max(i * 2 - 1 + j, 0) / 2]
        }
      }
    }
  }
}
)");
  Schedule modulo(relu_then_window(3, [](Var i, Var j) { return (i + j) % 4; }));
  UMA_SCHED_ASSIGN(relu, modulo.get_block("relu"));
  UMA_SCHED_ASSIGN(window, modulo.get_block("window"));
  UMA_SCHED_ASSIGN(loops, modulo.get_loops(window));
  expect_ok(modulo.compute_at(relu, loops[0]));
  EXPECT_EQ(to_string(modulo.func()), R"(func @window(%a: f32[10]) -> (%out: f32[8]) {
  allocate %b: f32[10] {
    block window(reads: %b; writes: %out) {
      for (i, 0, 8) {
        block relu(reads: %a; writes: %b) {
          for (v, 0, 4) {
            %b[v] = max(%a[v], 0.0f)
          }
        }
        %out[i] = 0.0f
        for (j, 0, 3) {
          %out[i] = %out[i] + %b[(i + j) % 4]
        }
      }
    }
  }
}
)");
}

TEST(TirScheduleComputeAt, PaddedConvGolden) {
  // Each output element pads the 3x3 window it reads (stride 2), all input channels.
  ConvShape sh{.n = 2, .c = 2, .h = 5, .w = 5, .k = 2, .r = 3, .s = 3, .stride = 2, .pad = 1};
  Schedule sch(conv2d(sh, /*pad_block=*/true));
  UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(conv));
  expect_ok(sch.compute_at(pad, loops[3]));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[2, 2, 5, 5], %w: f32[2, 2, 3, 3]) -> (%out: f32[2, 2, 3, 3]) {
  allocate %xp: f32[2, 2, 7, 7] {
    block conv2d_nchw(reads: %xp, %w; writes: %out) {
      for (n, 0, 2) {
        for (k, 0, 2) {
          for (p, 0, 3) {
            for (q, 0, 3) {
              block pad(reads: %x; writes: %xp) {
                for (pn, n, 1) {
                  for (pc, 0, 2) {
                    for (ph, p * 2, 3) {
                      for (pw, q * 2, 3) {
                        %xp[pn, pc, ph, pw] = select(ph >= 1 && ph < 6 && pw >= 1 && pw < 6, %x[pn, pc, ph - 1, pw - 1], 0.0f)
                      }
                    }
                  }
                }
              }
              %out[n, k, p, q] = 0.0f
              for (c, 0, 2) {
                for (r, 0, 3) {
                  for (s, 0, 3) {
                    %out[n, k, p, q] = %out[n, k, p, q] + %xp[n, c, p * 2 + r, q * 2 + s] * %w[k, c, r, s]
                  }
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
  expect_ok(verify(sch.func()));
}

TEST(TirScheduleComputeAt, Errors) {
  {
    Schedule sch(relu_then_window(3, [](Var i, Var j) { return i * j; }));
    UMA_SCHED_ASSIGN(BlockRef relu, sch.get_block("relu"));
    UMA_SCHED_ASSIGN(BlockRef window, sch.get_block("window"));
    UMA_SCHED_ASSIGN(auto loops, sch.get_loops(window));
    UMA_SCHED_ASSIGN(auto relu_loops, sch.get_loops(relu));
    EXPECT_EQ(error_of(sch.compute_at(relu, relu_loops[0])),
              "compute_at: loop 'v' is inside block 'relu' itself");
    EXPECT_EQ(error_of(sch.compute_at(window, relu_loops[0])),
              "compute_at: block 'window' and loop 'v' are not in one sequence of statements "
              "with the block first");
    // Not monotonic in j.
    EXPECT_EQ(error_of(sch.compute_at(relu, loops[0])),
              "compute_at: cannot bound the index i * j of %b over an iteration of loop 'i' (an "
              "index must be monotonic in the inner loops' variables: sums, products and floor "
              "divisions by constants, min, max)");
    // Under j, i * j is one element.
    expect_ok(sch.compute_at(relu, loops[1]));
    EXPECT_EQ(error_of(sch.compute_at(relu, loops[0])),
              "compute_at: block 'relu' is inside loop 'i' already");
  }
  {
    // A second reader of %b after the window, and a loop that does not read it.
    PrimFunc func = relu_then_window(3, [](Var i, Var j) { return i + j; });
    const auto* alloc = func.body.as<AllocateNode>();
    Buffer b = alloc->buffer;
    Buffer last = make_buffer("last", DType::f32, {Expr(2)});
    Var u = VarNode::make("u");
    Stmt tail = BlockNode::make(
        "tail", {b}, {last},
        SeqNode::make({loop(u, 1, StoreNode::make(last, Expr(0.0), {u})),
                       StoreNode::make(last, LoadNode::make(b, {Expr(9)}), {Expr(1)})}));
    std::vector<Stmt> stmts = alloc->body.as<SeqNode>()->stmts;
    stmts.push_back(tail);
    func.body = AllocateNode::make(b, SeqNode::make(stmts));
    func.params.push_back(last);
    Schedule sch(func);
    UMA_SCHED_ASSIGN(BlockRef relu, sch.get_block("relu"));
    UMA_SCHED_ASSIGN(BlockRef window, sch.get_block("window"));
    UMA_SCHED_ASSIGN(auto loops, sch.get_loops(window));
    EXPECT_EQ(error_of(sch.compute_at(relu, LoopRef{u})), "compute_at: loop 'u' does not read %b");
    EXPECT_EQ(error_of(sch.compute_at(relu, loops[0])),
              "compute_at: %b is also used outside loop 'i'");
  }
  {
    // A reduction as the producer; a function output as the producer's buffer.
    ConvShape sh{.n = 1, .c = 1, .h = 4, .w = 4, .k = 1, .r = 1, .s = 1};
    PrimFunc func = conv2d(sh);
    Buffer out = func.params[2];
    Buffer y = make_buffer("y", DType::f32, {Expr(16)});
    Buffer z = make_buffer("z", DType::f32, {Expr(16)});
    Var i = VarNode::make("i"), t = VarNode::make("t");
    Stmt relu = BlockNode::make(
        "relu", {out}, {y},
        loop(i, 16,
             StoreNode::make(y, max(LoadNode::make(out, {Expr(0), Expr(0), i / 4, i % 4}), 0.0),
                             {i})));
    Stmt twice = BlockNode::make(
        "twice", {y}, {z}, loop(t, 16, StoreNode::make(z, LoadNode::make(y, {t}) * 2.0, {t})));
    func.body = SeqNode::make({func.body, relu, twice});
    func.params.push_back(y);
    func.params.push_back(z);
    Schedule sch(func);
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(BlockRef relu_block, sch.get_block("relu"));
    EXPECT_EQ(error_of(sch.compute_at(conv, LoopRef{i})),
              "compute_at: block 'conv2d_nchw' is not a perfect loop nest around one store to %out "
              "at the loop variables (one loop per dimension, and a reduction's reduce loops); "
              "only such producers are supported");
    EXPECT_EQ(error_of(sch.compute_at(relu_block, LoopRef{t})),
              "compute_at: %y is an output of function @conv: all of it must be computed");
  }
}

TEST(TirScheduleComputeAt, WindowRuns) {
  std::vector<std::function<Expr(Var, Var)>> indices = {
      [](Var i, Var j) { return i + j; },
      [](Var i, Var j) { return max(i * 2 - 1 + j, 0) / 2; },
      [](Var i, Var j) { return (i + j) % 4; },
      [](Var i, Var j) { return min(i + j, 9 - j); },
  };
  for (std::size_t k = 0; k < indices.size(); ++k) {
    for (std::size_t at : {0, 1}) {  // under i or under j
      SCOPED_TRACE(fmt::format("index {} at loop {}", k, at));
      PrimFunc before = relu_then_window(3, indices[k]);
      Schedule sch(before);
      UMA_SCHED_ASSIGN(BlockRef relu, sch.get_block("relu"));
      UMA_SCHED_ASSIGN(BlockRef window, sch.get_block("window"));
      UMA_SCHED_ASSIGN(auto loops, sch.get_loops(window));
      expect_ok(sch.compute_at(relu, loops[at]));
      expect_ok(verify(sch.func()));
      std::vector<float> a = random_data(10, 3);
      std::vector<std::vector<float>> outs;
      for (const PrimFunc& func : {before, sch.func()}) {
        auto built = testing_c::build({func});
        ASSERT_TRUE(built.ok()) << built.error().message();
        std::vector<float> out(8);
        ASSERT_EQ(testing_c::call(*built, 0, {a.data(), out.data()}), 0);
        outs.push_back(out);
      }
      EXPECT_EQ(outs[0], outs[1]);
    }
  }
}

TEST(TirScheduleComputeAt, PaddedConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    for (int at : {2, 3}) {  // under p (rows of the window), under q (one window)
      Schedule sch(conv2d(sh, /*pad_block=*/true));
      UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
      UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
      UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
      expect_ok(sch.compute_at(pad, l[at]));
      expect_conv_matches(sch.func(), sh);
    }
  }
}

}  // namespace
}  // namespace uma::tir
