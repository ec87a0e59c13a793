// The vanilla target: its attribute, defaults and overrides, and every mistake in writing it.
#include "backends/vanilla/tests/vanilla_test_util.h"
#include "backends/vanilla/vanilla.h"
#include "uma/uma/backend.h"

namespace uma::backends::vanilla::testing {
namespace {

class VanillaTargetTest : public VanillaTest {
 protected:
  Expected<Target> parse(std::string_view text) { return ctx.target_kinds().parse(text); }

  std::string error_of(std::string_view text) {
    Expected<Target> target = parse(text);
    EXPECT_FALSE(target.ok()) << text;
    return target.ok() ? "" : target.error().message();
  }
};

TEST_F(VanillaTargetTest, RegistersTheKindThePartitionTargetAndTheBackend) {
  EXPECT_TRUE(ctx.target_kinds().find("vanilla").ok());
  EXPECT_TRUE(ctx.partition_targets().find("vanilla").ok());
  ASSERT_NE(ctx.backends().find("vanilla"), nullptr);
  const BackendSpec& spec = ctx.backends().find("vanilla")->spec();
  ASSERT_EQ(spec.patterns.size(), 1u);
  EXPECT_EQ(spec.patterns[0].name, "conv2d");
  ASSERT_EQ(spec.composite_lowerings.size(), 1u);
  EXPECT_EQ(spec.composite_lowerings[0].pattern, "conv2d");
  EXPECT_EQ(spec.max_immediate_elements, 0);  // every constant is a buffer the kernel reads
  EXPECT_TRUE(spec.tir_passes.empty());
  ASSERT_EQ(spec.codegen.sources.size(), 1u);
  EXPECT_NE(spec.codegen.sources[0].code.find("int32_t vanilla_conv2dnchw("), std::string::npos);
  EXPECT_TRUE(spec.strategies.empty());
}

TEST_F(VanillaTargetTest, DimensionDefaultsTo16) {
  Expected<Target> target = parse("vanilla");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->get_int("dimension").value(), 16);
  EXPECT_EQ(target->str(), "vanilla");
}

TEST_F(VanillaTargetTest, DimensionIsSetOnTheCommandLine) {
  Expected<Target> target = parse("vanilla --dimension=4");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->get_int("dimension").value(), 4);
  EXPECT_EQ(target->str(), "vanilla --dimension=4");
  // A standard attribute, beside the backend's own.
  Expected<Target> tagged = parse("vanilla --dimension=32 --tag=npu0");
  ASSERT_TRUE(tagged.ok()) << tagged.error().message();
  EXPECT_EQ(tagged->get_string("tag").value(), "npu0");
}

TEST_F(VanillaTargetTest, UnknownAttribute) {
  EXPECT_EQ(error_of("vanilla --dimensions=4"),
            "target 'vanilla --dimensions=4': target kind 'vanilla' has no attribute "
            "'dimensions' (it has: dimension, sram_kb, dma_bytes_per_cycle, dma_setup_cycles, "
            "dma_dims, no_fallback, keys, device, model, tag, mcpu, mattr, libs)");
}

TEST_F(VanillaTargetTest, WrongType) {
  EXPECT_EQ(error_of("vanilla --dimension=four"),
            "target 'vanilla --dimension=four': attribute 'dimension' is an int, not 'four'");
  EXPECT_EQ(error_of("vanilla --dimension=1.5"),
            "target 'vanilla --dimension=1.5': attribute 'dimension' is an int, not '1.5'");
  EXPECT_EQ(error_of("vanilla --dimension"),
            "target 'vanilla --dimension': attribute 'dimension' needs a value: "
            "--dimension=<int>");
  // A pass asking for the attribute as another type.
  Expected<Target> target = parse("vanilla");
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(target->get_string("dimension").error().message(),
            "target 'vanilla': attribute 'dimension' is an int, not a string");
}

TEST_F(VanillaTargetTest, GivenTwice) {
  EXPECT_EQ(error_of("vanilla --dimension=4 --dimension=8"),
            "target 'vanilla --dimension=4 --dimension=8': attribute 'dimension' is given twice");
}

TEST_F(VanillaTargetTest, RegisteringTwiceIsAnError) {
  Status again = register_vanilla(ctx);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message(),
            "backend 'vanilla': a partition target of that name is registered already");
}

// What the kernel's tile cannot hold is refused when the build's targets are parsed, even
// when nothing would be offloaded, and by the check the lowering makes.
TEST_F(VanillaTargetTest, DimensionOutOfRangeIsRefused) {
  for (std::int64_t dimension : {0, 65}) {
    std::string text = fmt::format("vanilla --dimension={}", dimension);
    auto m = model([](Function& main, ModelBuilder& mb) {
      main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, {1, 3, 6, 6}}, "x"),
                                {.out_channels = 4})});
    });
    Expected<build::HostBuild> built = build::build(*m, {text}, options());
    ASSERT_FALSE(built.ok()) << text;
    EXPECT_EQ(
        built.error().message(),
        fmt::format("target '{}': dimension must be between 1 and 64, not {}", text, dimension));
    Target target = ctx.target_kinds().parse(text).value();
    Status checked = vanilla::check_target(target);
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(checked.error().message(),
              fmt::format("dimension must be between 1 and 64, not {}", dimension));
  }
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
