// decompose_reduction: golden loop IR, errors, and the conv2d reduction block compiled
// after splits and reorders that interleave spatial and reduce loops.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

const ConvShape kSmall{.n = 1, .c = 2, .h = 4, .w = 4, .k = 2, .r = 1, .s = 1};

TEST(TirScheduleDecomposeReduction, AtTheFirstReduceLoop) {
  Schedule sch(conv2d_reduction(kSmall));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  UMA_SCHED_ASSIGN(BlockRef init, sch.decompose_reduction(conv, l[4]));
  EXPECT_EQ(sch.block_name(init).value(), "conv2d_nchw_init");
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 1, 1]) -> (%out: f32[1, 2, 4, 4]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) iters {n: spatial(1) = n, k: spatial(2) = k, p: spatial(4) = p, q: spatial(4) = q, c: reduce(2) = c, r: reduce(1) = r, s: reduce(1) = s} {
    for (n, 0, 1) {
      for (k, 0, 2) {
        for (p, 0, 4) {
          for (q, 0, 4) {
            block conv2d_nchw_init(writes: %out) iters {n: spatial(1) = n, k: spatial(2) = k, p: spatial(4) = p, q: spatial(4) = q} {
              %out[n, k, p, q] = 0.0f
            }
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
  expect_ok(verify(sch.func()));
}

// A register tile: the reduce loops move outside q_inner, so the init runs over a copy of
// q_inner before them; split and reorder keep the bindings.
TEST(TirScheduleDecomposeReduction, AroundInterleavedLoops) {
  Schedule sch(conv2d_reduction(kSmall));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  UMA_SCHED_ASSIGN(auto q, sch.split(l[3], 2));
  expect_ok(sch.reorder({l[4], l[5], l[6], q[1]}));
  expect_ok(verify(sch.func()));
  UMA_SCHED_ASSIGN(BlockRef init, sch.decompose_reduction(conv, l[4]));
  (void)init;
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 1, 1]) -> (%out: f32[1, 2, 4, 4]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) iters {n: spatial(1) = n, k: spatial(2) = k, p: spatial(4) = p, q: spatial(4) = q_outer * 2 + q_inner, c: reduce(2) = c, r: reduce(1) = r, s: reduce(1) = s} {
    for (n, 0, 1) {
      for (k, 0, 2) {
        for (p, 0, 4) {
          for (q_outer, 0, 2) {
            block conv2d_nchw_init(writes: %out) iters {n: spatial(1) = n, k: spatial(2) = k, p: spatial(4) = p, q: spatial(4) = q_outer * 2 + q_inner_init} {
              for (q_inner_init, 0, 2) {
                %out[n, k, p, q_outer * 2 + q_inner_init] = 0.0f
              }
            }
            for (c, 0, 2) {
              for (r, 0, 1) {
                for (s, 0, 1) {
                  for (q_inner, 0, 2) {
                    %out[n, k, p, q_outer * 2 + q_inner] = %out[n, k, p, q_outer * 2 + q_inner] + %x[n, c, p + r, q_outer * 2 + q_inner + s] * %w[k, c, r, s]
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

TEST(TirScheduleDecomposeReduction, Errors) {
  Schedule sch(conv2d_reduction(kSmall));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  EXPECT_EQ(error_of(sch.decompose_reduction(conv, l[5])),
            "decompose_reduction: loop 'c' of a reduce iteration variable encloses loop 'r'");
  expect_ok(sch.reorder({l[4], l[3]}));  // n k p c q r s
  EXPECT_EQ(error_of(sch.decompose_reduction(conv, l[3])),
            "decompose_reduction: loop 'c' of a reduce iteration variable encloses loop 'q'");
  UMA_SCHED_ASSIGN(auto fused, sch.fuse(l[4], l[3]));
  (void)fused;
  EXPECT_EQ(error_of(sch.decompose_reduction(conv, l[2])),
            "decompose_reduction: loop 'c_q_fused' is bound to a spatial and a reduce iteration "
            "variable");

  Schedule plain(conv2d(kSmall));
  UMA_SCHED_ASSIGN(BlockRef block, plain.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(auto pl, plain.get_loops(block));
  EXPECT_EQ(error_of(plain.decompose_reduction(block, pl[4])),
            "decompose_reduction: block 'conv2d_nchw' has no init");
}

// Compiled and run against a direct convolution: the default place, and register tiles of
// output pixels inside the reduction loops.
TEST(TirScheduleDecomposeReduction, Numeric) {
  // Factors that divide, so that no guard breaks the perfect nest.
  auto factor = [](std::int64_t extent) { return extent % 2 == 0 ? 2 : extent; };
  for (const ConvShape& sh : conv_shapes()) {
    {
      Schedule sch(conv2d_reduction(sh));
      UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
      UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
      ASSERT_TRUE(sch.decompose_reduction(conv, l[4]).ok());
      expect_conv_matches(sch.func(), sh);
    }
    {
      Schedule sch(conv2d_reduction(sh));
      UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
      UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
      UMA_SCHED_ASSIGN(auto q, sch.split(l[3], factor(sh.q())));
      UMA_SCHED_ASSIGN(auto k, sch.split(l[1], factor(sh.k)));
      expect_ok(sch.reorder({k[0], l[2], q[0], l[4], l[5], l[6], k[1], q[1]}));
      ASSERT_TRUE(sch.decompose_reduction(conv, l[4]).ok());
      expect_conv_matches(sch.func(), sh);
    }
  }
}

}  // namespace
}  // namespace uma::tir
