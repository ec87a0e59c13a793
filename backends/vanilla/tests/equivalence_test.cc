// Lowering equivalence: convolutions of many shapes built with the kernel against the same
// module built for the host alone (the compiler's loops) and against the reference
// interpreter.
#include "backends/vanilla/tests/vanilla_test_util.h"

namespace uma::backends::vanilla::testing {
namespace {

struct ConvCase {
  std::string name;
  Shape data;
  ConvSpec conv;
  std::vector<std::string> targets = {"vanilla"};
};

void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

class VanillaEquivalenceTest : public VanillaTest,
                               public ::testing::WithParamInterface<ConvCase> {};

TEST_P(VanillaEquivalenceTest, KernelMatchesLoopsAndInterpreter) {
  const ConvCase& c = GetParam();
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, c.data}, "x"), c.conv)});
  });
  build::HostBuild built = check_against_host(*m, c.targets);
  // Offloaded: one function, on vanilla, whose C calls the kernel.
  ASSERT_EQ(built.built.size(), 1u);
  EXPECT_EQ(built.built[0].target, "vanilla");
  std::string code;
  for (const runtime::CSourceFile& file : built.sources) code += file.code;
  EXPECT_NE(code.find("vanilla_conv2dnchw("), std::string::npos);
}

std::vector<ConvCase> cases() {
  return {
      {"Batch1Kernel1", {1, 5, 7, 7}, {.out_channels = 10, .kernel = 1}},
      {"Batch2Kernel3Pad1", {2, 3, 9, 9}, {.out_channels = 17, .padding = {1, 1, 1, 1}}},
      {"Kernel5Stride2", {1, 4, 11, 13}, {.out_channels = 20, .kernel = 5, .strides = {2, 2}}},
      {"AsymmetricPaddingAndStride",
       {2, 6, 10, 9},
       {.out_channels = 7, .strides = {2, 1}, .padding = {0, 1, 2, 3}}},
      {"RectangularKernel", {1, 3, 12, 8}, {.out_channels = 9, .kernel = 5, .kernel_w = 2}},
      {"PaddingAsWideAsTheKernel", {1, 2, 4, 4}, {.out_channels = 12, .padding = {3, 3, 3, 3}}},
      {"OneOutputPixel", {2, 3, 3, 3}, {.out_channels = 2}},
      {"BiasOperandAndRelu",
       {2, 8, 6, 7},
       {.out_channels = 33,
        .padding = {1, 2, 1, 0},
        .bias_operand = true,
        .activation = "nn.relu"}},
      {"BiasAddAndRelu6",
       {1, 4, 9, 9},
       {.out_channels = 24,
        .kernel = 5,
        .strides = {2, 2},
        .padding = {2, 2, 2, 2},
        .bias_add = true,
        .activation = "clip"}},
      // Eight or fewer channels: a bias the host would write into its code, a buffer here.
      {"SmallBias",
       {2, 3, 7, 7},
       {.out_channels = 5, .padding = {1, 1, 1, 1}, .bias_add = true, .activation = "clip"}},
      // The host's threads beside the call.
      {"SmallBiasWithHostThreads",
       {2, 3, 7, 7},
       {.out_channels = 5, .padding = {1, 1, 1, 1}, .bias_add = true, .activation = "nn.relu"},
       {"vanilla", "c --threads=2"}},
      {"Dimension4",
       {2, 6, 8, 8},
       {.out_channels = 18, .padding = {1, 1, 1, 1}, .bias_operand = true, .activation = "nn.relu"},
       {"vanilla --dimension=4"}},
      {"Dimension1",
       {1, 3, 5, 5},
       {.out_channels = 3, .padding = {0, 0, 1, 1}},
       {"vanilla --dimension=1"}},
      {"Dimension64", {1, 2, 5, 5}, {.out_channels = 70, .kernel = 1}, {"vanilla --dimension=64"}},
  };
}

// Two biases: the convolution and its own bias on the kernel, the added one and the clip on
// the host.
TEST_F(VanillaTest, ASecondBiasRunsOnTheHost) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, {2, 3, 7, 7}}, "x"),
                              {.out_channels = 5,
                               .padding = {1, 1, 1, 1},
                               .bias_operand = true,
                               .bias_add = true,
                               .activation = "clip"})});
  });
  build::HostBuild built = check_against_host(*m, {"vanilla"});
  EXPECT_EQ(functions_on(built, "vanilla"), 1u);
  EXPECT_EQ(functions_on(built, "c"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Shapes, VanillaEquivalenceTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace uma::backends::vanilla::testing
