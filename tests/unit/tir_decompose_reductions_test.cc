// decompose-reductions: golden loop IR (with an epilogue fused), functions without inits
// unchanged, and the convolution compiled after it.
#include <gtest/gtest.h>

#include "tir_epilogue_test_util.h"
#include "tir_pass_test_util.h"
#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using testing_pass::apply;
using namespace testing_schedule;

TEST(TirDecomposeReductions, AtTheOutermostReduceLoop) {
  ConvShape sh{.n = 1, .c = 2, .h = 3, .w = 3, .k = 1, .r = 2, .s = 1};
  PrimFunc after = apply(decompose_reductions_pass(), conv2d_reduction(sh));
  EXPECT_EQ(to_string(after),
            R"(func @conv(%x: f32[1, 2, 3, 3], %w: f32[1, 2, 2, 1]) -> (%out: f32[1, 1, 2, 3]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) {
    for (n, 0, 1) {
      for (k, 0, 1) {
        for (p, 0, 2) {
          for (q, 0, 3) {
            block conv2d_nchw_init(writes: %out) {
              %out[n, k, p, q] = 0.0f
            }
            for (c, 0, 2) {
              for (r, 0, 2) {
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
}

// The epilogue moves under the innermost spatial loop first, so that compact-buffers then
// shrinks the accumulator to the point; every block loses its iteration variables.
TEST(TirDecomposeReductions, FusesTheEpilogue) {
  PrimFunc after = apply(
      compact_buffers_pass(),
      apply(decompose_reductions_pass(),
            with_epilogue(ConvShape{.n = 1, .c = 2, .h = 3, .w = 3, .k = 1, .r = 2, .s = 1})));
  EXPECT_EQ(to_string(after),
            R"(func @conv(%x: f32[1, 2, 3, 3], %w: f32[1, 2, 2, 1]) -> (%out: f32[1, 1, 2, 3]) {
  block conv2d_nchw(reads: %x, %w) {
    for (n, 0, 1) {
      for (k, 0, 1) {
        for (p, 0, 2) {
          for (q, 0, 3) {
            allocate %acc: f32[1, 1, 1, 1] in "local" {
              block conv2d_nchw_init(writes: %acc) {
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

TEST(TirDecomposeReductions, LeavesBlocksWithoutInit) {
  PrimFunc func = conv2d(ConvShape{.n = 1, .c = 2, .h = 3, .w = 3, .k = 1, .r = 2, .s = 1});
  EXPECT_TRUE(apply(decompose_reductions_pass(), func).body.same_as(func.body));
}

TEST(TirDecomposeReductions, Numeric) {
  for (const ConvShape& sh : conv_shapes())
    expect_conv_matches(apply(decompose_reductions_pass(), conv2d_reduction(sh)), sh);
  for (const ConvShape& sh : conv_shapes())
    expect_conv_matches(
        apply(compact_buffers_pass(), apply(decompose_reductions_pass(), with_epilogue(sh))), sh);
}

}  // namespace
}  // namespace uma::tir
