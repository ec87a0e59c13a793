// The Schedule itself: looking up blocks and loops, and handles that stay valid across
// primitives. The conv2d nest of the primitives' numeric tests runs unscheduled here.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

std::vector<std::string> names(const std::vector<LoopRef>& loops) {
  std::vector<std::string> out;
  for (const LoopRef& loop : loops) out.push_back(loop.var.as<VarNode>()->name);
  return out;
}

TEST(TirSchedule, ConvNestAsBuilt) {
  ConvShape sh{.n = 1, .c = 3, .h = 8, .w = 8, .k = 4, .r = 3, .s = 3, .stride = 1, .pad = 1};
  EXPECT_EQ(to_string(conv2d(sh)),
            R"(func @conv(%x: f32[1, 3, 8, 8], %w: f32[4, 3, 3, 3]) -> (%out: f32[1, 4, 8, 8]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) {
    for (n, 0, 1) {
      for (k, 0, 4) {
        for (p, 0, 8) {
          for (q, 0, 8) {
            %out[n, k, p, q] = 0.0f
            for (c, 0, 3) {
              for (r, 0, 3) {
                for (s, 0, 3) {
                  if (p + r - 1 >= 0 && p + r - 1 < 8 && q + s - 1 >= 0 && q + s - 1 < 8) {
                    %out[n, k, p, q] = %out[n, k, p, q] + %x[n, c, p + r - 1, q + s - 1] * %w[k, c, r, s]
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
}

TEST(TirSchedule, PaddedConvNestAsBuilt) {
  ConvShape sh{.n = 1, .c = 2, .h = 5, .w = 5, .k = 2, .r = 3, .s = 3, .stride = 2, .pad = 1};
  EXPECT_EQ(to_string(conv2d(sh, /*pad_block=*/true)),
            R"(func @conv(%x: f32[1, 2, 5, 5], %w: f32[2, 2, 3, 3]) -> (%out: f32[1, 2, 3, 3]) {
  allocate %xp: f32[1, 2, 7, 7] {
    block pad(reads: %x; writes: %xp) {
      for (pn, 0, 1) {
        for (pc, 0, 2) {
          for (ph, 0, 7) {
            for (pw, 0, 7) {
              %xp[pn, pc, ph, pw] = select(ph >= 1 && ph < 6 && pw >= 1 && pw < 6, %x[pn, pc, ph - 1, pw - 1], 0.0f)
            }
          }
        }
      }
    }
    block conv2d_nchw(reads: %xp, %w; writes: %out) {
      for (n, 0, 1) {
        for (k, 0, 2) {
          for (p, 0, 3) {
            for (q, 0, 3) {
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
}

TEST(TirSchedule, ElementwiseAsBuilt) {
  EXPECT_EQ(to_string(elementwise(6, 10)),
            R"(func @scale_add(%a: f32[6, 10], %b: f32[6, 10]) -> (%out: f32[6, 10]) {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i, 0, 6) {
      for (j, 0, 10) {
        %out[i, j] = %a[i, j] * 2.0f + %b[i, j]
      }
    }
  }
}
)");
}

TEST(TirSchedule, UnscheduledConvMatchesTheReference) {
  for (const ConvShape& sh : conv_shapes()) {
    expect_conv_matches(conv2d(sh), sh);
    expect_conv_matches(conv2d(sh, /*pad_block=*/true), sh);
  }
}

TEST(TirSchedule, GetBlockAndLoops) {
  ConvShape sh{.n = 1, .c = 3, .h = 8, .w = 8, .k = 4, .r = 3, .s = 3, .stride = 1, .pad = 1};
  Schedule sch(conv2d(sh, /*pad_block=*/true));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
  EXPECT_FALSE(conv == pad);
  UMA_SCHED_ASSIGN(BlockRef again, sch.get_block("conv2d_nchw"));
  EXPECT_TRUE(conv == again);
  EXPECT_EQ(*sch.block_name(conv), "conv2d_nchw");
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(conv));
  EXPECT_EQ(names(loops), (std::vector<std::string>{"n", "k", "p", "q", "c", "r", "s"}));
  UMA_SCHED_ASSIGN(auto pad_loops, sch.get_loops(pad));
  EXPECT_EQ(names(pad_loops), (std::vector<std::string>{"pn", "pc", "ph", "pw"}));

  // After compute_at, the producer's loops start with the consumer's loops around it, and
  // the consumer's loops leave out the producer's.
  expect_ok(sch.compute_at(pad, loops[3]));
  UMA_SCHED_ASSIGN(pad_loops, sch.get_loops(pad));
  EXPECT_EQ(names(pad_loops),
            (std::vector<std::string>{"n", "k", "p", "q", "pn", "pc", "ph", "pw"}));
  UMA_SCHED_ASSIGN(loops, sch.get_loops(conv));
  EXPECT_EQ(names(loops), (std::vector<std::string>{"n", "k", "p", "q", "c", "r", "s"}));
}

TEST(TirSchedule, BlockHandlesFollowTheirBlocks) {
  // Every primitive rebuilds the block; the handle still finds it, under its new loops.
  Schedule sch(elementwise(6, 8));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto split, sch.split(loops[1], 4));
  expect_ok(sch.reorder({split[0], loops[0]}));
  expect_ok(sch.vectorize(split[1]));
  UMA_SCHED_ASSIGN(auto fused, sch.fuse(split[0], loops[0]));
  expect_ok(sch.parallel(fused));
  UMA_SCHED_ASSIGN(BlockRef copy, sch.cache_write(block, sch.func().params[2], "local"));
  UMA_SCHED_ASSIGN(auto block_loops, sch.get_loops(block));
  EXPECT_EQ(names(block_loops), (std::vector<std::string>{"j_outer_i_fused", "j_inner"}));
  UMA_SCHED_ASSIGN(auto copy_loops, sch.get_loops(copy));
  EXPECT_EQ(names(copy_loops), (std::vector<std::string>{"ax0", "ax1"}));
  EXPECT_EQ(*sch.block_name(copy), "out_local");
  expect_ok(verify(sch.func()));
}

TEST(TirSchedule, GetBlocksInProgramOrder) {
  // Two distinct blocks of one name, with another between them.
  PrimFunc func = elementwise(2, 2);
  auto block = [&](const std::string& name) {
    const Buffer &a = func.params[0], &out = func.params[2];
    Var i = VarNode::make("i"), j = VarNode::make("j");
    Stmt store = StoreNode::make(out, LoadNode::make(a, {i, j}), {i, j});
    return BlockNode::make(name, {a}, {out}, loop(i, 2, loop(j, 2, store)));
  };
  func.body = SeqNode::make({func.body, block("other"), block("scale_add")});
  expect_ok(verify(func));
  Schedule sch(func);
  UMA_SCHED_ASSIGN(auto blocks, sch.get_blocks("scale_add"));
  ASSERT_EQ(blocks.size(), 2u);
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(blocks[1]));
  // Splitting the second block's loop leaves the first alone.
  UMA_SCHED_ASSIGN(auto halves, sch.split(loops[0], 2));
  (void)halves;
  UMA_SCHED_ASSIGN(auto first_loops, sch.get_loops(blocks[0]));
  UMA_SCHED_ASSIGN(auto second_loops, sch.get_loops(blocks[1]));
  EXPECT_EQ(names(first_loops), (std::vector<std::string>{"i", "j"}));
  EXPECT_EQ(names(second_loops), (std::vector<std::string>{"i_outer", "i_inner", "j"}));
  UMA_SCHED_ASSIGN(auto one, sch.get_blocks("other"));
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(error_of(sch.get_blocks("dense")),
            "get_blocks: no block named 'dense' in function @scale_add (its blocks: scale_add, "
            "other, scale_add)");
}

TEST(TirSchedule, LookupErrors) {
  ConvShape sh{.n = 1, .c = 1, .h = 4, .w = 4, .k = 1, .r = 1, .s = 1};
  Schedule sch(conv2d(sh, /*pad_block=*/true));
  EXPECT_EQ(error_of(sch.get_block("dense")),
            "get_block: no block named 'dense' in function @conv (its blocks: pad, conv2d_nchw)");

  // Two blocks of one name.
  PrimFunc twice = elementwise(2, 2);
  twice.body = SeqNode::make({twice.body, twice.body});
  Schedule two(twice);
  EXPECT_EQ(error_of(two.get_block("scale_add")),
            "get_block: 2 blocks of function @scale_add are named 'scale_add'; get_blocks "
            "returns them all");

  PrimFunc bare = elementwise(2, 2);
  bare.body = bare.body.as<BlockNode>()->body;
  Schedule none(bare);
  EXPECT_EQ(error_of(none.get_block("scale_add")),
            "get_block: no block named 'scale_add': function @scale_add has no blocks");

  // A handle of another schedule, an empty loop handle, a loop that is gone.
  Schedule other(elementwise(2, 2));
  UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  EXPECT_EQ(error_of(other.get_loops(conv)),
            "get_loops: the block handle does not belong to this schedule");
  EXPECT_EQ(error_of(sch.split(LoopRef{}, 2)), "split: the loop handle is empty");
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(pad));
  UMA_SCHED_ASSIGN(auto halves, sch.split(loops[3], 2));
  EXPECT_EQ(error_of(sch.unroll(loops[3])),
            "unroll: loop 'pw' is not in function @conv; a split, fuse, tile, partition or "
            "replace_with_extern removed it");
  (void)halves;
  (void)pad;
}

}  // namespace
}  // namespace uma::tir
