// tiling::TileSpace: the region of each operand an output tile needs, derived from the
// layer's own loop nests (halo, stride, dilation, padding, groups), checked as the
// expressions of the tile's bounds and as numbers.
#include <gtest/gtest.h>

#include "uma/graph/builder.h"
#include "uma/tiling/region.h"
#include "uma/tir/printer.h"
#include "uma/uma/context.h"

namespace uma::tiling {
namespace {

class TileSpaceTest : public ::testing::Test {
 protected:
  TileSpaceTest() : module(ctx), layer(*module.add_function("layer").value()), b(layer) {}

  Value* param(Shape shape) { return layer.add_param(TensorType{DType::f32, std::move(shape)}, "x"); }
  Value* constant(Shape shape, std::string name) {
    Value* c = b.constant(std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)}));
    c->set_name(std::move(name));
    return c;
  }
  static AttrMap conv(std::vector<std::int64_t> strides, std::vector<std::int64_t> padding,
                      std::vector<std::int64_t> dilation, std::int64_t groups = 1) {
    AttrMap attrs;
    attrs.set("strides", std::move(strides));
    attrs.set("padding", std::move(padding));
    attrs.set("dilation", std::move(dilation));
    attrs.set("groups", groups);
    return attrs;
  }
  TileSpace derive(Value* out) {
    layer.set_outputs({out});
    Expected<TileSpace> space = TileSpace::derive(layer);
    EXPECT_TRUE(space.ok()) << space.error().message();
    return std::move(*space);
  }
  // "[first, last] (axis a)" or "[first, last] (fixed)" for each dimension of operand i.
  static std::string regions(const TileSpace& space, std::size_t i) {
    const TileOperand& op = space.operands()[i];
    std::string text;
    for (std::size_t d = 0; d < op.shape.size(); ++d)
      text += fmt::format("{}[{}, {}] {}", d ? "; " : "", tir::to_string(op.first[d]),
                          tir::to_string(op.last[d]),
                          op.axis[d] ? fmt::format("(axis {})", *op.axis[d]) : "(fixed)");
    return text;
  }

  Context ctx;
  Module module;
  Function& layer;
  Builder b;
};

TEST_F(TileSpaceTest, AConv1dsInputHasTheHaloOfItsKernelAndStride) {
  Value* x = param({2, 4, 50});
  Value* w = constant({8, 4, 5}, "w");
  Value* bias = constant({8}, "b");
  Value* y = b.value("nn.conv1d", {x, w, bias}, conv({2}, {2, 1}, {1}));
  TileSpace space = derive(b.value("nn.relu", {y}));
  ASSERT_EQ(space.operands().size(), 4u);
  EXPECT_EQ(space.output_shape(), (Shape{2, 8, 25}));
  // The input: the tile's samples, the chunk of input channels it sums (axis 3, the
  // reduction; the kernel's taps, which would move the window, are no axis), and time
  // [lo * 2 - 2, hi * 2 + 2].
  EXPECT_EQ(space.extents(), (Shape{2, 8, 25, 4}));
  EXPECT_TRUE(space.is_reduction(3));
  EXPECT_EQ(regions(space, 0),
            "[lo0, hi0] (axis 0); [lo3, hi3] (axis 3); [lo2 * 2 - 2, hi2 * 2 + 2] (axis 2)");
  EXPECT_EQ(space.operands()[0].role, Role::kFeatures);
  // The weights and bias: the tile's output channels.
  EXPECT_EQ(regions(space, 1), "[lo1, hi1] (axis 1); [lo3, hi3] (axis 3); [0, 4] (fixed)");
  EXPECT_EQ(space.operands()[1].role, Role::kWeights);
  EXPECT_EQ(regions(space, 2), "[lo1, hi1] (axis 1)");
  EXPECT_EQ(space.operands()[2].role, Role::kBias);
  EXPECT_TRUE(space.operands()[3].output);
  // The first tile of 5 outputs reaches into the left padding, the last one element past
  // the end (the right padding).
  EXPECT_EQ(space.region(0, 2, 0, 4).first, -2);
  EXPECT_EQ(space.region(0, 2, 0, 4).last, 10);
  EXPECT_EQ(space.region(0, 2, 20, 24).first, 38);
  EXPECT_EQ(space.region(0, 2, 20, 24).last, 50);
}

