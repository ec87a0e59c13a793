// replace_with_extern: golden loop IR, errors, and the conv2d block replaced by a call of a C
// kernel (compiled with the generated code), which must give the generated loops' output.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

TEST(TirScheduleReplaceWithExtern, GoldenWithLoopExtents) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 5, .k = 3, .r = 1, .s = 2};
  Schedule sch(conv2d(sh));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  expect_ok(sch.replace_with_extern(conv, "npu_conv2d"));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 5], %w: f32[3, 2, 1, 2]) -> (%out: f32[1, 3, 4, 4]) {
  block conv2d_nchw(reads: %x, %w; writes: %out) {
    @extern npu_conv2d<i32>(&%x[0, 0, 0, 0], &%w[0, 0, 0, 0], &%out[0, 0, 0, 0], 1, 3, 4, 4, 2, 1, 2)
  }
}
)");
  expect_ok(verify(sch.func()));
  // The block is still there, with no loops.
  UMA_SCHED_ASSIGN(BlockRef again, sch.get_block("conv2d_nchw"));
  EXPECT_TRUE(again == conv);
  EXPECT_TRUE(sch.get_loops(conv)->empty());
}

TEST(TirScheduleReplaceWithExtern, GoldenWithScalars) {
  ConvShape sh{.n = 1, .c = 2, .h = 4, .w = 5, .k = 3, .r = 1, .s = 2, .stride = 1, .pad = 1};
  Schedule sch(conv2d(sh, /*pad_block=*/true));
  UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
  expect_ok(sch.replace_with_extern(pad, "npu_pad", std::vector<Expr>{Expr(1), Expr(1)}));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 4, 5], %w: f32[3, 2, 1, 2]) -> (%out: f32[1, 3, 6, 6]) {
  allocate %xp: f32[1, 2, 6, 7] {
    block pad(reads: %x; writes: %xp) {
      @extern npu_pad<i32>(&%x[0, 0, 0, 0], &%xp[0, 0, 0, 0], 1, 1)
    }
    block conv2d_nchw(reads: %xp, %w; writes: %out) {
      for (n, 0, 1) {
        for (k, 0, 3) {
          for (p, 0, 6) {
            for (q, 0, 6) {
              %out[n, k, p, q] = 0.0f
              for (c, 0, 2) {
                for (r, 0, 1) {
                  for (s, 0, 2) {
                    %out[n, k, p, q] = %out[n, k, p, q] + %xp[n, c, p + r, q + s] * %w[k, c, r, s]
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

TEST(TirScheduleReplaceWithExtern, Errors) {
  ConvShape sh{.n = 1, .c = 1, .h = 4, .w = 4, .k = 1, .r = 1, .s = 1};
  Schedule sch(conv2d(sh, /*pad_block=*/true));
  UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
  UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
  EXPECT_EQ(error_of(sch.replace_with_extern(conv, "")),
            "replace_with_extern: the function name for block 'conv2d_nchw' is empty");
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(conv));
  EXPECT_EQ(error_of(sch.replace_with_extern(conv, "f", std::vector<Expr>{loops[4].var})),
            "replace_with_extern: scalar argument 0 of block 'conv2d_nchw' (c) uses a variable "
            "bound inside the block");
  EXPECT_EQ(error_of(sch.replace_with_extern(conv, "f", std::vector<Expr>{Expr(1.5), Expr()})),
            "replace_with_extern: scalar argument 1 of block 'conv2d_nchw' is not a scalar");
  expect_ok(sch.compute_at(pad, loops[0]));
  EXPECT_EQ(error_of(sch.replace_with_extern(conv, "f")),
            "replace_with_extern: block 'conv2d_nchw' contains block 'pad', which the call would "
            "drop");

  // A block that does not list a buffer it uses.
  PrimFunc func = elementwise(2, 2);
  const auto* block = func.body.as<BlockNode>();
  func.body = BlockNode::make(block->name, {func.params[0]}, block->writes, block->body);
  Schedule unlisted(func);
  UMA_SCHED_ASSIGN(BlockRef b, unlisted.get_block("scale_add"));
  EXPECT_EQ(error_of(unlisted.replace_with_extern(b, "f")),
            "replace_with_extern: block 'scale_add' uses %b but does not list it in its reads or "
            "writes");
}

// The kernel an accelerator's driver would provide: the same convolution as the generated
// loops, accumulated in the same order.
constexpr const char* kConvKernel = R"(
#include <stdint.h>
int32_t test_conv2d_nchw(void* x_, void* w_, void* out_, int64_t n_, int64_t c_, int64_t h_,
                         int64_t w_size, int64_t k_, int64_t r_, int64_t s_, int64_t stride,
                         int64_t pad) {
  const float* x = x_;
  const float* w = w_;
  float* out = out_;
  int64_t p_ = (h_ + 2 * pad - r_) / stride + 1, q_ = (w_size + 2 * pad - s_) / stride + 1;
  for (int64_t n = 0; n < n_; ++n)
    for (int64_t k = 0; k < k_; ++k)
      for (int64_t p = 0; p < p_; ++p)
        for (int64_t q = 0; q < q_; ++q) {
          float* o = &out[((n * k_ + k) * p_ + p) * q_ + q];
          *o = 0.0f;
          for (int64_t c = 0; c < c_; ++c)
            for (int64_t r = 0; r < r_; ++r)
              for (int64_t s = 0; s < s_; ++s) {
                int64_t y = p * stride + r - pad, z = q * stride + s - pad;
                if (y < 0 || y >= h_ || z < 0 || z >= w_size) continue;
                *o = *o + x[((n * c_ + c) * h_ + y) * w_size + z] * w[((k * c_ + c) * r_ + r) * s_ + s];
              }
        }
  return 0;
}
)";

std::vector<float> run(const PrimFunc& func, const ConvShape& sh, bool with_kernel) {
  std::vector<runtime::CSourceFile> extra;
  if (with_kernel) extra.push_back({"test_conv_kernel", kConvKernel});
  auto built = testing_c::build({func}, {}, extra);
  EXPECT_TRUE(built.ok()) << built.error().message();
  if (!built.ok()) return {};
  std::vector<float> x = random_data(sh.n * sh.c * sh.h * sh.w, 5);
  std::vector<float> w = random_data(sh.k * sh.c * sh.r * sh.s, 6);
  std::vector<float> out(sh.n * sh.k * sh.p() * sh.q(), std::nanf(""));
  EXPECT_EQ(testing_c::call(*built, 0, {x.data(), w.data(), out.data()}), 0);
  return out;
}

TEST(TirScheduleReplaceWithExtern, ConvKernelMatchesTheGeneratedLoops) {
  std::vector<ConvShape> shapes = conv_shapes();
  shapes.push_back({.n = 2, .c = 3, .h = 6, .w = 6, .k = 2, .r = 1, .s = 1, .stride = 1, .pad = 0});
  shapes.push_back({.n = 1, .c = 2, .h = 7, .w = 9, .k = 3, .r = 3, .s = 3, .stride = 3, .pad = 1});
  for (const ConvShape& sh : shapes) {
    SCOPED_TRACE(sh.str());
    PrimFunc loops = conv2d(sh);
    Schedule sch(loops);
    UMA_SCHED_ASSIGN(BlockRef conv, sch.get_block("conv2d_nchw"));
    std::vector<Expr> scalars;
    for (std::int64_t v : {sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad})
      scalars.push_back(Expr(v));
    expect_ok(sch.replace_with_extern(conv, "test_conv2d_nchw", scalars));
    expect_ok(verify(sch.func()));
    std::vector<float> expected = run(loops, sh, false);
    std::vector<float> got = run(sch.func(), sh, true);
    ASSERT_EQ(got.size(), expected.size());
    // The same float operations in the same order: the same bits.
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "at " << i;
    expect_conv_matches(sch.func(), sh, {{"test_conv_kernel", kConvKernel}});
  }
}

}  // namespace
}  // namespace uma::tir
