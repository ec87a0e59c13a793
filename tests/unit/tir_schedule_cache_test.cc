// cache_read and cache_write: golden loop IR, errors, and the conv2d nest compiled before
// and after (with the copy computed where it is used).
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleCacheRead, Golden) {
  Schedule sch(elementwise(2, 3));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(BlockRef copy, sch.cache_read(block, sch.func().params[0], "sram"));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[2, 3], %b: f32[2, 3]) -> (%out: f32[2, 3]) {
  allocate %a_sram: f32[2, 3] in "sram" {
    block a_sram(reads: %a; writes: %a_sram) {
      for (ax0, 0, 2) {
        for (ax1, 0, 3) {
          %a_sram[ax0, ax1] = %a[ax0, ax1]
        }
      }
    }
    block scale_add(reads: %a_sram, %b; writes: %out) {
      for (i, 0, 2) {
        for (j, 0, 3) {
          %out[i, j] = %a_sram[i, j] * 2.0f + %b[i, j]
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  EXPECT_EQ(*sch.block_name(copy), "a_sram");
}

TEST(TirScheduleCacheWrite, Golden) {
  Schedule sch(elementwise(2, 3));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(BlockRef copy, sch.cache_write(block, sch.func().params[2], "local"));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @scale_add(%a: f32[2, 3], %b: f32[2, 3]) -> (%out: f32[2, 3]) {
  allocate %out_local: f32[2, 3] in "local" {
    block scale_add(reads: %a, %b; writes: %out_local) {
      for (i, 0, 2) {
        for (j, 0, 3) {
          %out_local[i, j] = %a[i, j] * 2.0f + %b[i, j]
        }
      }
    }
    block out_local(reads: %out_local; writes: %out) {
      for (ax0, 0, 2) {
        for (ax1, 0, 3) {
          %out[ax0, ax1] = %out_local[ax0, ax1]
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  EXPECT_EQ(*sch.block_name(copy), "out_local");
}

// An extern call writes its output through the address it is given: the block declares the
// write, and the call is given the copy's address.
TEST(TirScheduleCacheWrite, ExternCallOutput) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 5, .k = 3, .r = 1, .s = 2};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  expect_ok(sch.replace_with_extern(conv, "npu_conv2d", std::vector<Expr>{}));
  UMA_SCHED_ASSIGN(BlockRef copy, sch.cache_write(conv, sch.func().params[2], "acc"));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 5], %w: f32[3, 2, 1, 2]) -> (%out: f32[1, 3, 4, 4]) {
  allocate %out_acc: f32[1, 3, 4, 4] in "acc" {
    block conv2d_nchw(reads: %x, %w; writes: %out_acc) {
      @extern npu_conv2d<i32>(&%x[0, 0, 0, 0], &%w[0, 0, 0, 0], &%out_acc[0, 0, 0, 0])
    }
    block out_acc(reads: %out_acc; writes: %out) {
      for (ax0, 0, 1) {
        for (ax1, 0, 3) {
          for (ax2, 0, 4) {
            for (ax3, 0, 4) {
              %out[ax0, ax1, ax2, ax3] = %out_acc[ax0, ax1, ax2, ax3]
            }
          }
        }
      }
    }
  }
}
)");
  expect_ok(verify(sch.func()));
  EXPECT_EQ(*sch.block_name(copy), "out_acc");
  // An input it reads by address is not written.
  EXPECT_EQ(error_of(sch.cache_write(conv, sch.func().params[0], "acc")),
            "cache_write: block 'conv2d_nchw' does not write %x");
}

TEST(TirScheduleCache, Errors) {
  Schedule sch(elementwise(2, 3));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  const auto& params = sch.func().params;
  EXPECT_EQ(error_of(sch.cache_read(block, params[2], "sram")),
            "cache_read: block 'scale_add' does not read %out");
  EXPECT_EQ(error_of(sch.cache_write(block, params[0], "sram")),
            "cache_write: block 'scale_add' does not write %a");
  EXPECT_EQ(error_of(sch.cache_read(block, params[0], "")),
            "cache_read: the scope of the copy of %a is empty");

  ConvShape sh{.n = 1, .c = 1, .h = 4, .w = 4, .k = 1, .r = 1, .s = 1};
  Schedule conv_sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, conv_sch.get_block("conv2d_nchw"));
  EXPECT_EQ(error_of(conv_sch.cache_read(conv, conv_sch.func().params[2], "sram")),
            "cache_read: block 'conv2d_nchw' also writes %out; cache it with cache_write");
}

TEST(TirScheduleCache, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh));
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    Buffer x = sch.func().params[0], w = sch.func().params[1], out = sch.func().params[2];
    UMA_SCHED_ASSIGN(BlockRef x_copy, sch.cache_read(conv, x, "sram"));
    UMA_SCHED_ASSIGN(BlockRef w_copy, sch.cache_read(conv, w, "weights"));
    UMA_SCHED_ASSIGN(BlockRef out_copy, sch.cache_write(conv, out, "acc"));
    (void)out_copy;
    expect_conv_matches(sch.func(), sh);
    // The input copied one image at a time, the weights one output channel at a time.
    UMA_SCHED_ASSIGN(auto l, sch.get_loops(conv));
    expect_ok(sch.compute_at(x_copy, l[0]));
    expect_ok(sch.compute_at(w_copy, l[1]));
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
