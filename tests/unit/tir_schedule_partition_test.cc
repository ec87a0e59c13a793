// partition: golden loop IR (the guard of a split leaves the main part), copies of blocks
// and loops in the tail, errors, and the conv2d nest compiled after partitions.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirSchedulePartition, MainPartWithoutTheSplitGuard) {
  Schedule sch(elementwise(3, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], 4));
  UMA_SCHED_ASSIGN(auto parts, sch.partition(j[0], Expr(10 / 4)));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[3, 10], %b: f32[3, 10]) -> (%out: f32[3, 10]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i, 0, 3) {
      for (j_outer_main, 0, 2) {
        for (j_inner, 0, 4) {
          %out[i, j_outer_main * 4 + j_inner] = %a[i, j_outer_main * 4 + j_inner] * 2.0f + %b[i, j_outer_main * 4 + j_inner]
        }
      }
      for (j_outer_tail, 2, 1) {
        for (j_inner_1, 0, 4) {
          if (j_outer_tail * 4 + j_inner_1 < 10) {
            %out[i, j_outer_tail * 4 + j_inner_1] = %a[i, j_outer_tail * 4 + j_inner_1] * 2.0f + %b[i, j_outer_tail * 4 + j_inner_1]
          }
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  // The main part keeps the inner loop's handle; both parts can be scheduled on.
  expect_ok(sch.vectorize(j[1]));
  UMA_SCHED_ASSIGN(auto loops_after, sch.get_loops(block));
  ASSERT_EQ(loops_after.size(), 5u);
  EXPECT_TRUE(loops_after[1].var.same_as(parts[0].var));
  EXPECT_TRUE(loops_after[3].var.same_as(parts[1].var));
  expect_ok(sch.unroll(loops_after[4]));
}

TEST(TirSchedulePartition, BlocksInTheLoopAreCopied) {
  // for (i) { block row { for (j) { out[i, j] = a[i, j] } } }: the tail gets its own block,
  // with new loop variables; the ticket follows the main part's block.
  Buffer a = make_buffer("a", DType::f32, {Expr(5), Expr(3)});
  Buffer out = make_buffer("out", DType::f32, {Expr(5), Expr(3)});
  Var i = VarNode::make("i"), j = VarNode::make("j");
  PrimFunc func;
  func.name = "rows";
  func.params = {a, out};
  func.num_inputs = 1;
  func.body =
      loop(i, 5,
           BlockNode::make("row", {a}, {out},
                           loop(j, 3, StoreNode::make(out, LoadNode::make(a, {i, j}), {i, j}))));
  Schedule sch(func);
  UMA_SCHED_ASSIGN(BlockRef row, sch.get_block("row"));
  UMA_SCHED_ASSIGN(auto parts, sch.partition(LoopRef{i}, Expr(4)));
  EXPECT_EQ(to_string(sch.func()), R"(func @rows(%a: f32[5, 3]) -> (%out: f32[5, 3]) {
  for (i_main, 0, 4) {
    block row(reads: %a; writes: %out) {
      for (j, 0, 3) {
        %out[i_main, j] = %a[i_main, j]
      }
    }
  }
  for (i_tail, 4, 1) {
    block row(reads: %a; writes: %out) {
      for (j_1, 0, 3) {
        %out[i_tail, j_1] = %a[i_tail, j_1]
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  UMA_SCHED_ASSIGN(auto rows, sch.get_blocks("row"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0] == row);
  UMA_SCHED_ASSIGN(auto main_loops, sch.get_loops(rows[0]));
  UMA_SCHED_ASSIGN(auto tail_loops, sch.get_loops(rows[1]));
  ASSERT_EQ(main_loops.size(), 2u);
  ASSERT_EQ(tail_loops.size(), 2u);
  EXPECT_TRUE(main_loops[0].var.same_as(parts[0].var));
  EXPECT_TRUE(main_loops[1].var.same_as(j));
  EXPECT_TRUE(tail_loops[0].var.same_as(parts[1].var));
  EXPECT_FALSE(tail_loops[1].var.same_as(j));
}

TEST(TirSchedulePartition, ReductionBlockIsCopiedWithItsLoop) {
  // A spatial loop: each copy keeps the init, for its own rows.
  Schedule rows(row_reduce(5, 3));
  UMA_SCHED_ASSIGN(BlockRef block, rows.get_block("row_sum"));
  UMA_SCHED_ASSIGN(auto loops, rows.get_loops(block));
  UMA_SCHED_ASSIGN(auto parts, rows.partition(loops[0], Expr(4)));
  (void)parts;
  EXPECT_EQ(to_string(rows.func()),
            R"(func @row_reduce(%a: f32[5, 3], %b: f32[5]) -> (%out: f32[5]) {
  block row_sum(reads: %a, %b; writes: %out) iters {i: spatial(5) = i_main, j: reduce(3) = j} {
    init {
      %out[i_main] = %b[i_main]
    }
    for (i_main, 0, 4) {
      for (j, 0, 3) {
        %out[i_main] = %out[i_main] + %a[i_main, j]
      }
    }
  }
  block row_sum(reads: %a, %b; writes: %out) iters {i: spatial(5) = i_tail, j: reduce(3) = j_1} {
    init {
      %out[i_tail] = %b[i_tail]
    }
    for (i_tail, 4, 1) {
      for (j_1, 0, 3) {
        %out[i_tail] = %out[i_tail] + %a[i_tail, j_1]
      }
    }
  }
}
)");
  expect_ok(verify(rows.func()));
  UMA_SCHED_ASSIGN(auto blocks, rows.get_blocks("row_sum"));
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_TRUE(blocks[0] == block);

  // A reduce loop, once outermost: only the main part, which runs first, starts the sums.
  Schedule cols(row_reduce(2, 6));
  UMA_SCHED_ASSIGN(BlockRef col_block, cols.get_block("row_sum"));
  UMA_SCHED_ASSIGN(auto col_loops, cols.get_loops(col_block));
  EXPECT_EQ(error_of(cols.partition(col_loops[1], Expr(2))),
            "partition: loop 'j' is bound to an iteration variable of block 'row_sum' but is not "
            "the block's whole body; reorder it outermost first");
  expect_ok(cols.reorder({col_loops[1], col_loops[0]}));
  UMA_SCHED_ASSIGN(auto col_parts, cols.partition(col_loops[1], Expr(2)));
  (void)col_parts;
  EXPECT_EQ(to_string(cols.func()),
            R"(func @row_reduce(%a: f32[2, 6], %b: f32[2]) -> (%out: f32[2]) {
  block row_sum(reads: %a, %b; writes: %out) iters {i: spatial(2) = i, j: reduce(6) = j_main} {
    init {
      %out[i] = %b[i]
    }
    for (j_main, 0, 2) {
      for (i, 0, 2) {
        %out[i] = %out[i] + %a[i, j_main]
      }
    }
  }
  block row_sum(reads: %a, %b; writes: %out) iters {i: spatial(2) = i_1, j: reduce(6) = j_tail} {
    for (j_tail, 2, 4) {
      for (i_1, 0, 2) {
        %out[i_1] = %out[i_1] + %a[i_1, j_tail]
      }
    }
  }
}
)");
  expect_ok(verify(cols.func()));
}

TEST(TirSchedulePartition, Errors) {
  Schedule sch(elementwise(3, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  EXPECT_EQ(error_of(sch.partition(loops[1], Expr(10))),
            "partition: point 10 is not shown to lie strictly inside loop 'j' [0, 10)");
  EXPECT_EQ(error_of(sch.partition(loops[1], Expr(0))),
            "partition: point 0 is not shown to lie strictly inside loop 'j' [0, 10)");
  EXPECT_EQ(error_of(sch.partition(loops[1], loops[1].var)),
            "partition: point j of loop 'j' uses the loop's own variable");
  EXPECT_EQ(
      error_of(sch.partition(loops[1], IntImmNode::make(DataType::scalar(DType::i32), 4) *
                                           IntImmNode::make(DataType::scalar(DType::i32), 1))),
      "partition: point 4i32 * 1i32 of loop 'j' is of type i32, not the loop's i64");
  // A point may depend on the loops around, if it is inside for each of their values.
  EXPECT_EQ(error_of(sch.partition(loops[1], loops[0].var + 8)),
            "partition: point i + 8 is not shown to lie strictly inside loop 'j' [0, 10)");
  // A failed partition changes nothing.
  EXPECT_EQ(to_string(sch.func()), to_string(elementwise(3, 10)));
}

TEST(TirSchedulePartition, SymbolicExtent) {
  Buffer a = make_buffer("a", DType::f32, {VarNode::make("n")});
  Var i = VarNode::make("i");
  PrimFunc func;
  func.name = "fill";
  func.params = {a};
  func.body = BlockNode::make(
      "fill", {}, {a},
      ForNode::make(i, Expr(0), a->shape[0], ForKind::kSerial, StoreNode::make(a, Expr(1.0), {i})));
  Schedule sch(func);
  // Nothing shows that n > 8.
  EXPECT_EQ(error_of(sch.partition(LoopRef{i}, Expr(8))),
            "partition: point 8 is not shown to lie strictly inside loop 'i' [0, n)");
}

TEST(TirSchedulePartition, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto loops, sch.get_loops(conv));
    // The reduction over channels in two parts; the rows apart from the first and the last
    // (where the padding guard is partly decided); the columns' split tail.
    ASSERT_TRUE(sch.partition(loops[4], Expr(sh.c / 2)).ok());
    UMA_SCHED_ASSIGN(auto rows, sch.partition(loops[2], Expr(1)));
    ASSERT_TRUE(sch.partition(rows[1], Expr(sh.p() - 1)).ok());
    UMA_SCHED_ASSIGN(auto q, sch.split(loops[3], 2));
    if (sh.q() % 2 != 0) {
      ASSERT_TRUE(sch.partition(q[0], Expr(sh.q() / 2)).ok());
    }
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
