// vanilla.conv2d's lowering: the loop IR lowering gives TIR_PHASE_0, as text. Each composite
// becomes one block holding one kernel call, with the sizes, the bias and clamp, and the
// target's dimension; every constant is a buffer the kernel reads.
#include "backends/vanilla/tests/vanilla_test_util.h"
#include "backends/vanilla/vanilla.h"
#include "uma/lower/lower.h"

namespace uma::backends::vanilla::testing {
namespace {

class VanillaLoweringTest : public VanillaTest {
 protected:
  std::unique_ptr<Module> one_conv(Shape data, const ConvSpec& spec) {
    return model([&](Function& main, ModelBuilder& mb) {
      main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, data}, "x"), spec)});
    });
  }
};

TEST_F(VanillaLoweringTest, AConvolutionBecomesOneCall) {
  auto m = one_conv(
      {1, 3, 8, 8},
      {.out_channels = 12, .padding = {1, 0, 2, 1}, .bias_operand = true, .activation = "nn.relu"});
  EXPECT_EQ(
      lowered_ir(*m, "vanilla --dimension=4"),
      R"(func @module_vanilla_main_0(%x: f32[1, 3, 8, 8], %constant: f32[12, 3, 3, 3], %constant_1: f32[12]) -> (%out: f32[1, 12, 9, 7]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<12x3x3x3xf32>, "constant.2" = tensor<12xf32>, constants = [1, 2], global_symbol = "module_vanilla_main_0"} {
  block "vanilla.conv2d"(reads: %x, %constant, %constant_1; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [1, 0, 2, 1], strides = [1, 1]} {
    @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%out[0, 0, 0, 0], 12, 8, 8, 3, 3, 3, 1, 1, 1, 0, 2, 1, 1, &%constant_1[0], 0.0f, inff, 4)
  }
}
)");
}

TEST_F(VanillaLoweringTest, TheDimensionIsTheCallsLastArgument) {
  for (std::int64_t dimension : {16, 4}) {
    auto m = one_conv({2, 3, 6, 6}, {.out_channels = 20, .strides = {2, 2}});
    std::string target = dimension == 16 ? "vanilla" : "vanilla --dimension=4";
    EXPECT_NE(
        lowered_ir(*m, target)
            .find(fmt::format(
                "@extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], "
                "&%out[0, 0, 0, 0], 20, 6, 6, 3, 3, 3, 2, 2, 0, 0, 0, 0, 2, handle(0), -inff, "
                "inff, {})\n",
                dimension)),
        std::string::npos)
        << target;
  }
}

// Five channels: a bias lowering would write into the host's code as immediates is a buffer
// here, which the call reads.
TEST_F(VanillaLoweringTest, SmallConstantsAreBuffersTheKernelReads) {
  auto m = one_conv(
      {2, 3, 7, 7},
      {.out_channels = 5, .padding = {1, 1, 1, 1}, .bias_add = true, .activation = "clip"});
  EXPECT_EQ(
      lowered_ir(*m, "vanilla"),
      R"(func @module_vanilla_main_0(%x: f32[2, 3, 7, 7], %constant: f32[5, 3, 3, 3], %constant_1: f32[1, 5, 1, 1]) -> (%out: f32[2, 5, 7, 7]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<5x3x3x3xf32>, "constant.2" = tensor<1x5x1x1xf32>, constants = [1, 2], global_symbol = "module_vanilla_main_0"} {
  block "vanilla.conv2d"(reads: %x, %constant, %constant_1; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [1, 1, 1, 1], strides = [1, 1]} {
    @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%out[0, 0, 0, 0], 5, 7, 7, 3, 3, 3, 1, 1, 1, 1, 1, 1, 2, &%constant_1[0, 0, 0, 0], 0.0f, 6.0f, 16)
  }
}
)");
}

// Two convolutions in one region: each is one call writing its own result, the first one's
// bias and relu6 inside its call.
TEST_F(VanillaLoweringTest, EachCompositeOfARegionIsACall) {
  auto m = model([](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {2, 3, 8, 8}}, "x");
    Value* y =
        mb.conv(x, {.out_channels = 12, .strides = {2, 1}, .bias_add = true, .activation = "clip"});
    main.set_outputs({mb.conv(y, {.out_channels = 16, .kernel = 1})});
  });
  EXPECT_EQ(
      lowered_ir(*m, "vanilla"),
      R"(func @module_vanilla_main_0(%x: f32[2, 3, 8, 8], %constant: f32[12, 3, 3, 3], %constant_1: f32[1, 12, 1, 1], %constant_2: f32[16, 12, 1, 1]) -> (%out: f32[2, 16, 3, 6]) attributes {Compiler = "vanilla", Primitive = 1, "constant.1" = tensor<12x3x3x3xf32>, "constant.2" = tensor<1x12x1x1xf32>, "constant.3" = tensor<16x12x1x1xf32>, constants = [1, 2, 3], global_symbol = "module_vanilla_main_0"} {
  allocate %conv2d: f32[2, 12, 3, 6] {
    block "vanilla.conv2d"(reads: %x, %constant, %constant_1; writes: %conv2d) attributes {dilation = [1, 1], groups = 1, padding = [0, 0, 0, 0], strides = [2, 1]} {
      @extern vanilla_conv2dnchw<i32>(&%x[0, 0, 0, 0], &%constant[0, 0, 0, 0], &%conv2d[0, 0, 0, 0], 12, 8, 8, 3, 3, 3, 2, 1, 0, 0, 0, 0, 2, &%constant_1[0, 0, 0, 0], 0.0f, 6.0f, 16)
    }
    block "vanilla.conv2d"(reads: %conv2d, %constant_2; writes: %out) attributes {dilation = [1, 1], groups = 1, padding = [0, 0, 0, 0], strides = [1, 1]} {
      @extern vanilla_conv2dnchw<i32>(&%conv2d[0, 0, 0, 0], &%constant_2[0, 0, 0, 0], &%out[0, 0, 0, 0], 16, 6, 3, 12, 1, 1, 1, 1, 0, 0, 0, 0, 2, handle(0), -inff, inff, 16)
    }
  }
}
)");
}

// A lowering that fails names the call, the composite and the backend: here a target whose
// dimension the build's target check would have refused.
TEST_F(VanillaLoweringTest, ALoweringsErrorNamesTheCompositeAndTheBackend) {
  auto m = one_conv({1, 3, 6, 6}, {.out_channels = 4});
  ASSERT_TRUE(
      build::partition_for_targets(*m, build::parse_targets(ctx, {"vanilla"}).value(), options())
          .ok());
  const Function* region = nullptr;
  for (const Function* f : m->functions())
    if (f->attrs().has("Compiler")) region = f;
  ASSERT_NE(region, nullptr);
  lower::CompositeLowerings lowerings =
      composite_lowerings(ctx.backends().find("vanilla")->spec(),
                          ctx.target_kinds().parse("vanilla --dimension=0").value());
  Expected<tir::PrimFunc> lowered =
      lower::lower_function(*region, {.composite_lowerings = &lowerings});
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.error().message(),
            "node #0 (call) in function @module_vanilla_main_0: composite vanilla.conv2d: backend "
            "'vanilla': dimension must be between 1 and 64, not 0");
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
