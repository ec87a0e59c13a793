// End to end: small models built with vanilla and the host, run, and compared with the
// reference interpreter and with the same models built for the host alone. The networks are
// MobileNetV2's and ResNet-18's building blocks (tests/models runs the real ones).
#include "backends/vanilla/tests/vanilla_test_util.h"

namespace uma::backends::vanilla::testing {
namespace {

class VanillaModelsTest : public VanillaTest {};

TEST_F(VanillaModelsTest, SingleConvolution) {
  auto m = model([](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {2, 3, 32, 32}}, "image");
    main.set_outputs({mb.conv(x, {.out_channels = 16,
                                  .strides = {2, 2},
                                  .padding = {1, 1, 1, 1},
                                  .bias_operand = true,
                                  .activation = "nn.relu"})});
  });
  std::ostringstream ir;
  build::HostBuild built = check_against_host(*m, {"vanilla"}, &ir);
  EXPECT_EQ(functions_on(built, "vanilla"), 1u);
  EXPECT_EQ(functions_on(built, "c"), 0u);
  EXPECT_EQ(count(ir.str(), "@extern vanilla_conv2dnchw<i32>("), 1u);
  EXPECT_EQ(count(ir.str(), "for ("), 0u);
}

// The depthwise convolution (grouped) and the residual add run on the host; the stem and the
// two pointwise convolutions, with their biases and relu6, on the kernel.
TEST_F(VanillaModelsTest, MobileNetV2Block) {
  auto m = model([](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.mobilenet(main.add_param(TensorType{DType::f32, {1, 3, 32, 32}}, "x"))});
  });
  std::ostringstream ir;
  build::HostBuild built = check_against_host(*m, {"vanilla"}, &ir);
  EXPECT_EQ(functions_on(built, "vanilla"), 2u);  // stem + expand, project
  EXPECT_EQ(functions_on(built, "c"), 3u);        // depthwise + bias + relu6, add, pool
  EXPECT_EQ(count(ir.str(), "@extern vanilla_conv2dnchw<i32>("), 3u);
  EXPECT_EQ(count(ir.str(), "for ("), 0u);  // every epilogue is in a call
}

// Every convolution runs on the kernel, the residual adds, relus and the pool on the host.
TEST_F(VanillaModelsTest, ResNet18Blocks) {
  auto m = model([](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.resnet(main.add_param(TensorType{DType::f32, {2, 3, 16, 16}}, "x"))});
  });
  std::ostringstream ir;
  build::HostBuild built = check_against_host(*m, {"vanilla --dimension=8"}, &ir);
  // Six convolutions, each one call: the stem writes the region's output once, which both
  // the residual add and the next convolution read.
  EXPECT_EQ(count(ir.str(), "@extern vanilla_conv2dnchw<i32>("), 6u);
  EXPECT_EQ(count(ir.str(), ", 8)\n"), 6u);  // the target's dimension, in every call
  EXPECT_EQ(count(ir.str(), "for ("), 0u);
  EXPECT_GE(functions_on(built, "vanilla"), 1u);
  EXPECT_GE(functions_on(built, "c"), 1u);
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
