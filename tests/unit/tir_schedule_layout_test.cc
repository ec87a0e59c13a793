// pad and transform_layout: golden loop IR, errors, and the conv2d nest compiled with an
// intermediate padded or moved to channels-last, and with its weights in a blocked layout
// that the caller packs.
#include <gtest/gtest.h>

#include "tir_schedule_test_util.h"

namespace uma::tir {
namespace {

using namespace testing_schedule;

const ConvShape kSmall{
    .n = 1, .c = 2, .h = 3, .w = 3, .k = 3, .r = 3, .s = 3, .stride = 1, .pad = 1};

// The allocated padded input of conv2d(sh, /*pad_block=*/true).
Buffer padded_input(const PrimFunc& func) { return func.body.as<AllocateNode>()->buffer; }

TEST(TirSchedulePad, Golden) {
  Schedule sch(conv2d(kSmall, /*pad_block=*/true));
  UMA_SCHED_ASSIGN(Buffer xp, sch.pad(padded_input(sch.func()), {0, 1, 0, 3}));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 3, 3], %w: f32[3, 2, 3, 3]) -> (%out: f32[1, 3, 3, 3]) {
  allocate %xp: f32[1, 3, 5, 8] {
    block pad(reads: %x; writes: %xp) {
      for (pn, 0, 1) {
        for (pc, 0, 2) {
          for (ph, 0, 5) {
            for (pw, 0, 5) {
              %xp[pn, pc, ph, pw] = select(ph >= 1 && ph < 4 && pw >= 1 && pw < 4, %x[pn, pc, ph - 1, pw - 1], 0.0f)
            }
          }
        }
      }
    }
    block conv2d_nchw(reads: %xp, %w; writes: %out) {
      for (n, 0, 1) {
        for (k, 0, 3) {
          for (p, 0, 3) {
            for (q, 0, 3) {
              %out[n, k, p, q] = 0.0f
              for (c, 0, 2) {
                for (r, 0, 3) {
                  for (s, 0, 3) {
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
  EXPECT_TRUE(xp == padded_input(sch.func()));
}

TEST(TirSchedulePad, Errors) {
  Schedule sch(conv2d(kSmall, /*pad_block=*/true));
  Buffer xp = padded_input(sch.func());
  EXPECT_EQ(error_of(sch.pad(sch.func().params[0], {0, 0, 1, 1})),
            "pad: %x is a parameter of function @conv, whose size is the caller's; "
            "transform_layout can change a parameter's layout");
  EXPECT_EQ(error_of(sch.pad(make_buffer("y", DType::f32, {Expr(2)}), {1})),
            "pad: %y is not allocated in function @conv");
  EXPECT_EQ(error_of(sch.pad(xp, {1, 1})), "pad: 2 paddings for the 4 dimensions of %xp");
  EXPECT_EQ(error_of(sch.pad(xp, {0, -1, 0, 0})),
            "pad: the padding of dimension 1 of %xp is negative (-1)");
  EXPECT_EQ(error_of(sch.pad(xp, {0, 0, 0, INT64_MAX})),
            "pad: dimension 3 of %xp padded by 9223372036854775807 passes 64 bits");
  EXPECT_EQ(to_string(sch.func()), to_string(conv2d(kSmall, /*pad_block=*/true)));
}

TEST(TirSchedulePad, ConvRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh, /*pad_block=*/true));
    ASSERT_TRUE(sch.pad(padded_input(sch.func()), {1, 0, 2, 5}).ok());
    expect_conv_matches(sch.func(), sh);
  }
}

TEST(TirScheduleTransformLayout, IntermediateToChannelsLast) {
  Schedule sch(conv2d(kSmall, /*pad_block=*/true));
  Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h");
  Var w = VarNode::make("w");
  UMA_SCHED_ASSIGN(Buffer xp,
                   sch.transform_layout(padded_input(sch.func()), {{n, c, h, w}, {n, h, w, c}}));
  EXPECT_EQ(to_string(sch.func()),
            R"(func @conv(%x: f32[1, 2, 3, 3], %w: f32[3, 2, 3, 3]) -> (%out: f32[1, 3, 3, 3]) {
  allocate %xp: f32[1, 5, 5, 2] {
    block pad(reads: %x; writes: %xp) {
      for (pn, 0, 1) {
        for (pc, 0, 2) {
          for (ph, 0, 5) {
            for (pw, 0, 5) {
              %xp[pn, ph, pw, pc] = select(ph >= 1 && ph < 4 && pw >= 1 && pw < 4, %x[pn, pc, ph - 1, pw - 1], 0.0f)
            }
          }
        }
      }
    }
    block conv2d_nchw(reads: %xp, %w; writes: %out) {
      for (n, 0, 1) {
        for (k, 0, 3) {
          for (p, 0, 3) {
            for (q, 0, 3) {
              %out[n, k, p, q] = 0.0f
              for (c, 0, 2) {
                for (r, 0, 3) {
                  for (s, 0, 3) {
                    %out[n, k, p, q] = %out[n, k, p, q] + %xp[n, p + r, q + s, c] * %w[k, c, r, s]
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
  EXPECT_TRUE(xp == padded_input(sch.func()));
  // An intermediate leaves the calling convention alone.
  EXPECT_TRUE(sch.func().attrs.empty());
}

TEST(TirScheduleTransformLayout, SplitIndicesSimplify) {
  // After a split, out[i, j_outer * 4 + j_inner] in the layout (j / 4, i, j % 4) is
  // out[j_outer, i, j_inner]; 10 columns by 4 pad the buffer to 3 blocks.
  Schedule sch(elementwise(2, 10));
  UMA_SCHED_ASSIGN(BlockRef block, sch.get_block("scale_add"));
  UMA_SCHED_ASSIGN(auto loops, sch.get_loops(block));
  UMA_SCHED_ASSIGN(auto j, sch.split(loops[1], 4));
  (void)j;
  Var r = VarNode::make("r"), col = VarNode::make("col");
  UMA_SCHED_ASSIGN(Buffer out,
                   sch.transform_layout(sch.func().params[2], {{r, col}, {col / 4, r, col % 4}}));
  EXPECT_EQ(
      to_string(sch.func()),
      R"IR(func @scale_add(%a: f32[2, 10], %b: f32[2, 10]) -> (%out: f32[3, 2, 4]) attributes {"layout_transform.out" = ["(r, col) -> (col / 4, r, col % 4)"]} {
  block scale_add(reads: %a, %b; writes: %out) {
    for (i, 0, 2) {
      for (j_outer, 0, 3) {
        for (j_inner, 0, 4) {
          if (j_outer * 4 + j_inner < 10) {
            %out[j_outer, i, j_inner] = %a[i, j_outer * 4 + j_inner] * 2.0f + %b[i, j_outer * 4 + j_inner]
          }
        }
      }
    }
  }
}
)IR");
  expect_ok(verify(sch.func()));
  EXPECT_TRUE(out == sch.func().params[2]);
}

TEST(TirScheduleTransformLayout, Errors) {
  Schedule sch(conv2d(kSmall, /*pad_block=*/true));
  Buffer x = sch.func().params[0];
  Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h");
  Var w = VarNode::make("w"), other = VarNode::make("other");
  Var narrow = VarNode::make("narrow", DataType::scalar(DType::i32));
  EXPECT_EQ(error_of(sch.transform_layout(x, {{n, c, h}, {n, c, h}})),
            "transform_layout: the map has 3 variables for the 4 dimensions of %x");
  EXPECT_EQ(error_of(sch.transform_layout(x, {{n, c, h, w}, {}})),
            "transform_layout: the map of %x gives no index");
  EXPECT_EQ(error_of(sch.transform_layout(x, {{n, c, h, h}, {n, c, h}})),
            "transform_layout: index 3 of the map of %x is not a variable of its own");
  EXPECT_EQ(error_of(sch.transform_layout(x, {{n, c, h, w}, {n, c, h, other}})),
            "transform_layout: new index 3 of %x (other) is not an integer of the map's variables");
  EXPECT_EQ(error_of(sch.transform_layout(x, {{n, c, h, w}, {n, c, h, w - 1}})),
            "transform_layout: new index 3 of %x (w - 1) may be negative or unbounded");
  EXPECT_EQ(
      error_of(sch.transform_layout(x, {{n, c, h, narrow}, {n, c, h, narrow}})),
      "transform_layout: the map's variable 'narrow' is of type i32, not %x's index type i64");
  EXPECT_EQ(error_of(sch.transform_layout(make_buffer("y", DType::f32, {Expr(2)}), {{n}, {n}})),
            "transform_layout: %y is neither a parameter of function @conv nor allocated in it");
  PrimFunc fill;
  fill.name = "fill";
  fill.params = {make_buffer("s", DType::f32, {VarNode::make("m")})};
  fill.body = StoreNode::make(fill.params[0], Expr(1.0), {Expr(0)});
  Schedule symbolic(fill);
  EXPECT_EQ(error_of(symbolic.transform_layout(fill.params[0], {{n}, {n}})),
            "transform_layout: dimension 0 of %s has extent m, not a constant");

  // A buffer an extern call receives by address keeps its layout.
  UMA_SCHED_ASSIGN(BlockRef pad, sch.get_block("pad"));
  expect_ok(sch.replace_with_extern(pad, "npu_pad"));
  PrimFunc before = sch.func();
  EXPECT_EQ(error_of(sch.transform_layout(x, {{n, c, h, w}, {n, h, w, c}})),
            "transform_layout: %x is passed by address (to an extern call), whose layout it "
            "fixes");
  EXPECT_EQ(to_string(sch.func()), to_string(before));
}

// Weights OIHW -> (O / 2, R, S, I, O % 2): a parameter, so the caller packs them; 3 output
// channels by 2 pad the packed weights to 4.
TEST(TirScheduleTransformLayout, BlockedWeightsParameter) {
  Schedule sch(conv2d(kSmall));
  Var o = VarNode::make("o"), i = VarNode::make("i"), r = VarNode::make("r");
  Var s = VarNode::make("s");
  IndexMap blocked{{o, i, r, s}, {o / 2, r, s, i, o % 2}};
  UMA_SCHED_ASSIGN(Buffer packed, sch.transform_layout(sch.func().params[1], blocked));
  EXPECT_EQ(
      to_string(sch.func()),
      R"IR(func @conv(%x: f32[1, 2, 3, 3], %w: f32[2, 3, 3, 2, 2]) -> (%out: f32[1, 3, 3, 3]) attributes {"layout_transform.w" = ["(o, i, r, s) -> (o / 2, r, s, i, o % 2)"]} {
  block conv2d_nchw(reads: %x, %w; writes: %out) {
    for (n, 0, 1) {
      for (k, 0, 3) {
        for (p, 0, 3) {
          for (q, 0, 3) {
            %out[n, k, p, q] = 0.0f
            for (c, 0, 2) {
              for (r, 0, 3) {
                for (s, 0, 3) {
                  if (p + r - 1 >= 0 && p + r - 1 < 3 && q + s - 1 >= 0 && q + s - 1 < 3) {
                    %out[n, k, p, q] = %out[n, k, p, q] + %x[n, c, p + r - 1, q + s - 1] * %w[k / 2, r, s, c, k % 2]
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
)IR");
  expect_ok(verify(sch.func()));
  EXPECT_TRUE(packed == sch.func().params[1]);
}

TEST(TirScheduleTransformLayout, BlockedWeightsRun) {
  for (const ConvShape& sh : conv_shapes()) {
    SCOPED_TRACE(sh.str());
    Schedule sch(conv2d(sh));
    Var o = VarNode::make("o"), i = VarNode::make("i"), r = VarNode::make("r");
    Var s = VarNode::make("s");
    ASSERT_TRUE(
        sch.transform_layout(sch.func().params[1], {{o, i, r, s}, {o / 2, r, s, i, o % 2}}).ok());
    Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h");
    Var w = VarNode::make("w");
    ASSERT_TRUE(sch.transform_layout(sch.func().params[2], {{n, c, h, w}, {n, h, w, c}}).ok());
    expect_ok(verify(sch.func()));
    auto built = testing_c::build({sch.func()});
    ASSERT_TRUE(built.ok()) << built.error().message();

    std::vector<float> x = random_data(sh.n * sh.c * sh.h * sh.w, 1);
    std::vector<float> weights = random_data(sh.k * sh.c * sh.r * sh.s, 2);
    std::int64_t blocks = (sh.k + 1) / 2;
    std::vector<float> packed(blocks * sh.r * sh.s * sh.c * 2, 0.0f);
    for (std::int64_t k = 0; k < sh.k; ++k)
      for (std::int64_t c = 0; c < sh.c; ++c)
        for (std::int64_t r = 0; r < sh.r; ++r)
          for (std::int64_t s = 0; s < sh.s; ++s)
            packed[(((k / 2 * sh.r + r) * sh.s + s) * sh.c + c) * 2 + k % 2] =
                weights[((k * sh.c + c) * sh.r + r) * sh.s + s];
    std::vector<float> out(sh.n * sh.p() * sh.q() * sh.k, std::nanf(""));
    ASSERT_EQ(testing_c::call(*built, 0, {x.data(), packed.data(), out.data()}), 0);
    std::vector<double> expected = reference_conv(sh, x, weights);
    for (std::int64_t n = 0; n < sh.n; ++n)
      for (std::int64_t k = 0; k < sh.k; ++k)
        for (std::int64_t p = 0; p < sh.p(); ++p)
          for (std::int64_t q = 0; q < sh.q(); ++q) {
            double want = expected[((n * sh.k + k) * sh.p() + p) * sh.q() + q];
            float got = out[((n * sh.p() + p) * sh.q() + q) * sh.k + k];
            ASSERT_NEAR(got, want, 1e-5 * (1 + std::abs(want))) << n << " " << k << " " << p;
          }
  }
}

TEST(TirScheduleTransformLayout, IntermediateRuns) {
  for (const ConvShape& sh : conv_shapes()) {
    Schedule sch(conv2d(sh, /*pad_block=*/true));
    Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h");
    Var w = VarNode::make("w");
    // Channels last, blocked by 3 (which divides none of the shapes' channels).
    ASSERT_TRUE(
        sch.transform_layout(padded_input(sch.func()), {{n, c, h, w}, {n, c / 3, h, w, c % 3}})
            .ok());
    expect_conv_matches(sch.func(), sh);
  }
}

}  // namespace
}  // namespace uma::tir
