// tile: golden loop IR, errors, and the conv2d nest compiled before and after.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleTile, Golden) {
  Schedule sch(elementwise(6, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto tiles, sch.tile(loops[0], loops[1], 2, 4));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[6, 10], %b: f32[6, 10]) -> (%out: f32[6, 10]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i_outer, 0, 3) {
      for (j_outer, 0, 3) {
        for (i_inner, 0, 2) {
          for (j_inner, 0, 4) {
            if (j_outer * 4 + j_inner < 10) {
              %out[i_outer * 2 + i_inner, j_outer * 4 + j_inner] = %a[i_outer * 2 + i_inner, j_outer * 4 + j_inner] * 2.0f + %b[i_outer * 2 + i_inner, j_outer * 4 + j_inner]
            }
          }
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  UMA_SCHED_ASSIGN(auto after, sch.get_loops(block));
  ASSERT_EQ(after.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(after[i].var.same_as(tiles[i].var)) << i;
}

TEST(TirScheduleTile, ErrorsLeaveTheScheduleAsItWas) {
  Schedule sch(elementwise(6, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  std::string before = to_string(sch.func());
  EXPECT_EQ(error_of(sch.tile(loops[1], loops[0], 2, 2)), "tile: loop 'i' is not inside loop 'j'");
  // The first split succeeds, the second fails: the first is undone.
  EXPECT_EQ(error_of(sch.tile(loops[0], loops[1], 2, 4, TailStrategy::kError)),
            "tile: split: extent 10 of loop 'j' is not a multiple of 4");
  EXPECT_EQ(to_string(sch.func()), before);
  // The handles still name the loops.
  UMA_SCHED_ASSIGN(auto tiles, sch.tile(loops[0], loops[1], 3, 5, TailStrategy::kError));
  (void)tiles;
}

TEST(TirScheduleTile, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    UMA_SCHED_ASSIGN(auto tiles, sch.tile(l[2], l[3], 2, 3));
    (void)tiles;
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