TEST_F(TileSpaceTest, ADilatedStridedConv2dAndAnAddedBias) {
  Value* x = param({1, 3, 32, 32});
  Value* w = constant({16, 3, 3, 3}, "w");
  Value* y = b.value("nn.conv2d", {x, w}, conv({2, 1}, {1, 2, 0, 1}, {2, 2}));
  Value* biased = b.value("add", {y, constant({16, 1, 1}, "b")});
  TileSpace space = derive(biased);
  EXPECT_EQ(regions(space, 0),
            "[lo0, hi0] (axis 0); [lo4, hi4] (axis 4); [lo2 * 2 - 1, hi2 * 2 + 3] (axis 2); "
            "[lo3 - 2, hi3 + 2] (axis 3)");
  EXPECT_EQ(regions(space, 2), "[lo1, hi1] (axis 1); [0, 0] (fixed); [0, 0] (fixed)");
  EXPECT_EQ(space.operands()[2].role, Role::kBias);
}

// A depthwise convolution reads the input channels of its output channels.
TEST_F(TileSpaceTest, ADepthwiseConvReadsTheChannelsItWrites) {
  Value* x = param({1, 8, 10, 10});
  Value* w = constant({8, 1, 3, 3}, "w");
  TileSpace space = derive(b.value("nn.conv2d", {x, w}, conv({1, 1}, {1, 1, 1, 1}, {1, 1}, 8)));
  EXPECT_EQ(regions(space, 0),
            "[lo0, hi0] (axis 0); [lo1, hi1] (axis 1); [lo2 - 1, hi2 + 1] (axis 2); "
            "[lo3 - 1, hi3 + 1] (axis 3)");
}

TEST_F(TileSpaceTest, ADenseLayerReadsWholeRowsAndTheTilesWeightRows) {
  Value* x = param({4, 64});
  Value* w = constant({10, 64}, "w");
  TileSpace space = derive(b.value("nn.dense", {x, w, constant({10}, "b")}));
  // The reduction over the 64 inputs is axis 2.
  EXPECT_EQ(regions(space, 0), "[lo0, hi0] (axis 0); [lo2, hi2] (axis 2)");
  EXPECT_EQ(regions(space, 1), "[lo1, hi1] (axis 1); [lo2, hi2] (axis 2)");
  EXPECT_EQ(regions(space, 2), "[lo1, hi1] (axis 1)");
}

TEST_F(TileSpaceTest, APaddedPoolingWindow) {
  Value* x = param({1, 2, 9, 9});
  AttrMap attrs;
  attrs.set("pool_size", std::vector<std::int64_t>{3, 3});
  attrs.set("strides", std::vector<std::int64_t>{2, 2});
  attrs.set("padding", std::vector<std::int64_t>{1, 1, 1, 1});
  TileSpace space = derive(b.value("nn.max_pool2d", {x}, attrs));
  EXPECT_EQ(regions(space, 0),
            "[lo0, hi0] (axis 0); [lo1, hi1] (axis 1); [lo2 * 2 - 1, hi2 * 2 + 1] (axis 2); "
            "[lo3 * 2 - 1, hi3 * 2 + 1] (axis 3)");
}

TEST_F(TileSpaceTest, TwoOperandsOfAnAddFollowTheSameAxes) {
  Value* x = param({2, 3, 4});
  Value* z = layer.add_param(TensorType{DType::f32, {2, 3, 4}}, "z");
  TileSpace space = derive(b.value("add", {x, z}));
  EXPECT_EQ(regions(space, 1), "[lo0, hi0] (axis 0); [lo1, hi1] (axis 1); [lo2, hi2] (axis 2)");
}

TEST_F(TileSpaceTest, ALayerWithTwoOutputsIsNotTiled) {
  Value* x = param({2, 3});
  layer.set_outputs({b.value("nn.relu", {x}), b.value("negative", {x})});
  Expected<TileSpace> space = TileSpace::derive(layer);
  ASSERT_FALSE(space.ok());
  EXPECT_EQ(space.error().message(), "the layer has 2 outputs; a tiled layer has one tensor");
}

}  // namespace
}  // namespace uma::tiling
