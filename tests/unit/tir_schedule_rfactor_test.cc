// rfactor: golden loop IR of partial sums and their combination, errors, and a row
// reduction compiled after rfactor and compared with a direct sum.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleRfactor, GoldenPartialSums) {
  Schedule sch(row_reduce(3, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("row_sum"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], 4));
  UMA_SCHED_ASSIGN(BlockRef rf, sch.rfactor(block, j[1]));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @row_reduce(%a: f32[3, 10], %b: f32[3]) -> (%out: f32[3]) {
  allocate %out_rf: f32[3, 4] {
    block row_sum_rf(reads: %a; writes: %out_rf) iters {i: spatial(3) = i, j_inner: spatial(4) = j_inner, j_outer: reduce(3) = j_outer} {
      init {
        %out_rf[i, j_inner] = 0.0f
      }
      for (i, 0, 3) {
        for (j_outer, 0, 3) {
          for (j_inner, 0, 4) {
            if (j_outer * 4 + j_inner < 10) {
              %out_rf[i, j_inner] = %out_rf[i, j_inner] + %a[i, j_outer * 4 + j_inner]
            }
          }
        }
      }
    }
    block row_sum(reads: %out_rf, %b; writes: %out) iters {i: spatial(3) = i_1, j_inner: reduce(4) = j_inner_1} {
      init {
        %out[i_1] = %b[i_1]
      }
      for (i_1, 0, 3) {
        for (j_inner_1, 0, 4) {
          %out[i_1] = %out[i_1] + %out_rf[i_1, j_inner_1]
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  EXPECT_EQ(*sch.block_name(rf), "row_sum_rf");
  EXPECT_EQ(*sch.block_name(block), "row_sum");
  // The lanes are independent now.
  expect_ok(sch.vectorize(j[1]));
  UMA_SCHED_ASSIGN(auto rf_loops, sch.get_loops(rf));
  ASSERT_EQ(rf_loops.size(), 3u);
  EXPECT_TRUE(rf_loops[2].var.same_as(j[1].var));
}

TEST(TirScheduleRfactor, GoldenMaxStartsAtMinusInfinity) {
  Schedule sch(row_reduce(2, 8, ExprKind::Max));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("row_sum"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], 4));
  UMA_SCHED_ASSIGN(BlockRef rf, sch.rfactor(block, j[1], "local"));
  (void)rf;
  EXPECT_EQ(to_string(sch.func()),
            R"(func @row_reduce(%a: f32[2, 8], %b: f32[2]) -> (%out: f32[2]) {
  allocate %out_rf: f32[2, 4] in "local" {
    block row_sum_rf(reads: %a; writes: %out_rf) iters {i: spatial(2) = i, j_inner: spatial(4) = j_inner, j_outer: reduce(2) = j_outer} {
      init {
        %out_rf[i, j_inner] = -inff
      }
      for (i, 0, 2) {
        for (j_outer, 0, 2) {
          for (j_inner, 0, 4) {
            %out_rf[i, j_inner] = max(%out_rf[i, j_inner], %a[i, j_outer * 4 + j_inner])
          }
        }
      }
    }
    block row_sum(reads: %out_rf, %b; writes: %out) iters {i: spatial(2) = i_1, j_inner: reduce(4) = j_inner_1} {
      init {
        %out[i_1] = %b[i_1]
      }
      for (i_1, 0, 2) {
        for (j_inner_1, 0, 4) {
          %out[i_1] = max(%out[i_1], %out_rf[i_1, j_inner_1])
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
}

// rfactor on split columns, the inits decomposed, the partials vectorized; compiled and
// compared with the reduction computed here.
TEST(TirScheduleRfactor, RowReductionRuns) {
  for (ExprKind kind : {ExprKind::Add, ExprKind::Max}) {
    for (std::int64_t cols : {37, 40}) {
      SCOPED_TRACE(fmt::format("{} over {} columns", expr_kind_name(kind), cols));
      const std::int64_t rows = 3, lanes = 8;
      Schedule sch(row_reduce(rows, cols, kind));
      UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("row_sum"));
      UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
      UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], lanes));
      UMA_SCHED_ASSIGN(BlockRef rf, sch.rfactor(block, j[1]));
      UMA_SCHED_ASSIGN(auto rf_loops, sch.get_loops(rf));
      UMA_SCHED_ASSIGN(BlockRef rf_init, sch.decompose_reduction(rf, rf_loops[0]));
      (void)rf_init;
      UMA_SCHED_ASSIGN(auto combine_loops, sch.get_loops(block));
      UMA_SCHED_ASSIGN(BlockRef init, sch.decompose_reduction(block, combine_loops[0]));
      (void)init;
      expect_ok(sch.vectorize(j[1]));
      expect_ok(verify(sch.func()));
      auto built = testing_c::build({sch.func()});
      ASSERT_TRUE(built.ok()) << built.error().message() << "\n" << to_string(sch.func());
      std::vector<float> a = random_data(rows * cols, 1), b = random_data(rows, 2);
      std::vector<float> out(rows, std::nanf(""));
      ASSERT_EQ(testing_c::call(*built, 0, {a.data(), b.data(), out.data()}), 0);
      for (std::int64_t i = 0; i < rows; ++i) {
        double want = b[i];
        for (std::int64_t c = 0; c < cols; ++c)
          want = kind == ExprKind::Max ? std::max<double>(want, a[i * cols + c])
                                       : want + a[i * cols + c];
        EXPECT_NEAR(out[i], want, 1e-5 * (1 + std::abs(want))) << "row " << i;
      }
    }
  }
}

TEST(TirScheduleRfactor, Errors) {
  Schedule sch(row_reduce(3, 8));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("row_sum"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  EXPECT_EQ(error_of(sch.rfactor(block, loops[0])),
            "rfactor: loop 'i' is not bound to a reduce iteration variable alone of block "
            "'row_sum'");
  EXPECT_EQ(error_of(sch.rfactor(block, loops[1], "")),
            "rfactor: the scope of the partials is empty");

  // Two stores; an update that is not a combination with the accumulator.
  PrimFunc func = row_reduce(3, 8);
  const auto* b = func.body.as<BlockNode>();
  const auto* i = b->body.as<ForNode>();
  const auto* j = i->body.as<ForNode>();
  const auto* store = j->body.as<StoreNode>();
  auto with_update = [&](Stmt update) {
    PrimFunc f = func;
    f.body = BlockNode::make(
        b->name, b->reads, b->writes,
        ForNode::make(i->var, i->min, i->extent, i->for_kind,
                      ForNode::make(j->var, j->min, j->extent, j->for_kind, std::move(update))),
        b->attrs, b->iter_vars, b->init);
    return f;
  };
  Schedule twice(with_update(SeqNode::make({j->body, j->body})));
  UMA_SCHED_ASSIGN(BlockRef twice_block, twice.get_block("row_sum"));
  EXPECT_EQ(error_of(twice.rfactor(twice_block, LoopRef{j->var})),
            "rfactor: block 'row_sum' has 2 stores, not one update");
  Schedule minus(with_update(StoreNode::make(
      store->buffer, LoadNode::make(store->buffer, store->indices) - Expr(1.0), store->indices)));
  UMA_SCHED_ASSIGN(BlockRef minus_block, minus.get_block("row_sum"));
  EXPECT_EQ(error_of(minus.rfactor(minus_block, LoopRef{j->var})),
            "rfactor: the store of block 'row_sum' to %out is not %out[...] = %out[...] combined "
            "(+, *, min, max) with a value");
  // A failed rfactor changes nothing.
  EXPECT_EQ(to_string(sch.func()), to_string(row_reduce(3, 8)));
}

}  // namespace
}  // namespace uma::tir
