// vanilla's phase-0 passes: the loop IR they leave, as text. A convolution's loop nest becomes
// one kernel call with the sizes, the epilogue and the target's dimension; what the kernel
// cannot compute stays loops.
#include "backends/vanilla/tests/vanilla_test_util.h"
#include "backends/vanilla/vanilla.h"
#include "uma/lower/lower.h"
#include "uma/tir/printer.h"

namespace uma::backends::vanilla::testing {
namespace {

class VanillaOffloadTest : public VanillaTest {
 protected:
  std::unique_ptr<Module> one_conv(Shape data, const ConvSpec& spec) {
    return model([&](Function& main, ModelBuilder& mb) {
      main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, data}, "x"), spec)});
    });
  }
};

TEST_F(VanillaOffloadTest, AConvolutionBecomesOneCall) {
  auto m = one_conv(
      {1, 3, 8, 8},
      {.out_channels = 12, .padding = {1, 0, 2, 1}, .bias_operand = true, .activation = "nn.relu"});
  EXPECT_EQ(ir_after(*m, "vanilla --dimension=4", "vanilla-conv2d-offload"),
            R"(// -----// IR after vanilla-conv2d-offload //----- //
func @module_vanilla_main_0(%x: f32[1, 3, 8, 8], %constant: f32[12, 3, 3, 3], %constant_1: f32[12]) -> (%out: f32[1, 12, 9, 7]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<12x3x3x3xf32>, "constant.2" = tensor<12xf32>, constants = [1, 2], global_symbol = "module_vanilla_main_0"} {
  block conv2d_nchw(reads: %x, %constant, %constant_1; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [1, 0, 2, 1], strides = [1, 1]} {
    @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%out[0, 0, 0, 0], 12, 8, 8, 3, 3, 3, 1, 1, 1, 0, 2, 1, 1, &%constant_1[0], 0.0f, inff, 4)
  }
}
)");
}

TEST_F(VanillaOffloadTest, TheDimensionIsTheCallsLastArgument) {
  for (std::int64_t dimension : {16, 4}) {
    auto m = one_conv({2, 3, 6, 6}, {.out_channels = 20, .strides = {2, 2}});
    std::string target = dimension == 16 ? "vanilla" : "vanilla --dimension=4";
    EXPECT_NE(
        ir_after(*m, target)
            .find(fmt::format(
                "@extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], "
                "&%out[0, 0, 0, 0], 20, 6, 6, 3, 3, 3, 2, 2, 0, 0, 0, 0, 2, handle(0), -inff, "
                "inff, {})\n",
                dimension)),
        std::string::npos)
        << target;
  }
}

// Five channels: lowering writes the bias into the code as immediates, which the kernel
// cannot read, so the epilogue stays a loop nest after the call, over the stored sums.
TEST_F(VanillaOffloadTest, AnEpilogueTheKernelCannotComputeStaysALoop) {
  auto m = one_conv(
      {2, 3, 7, 7},
      {.out_channels = 5, .padding = {1, 1, 1, 1}, .bias_add = true, .activation = "clip"});
  EXPECT_EQ(ir_after(*m, "vanilla"),
            R"(// -----// IR after vanilla-fuse-epilogue (no change) //----- //
func @module_vanilla_main_0(%x: f32[2, 3, 7, 7], %constant: f32[5, 3, 3, 3]) -> (%out: f32[2, 5, 7, 7]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<5x3x3x3xf32>, constants = [1], global_symbol = "module_vanilla_main_0"} {
  block conv2d_nchw(reads: %x, %constant; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [1, 1, 1, 1], strides = [1, 1]} {
    @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%out[0, 0, 0, 0], 5, 7, 7, 3, 3, 3, 1, 1, 1, 1, 1, 1, 2, handle(0), -inff, inff, 16)
    for (n, 0, 2) {
      for (c, 0, 5) {
        for (h, 0, 7) {
          for (w, 0, 7) {
            %out[n, c, h, w] = min(max(%out[n, c, h, w] + select(c == 0, 0.048f, select(c == 1, 0.013f, select(c == 2, -0.02f, select(c == 3, 0.695f, -0.163f)))), 0.0f), 6.0f)
          }
        }
      }
    }
  }
}
)");
}

