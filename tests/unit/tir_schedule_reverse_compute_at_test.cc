// reverse_compute_at: golden loop IR of a reduction's epilogue brought into its spatial
// loops (then decomposed and compacted into a register), errors, and the convolution
// compiled after each schedule.
#include <gtest/gtest.h>

#include "tir_epilogue_test_util.h"
#include "tir_pass_test_util.h"
#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

const ConvShape kSmall{.n = 1, .c = 2, .h = 3, .w = 3, .k = 1, .r = 2, .s = 1};

// The epilogue's loops keep their variables over one point (simplify later makes them its
// body), and %acc shrinks to that point.
TEST(TirScheduleReverseComputeAt, EpilogueIntoTheSpatialLoops) {
  Schedule sch(with_epilogue(kSmall));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(BlockRef epilogue, sch.get_block("conv2d_nchw_epilogue"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  expect_ok(sch.reverse_compute_at(epilogue, l[3]));
  UMA_SCHED_ASSIGN(BlockRef init, sch.decompose_reduction(conv, l[4]));
  (void)init;
  PrimFunc compacted = testing_pass::apply(compact_buffers_pass(), sch.func());
  EXPECT_EQ(to_string(compacted),
            R"(func @conv(%x: f32[1, 2, 3, 3], %w: f32[1, 2, 2, 1]) -> (%out: f32[1, 1, 2, 3]) {
  block conv2d_nchw(reads: %x, %w) iters {n: spatial(1) = n, k: spatial(1) = k, p: spatial(2) = p, q: spatial(3) = q, c: reduce(2) = c, r: reduce(2) = r, s: reduce(1) = s} {
    for (n, 0, 1) {
      for (k, 0, 1) {
        for (p, 0, 2) {
          for (q, 0, 3) {
            allocate %acc: f32[1, 1, 1, 1] in "local" {
              block conv2d_nchw_init(writes: %acc) iters {n: spatial(1) = n, k: spatial(1) = k, p: spatial(2) = p, q: spatial(3) = q} {
                %acc[0, 0, 0, 0] = 0.0f
              }
              for (c, 0, 2) {
                for (r, 0, 2) {
                  for (s, 0, 1) {
                    %acc[0, 0, 0, 0] = %acc[0, 0, 0, 0] + %x[n, c, p + r, q + s] * %w[k, c, r, s]
                  }
                }
              }
              block conv2d_nchw_epilogue(reads: %acc; writes: %out) {
                for (i0, n, 1) {
                  for (i1, k, 1) {
                    for (i2, p, 1) {
                      for (i3, q, 1) {
                        %out[i0, i1, i2, i3] = %acc[i0 - n, i1 - k, i2 - p, i3 - q]
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
  }
}
)");
}

TEST(TirScheduleReverseComputeAt, Errors) {
  Schedule sch(with_epilogue(kSmall));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  UMA_SCHED_ASSIGN(BlockRef epilogue, sch.get_block("conv2d_nchw_epilogue"));
  UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
  EXPECT_EQ(error_of(sch.reverse_compute_at(epilogue, l[5])),
            "reverse_compute_at: iterations of loop 'c' write the same elements of %acc (a "
            "reduction over it), so an iteration of loop 'r' does not finish them");
  UMA_SCHED_ASSIGN(auto el, sch.get_loops(epilogue));
  EXPECT_EQ(error_of(sch.reverse_compute_at(conv, el[0])),
            "reverse_compute_at: loop 'i0' and block 'conv2d_nchw' are not in one sequence of "
            "statements with the loop first");
}

// The epilogue at the innermost spatial loop, and at a register tile of output points
// with the reduce loops outside the tile's.
TEST(TirScheduleReverseComputeAt, Numeric) {
  auto factor = [](std::int64_t extent) { return extent % 2 == 0 ? 2 : extent; };
  for (const ConvShape& sh : conv_shapes()) {
    {
      Schedule sch(with_epilogue(sh));
      UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
      UMA_SCHED_ASSIGN(BlockRef epilogue, sch.get_block("conv2d_nchw_epilogue"));
      UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
      expect_ok(sch.reverse_compute_at(epilogue, l[3]));
      ASSERT_TRUE(sch.decompose_reduction(conv, l[4]).ok());
      expect_conv_matches(testing_pass::apply(compact_buffers_pass(), sch.func()), sh);
    }
    {
      Schedule sch(with_epilogue(sh));
      UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
      UMA_SCHED_ASSIGN(BlockRef epilogue, sch.get_block("conv2d_nchw_epilogue"));
      UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));  // n k p q c r s
      UMA_SCHED_ASSIGN(auto q, sch.split(l[3], factor(sh.q())));
      UMA_SCHED_ASSIGN(auto k, sch.split(l[1], factor(sh.k)));
      expect_ok(sch.reorder({k[0], l[2], q[0], l[4], l[5], l[6], k[1], q[1]}));
      expect_ok(sch.reverse_compute_at(epilogue, q[0]));
      ASSERT_TRUE(sch.decompose_reduction(conv, l[4]).ok());
      PrimFunc compacted = testing_pass::apply(compact_buffers_pass(), sch.func());
      EXPECT_NE(to_string(compacted).find("in \"local\""), std::string::npos)
          << to_string(compacted);
      expect_conv_matches(compacted, sh);
    }
  }
}

}  // namespace
}  // namespace uma::tir