// Two convolutions in one region: the first one's bias and relu6, which lowering computes in
// a block of their own, go into its call.
TEST_F(VanillaOffloadTest, EpiloguesInsideARegionGoIntoTheCall) {
  auto m = model([](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {2, 3, 8, 8}}, "x");
    Value* y =
        mb.conv(x, {.out_channels = 12, .strides = {2, 1}, .bias_add = true, .activation = "clip"});
    main.set_outputs({mb.conv(y, {.out_channels = 16, .kernel = 1})});
  });
  std::unique_ptr<Module> again = copy(*m);
  EXPECT_EQ(ir_after(*m, "vanilla", "vanilla-conv2d-offload"),
            R"(// -----// IR after vanilla-conv2d-offload //----- //
func @module_vanilla_main_0(%x: f32[2, 3, 8, 8], %constant: f32[12, 3, 3, 3], %constant_1: f32[1, 12, 1, 1], %constant_2: f32[16, 12, 1, 1]) -> (%out: f32[2, 16, 3, 6]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<12x3x3x3xf32>, "constant.2" = tensor<1x12x1x1xf32>, "constant.3" = tensor<16x12x1x1xf32>, constants = [1, 2, 3], global_symbol = "module_vanilla_main_0"} {
  allocate %clip: f32[2, 12, 3, 6] {
    allocate %conv2d_nchw: f32[2, 12, 3, 6] {
      block conv2d_nchw(reads: %x, %constant; writes: %conv2d_nchw) attributes {dilation = [1, 1], groups = 1, padding = [0, 0, 0, 0], strides = [2, 1]} {
        @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%conv2d_nchw[0, 0, 0, 0], 12, 8, 8, 3, 3, 3, 2, 1, 0, 0, 0, 0, 2, handle(0), -inff, inff, 16)
      }
      block clip(reads: %conv2d_nchw, %constant_1; writes: %clip) attributes {a_max = 6.0, a_min = 0.0} {
        for (i0, 0, 2) {
          for (i1, 0, 12) {
            for (i2, 0, 3) {
              for (i3, 0, 6) {
                %clip[i0, i1, i2, i3] = min(max(%conv2d_nchw[i0, i1, i2, i3] + %constant_1[0, i1, 0, 0], 0.0f), 6.0f)
              }
            }
          }
        }
      }
      block conv2d_nchw(reads: %clip, %constant_2; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [0, 0, 0, 0], strides = [1, 1]} {
        @extern vanilla_conv2dnchw<i32>(&%clip[0, 0, 0, 0], &%constant_2[0, 0, 0, 0], &%out[0, 0, 0, 0], 16, 6, 3, 12, 1, 1, 1, 1, 0, 0, 0, 0, 2, handle(0), -inff, inff, 16)
      }
    }
  }
}
)");
  EXPECT_EQ(ir_after(*again, "vanilla"), R"(// -----// IR after vanilla-fuse-epilogue //----- //
func @module_vanilla_main_0(%x: f32[2, 3, 8, 8], %constant: f32[12, 3, 3, 3], %constant_1: f32[1, 12, 1, 1], %constant_2: f32[16, 12, 1, 1]) -> (%out: f32[2, 16, 3, 6]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<12x3x3x3xf32>, "constant.2" = tensor<1x12x1x1xf32>, "constant.3" = tensor<16x12x1x1xf32>, constants = [1, 2, 3], global_symbol = "module_vanilla_main_0"} {
  allocate %clip: f32[2, 12, 3, 6] {
    block conv2d_nchw(reads: %x, %constant, %constant_1; writes: %clip) attributes {dilation = [1, 1], groups = 1, padding = [0, 0, 0, 0], strides = [2, 1]} {
      @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%clip[0, 0, 0, 0], 12, 8, 8, 3, 3, 3, 2, 1, 0, 0, 0, 0, 2, &%constant_1[0, 0, 0, 0], 0.0f, 6.0f, 16)
    }
    block conv2d_nchw(reads: %clip, %constant_2; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [0, 0, 0, 0], strides = [1, 1]} {
      @extern vanilla_conv2dnchw<i32>(&%clip[0, 0, 0, 0], &%constant_2[0, 0, 0, 0], &%out[0, 0, 0, 0], 16, 6, 3, 12, 1, 1, 1, 1, 0, 0, 0, 0, 2, handle(0), -inff, inff, 16)
    }
  }
}
)");
}

// The pass on its own: functions without a conv2d_nchw block come back as they were.
TEST_F(VanillaOffloadTest, FunctionsWithoutTheBlockAreUnchanged) {
  Module m(ctx);
  Function& f = *m.add_function("f").value();
  Builder b(f);
  Value* x = f.add_param(TensorType{DType::f32, {1, 4, 6, 6}}, "x");
  f.set_outputs({b.value("nn.max_pool2d", {b.value("nn.relu", {x})},
                         test::make_attrs({{"pool_size", Ints{2, 2}}}))});
  Expected<tir::PrimFunc> lowered = lower::lower_function(f);
  ASSERT_TRUE(lowered.ok()) << lowered.error().message();
  Target target = ctx.target_kinds().parse("vanilla").value();
  for (auto pass : {offload_conv2d, fuse_epilogue}) {
    Expected<tir::PrimFunc> after = pass(*lowered, target);
    ASSERT_TRUE(after.ok()) << after.error().message();
    EXPECT_TRUE(after->body.same_as(lowered->body));
  }
}

// A block named conv2d_nchw that does not compute what the pattern admits is a bug upstream,
// reported as such rather than miscompiled.
TEST_F(VanillaOffloadTest, ABlockOfAnotherFormIsAnError) {
  tir::Buffer out = tir::make_buffer("out", DType::f32, {1, 2, 3, 3});
  tir::PrimFunc func;
  func.name = "f";
  func.params = {out};
  func.body =
      tir::BlockNode::make("conv2d_nchw", {}, {out}, tir::StoreNode::make(out, 0.0, {0, 0, 0, 0}),
                           test::make_attrs({{"strides", Ints{1, 1}},
                                             {"padding", Ints{0, 0, 0, 0}},
                                             {"dilation", Ints{1, 1}},
                                             {"groups", std::int64_t{1}}}));
  Expected<tir::PrimFunc> after = offload_conv2d(func, ctx.target_kinds().parse("vanilla").value());
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().message(),
            "block conv2d_nchw is not the loop nest of a vanilla.conv2d composite: expected 4 "
            "nested loops, found 0");
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
