// tiling::plan_tiles and make_plan: tiles that fit the memories, and the DMA traffic of the
// chosen tiling counted as an analytical formula gives it.
#include <gtest/gtest.h>

#include "uma/graph/builder.h"
#include "uma/tiling/plan.h"
#include "uma/uma/context.h"

namespace uma::tiling {
namespace {

class TilePlanTest : public ::testing::Test {
 protected:
  TilePlanTest() : module(ctx), layer(*module.add_function("layer").value()), b(layer) {}

  // x [1, channels, 64] → conv1d (8 outputs, kernel 3, padding 1) with a bias → relu.
  TileSpace conv1d(std::int64_t channels = 4) {
    Value* x = layer.add_param(TensorType{DType::f32, {1, channels, 64}}, "x");
    Value* w = b.constant(std::make_shared<Tensor>(TensorType{DType::f32, {8, channels, 3}}));
    w->set_name("w");
    Value* bias = b.constant(std::make_shared<Tensor>(TensorType{DType::f32, {8}}));
    bias->set_name("b");
    AttrMap attrs;
    attrs.set("padding", std::vector<std::int64_t>{1, 1});
    layer.set_outputs({b.value("nn.relu", {b.value("nn.conv1d", {x, w, bias}, attrs)})});
    Expected<TileSpace> space = TileSpace::derive(layer);
    EXPECT_TRUE(space.ok()) << space.error().message();
    return std::move(*space);
  }

  // ultra_trail's memories: fmem for features, wmem for weights, bmem for the bias.
  static MemoryModel memories(std::int64_t fmem, std::int64_t wmem = 65536,
                              std::int64_t bmem = 2048) {
    MemoryModel model;
    model.memories = {{"wmem", wmem, 4, {Role::kWeights}},
                      {"fmem", fmem, 4, {Role::kFeatures}},
                      {"bmem", bmem, 4, {Role::kBias}}};
    return model;
  }

  Context ctx;
  Module module;
  Function& layer;
  Builder b;
};

TEST_F(TilePlanTest, ALayerThatFitsIsOneTileEachOperandMovedOnce) {
  TileSpace space = conv1d();
  Expected<TilePlan> plan = plan_tiles(space, memories(32768));
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->tile, (Shape{1, 8, 64}));
  EXPECT_EQ(plan->tiles, 1);
  EXPECT_TRUE(plan->order.empty());
  EXPECT_FALSE(plan->double_buffered);
  // x, w, b and the output, each its size, in one move of one transfer (each is contiguous).
  std::vector<std::int64_t> bytes = {4 * 64 * 4, 8 * 4 * 3 * 4, 8 * 4, 8 * 64 * 4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(plan->operands[i].bytes, bytes[i]) << i;
    EXPECT_EQ(plan->operands[i].moves, 1) << i;
    EXPECT_EQ(plan->operands[i].transfers, 1) << i;
    EXPECT_EQ(plan->operands[i].halo_bytes, 0) << i;
    EXPECT_EQ(plan->operands[i].buffers, 1) << i;
  }
  EXPECT_EQ(plan->summary(), "1x8x64 (1 tile, single buffered)");
}

// fmem of 1 KiB holds neither the input (1 KiB) nor the output (2 KiB): stripes of time,
// double buffered, the weights and bias still moved once.
TEST_F(TilePlanTest, StripesOfTimeDoubleBufferedWithTheWeightsMovedOnce) {
  TileSpace space = conv1d();
  Expected<TilePlan> plan = plan_tiles(space, memories(1024));
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->summary(), "1x8x10 (7 tiles, double buffered)");
  EXPECT_EQ(plan->order, (std::vector<std::size_t>{2}));
  // Input windows of the 7 stripes of 10 (the last 4) outputs: [0, 10] (left padding), five
  // of 12 samples, [59, 63] (right padding): 76 samples of 4 channels, 12 re-read.
  const OperandPlan& x = plan->operands[0];
  EXPECT_EQ(x.bytes, (11 + 5 * 12 + 5) * 4 * 4);
  EXPECT_EQ(x.halo_bytes, (11 + 5 * 12 + 5 - 64) * 4 * 4);
  EXPECT_EQ(x.moves, 7);
  EXPECT_EQ(x.transfers, 7);  // each a 2-D transfer: 4 rows of its window
  EXPECT_EQ(x.tile, (Shape{1, 4, 12}));
  EXPECT_EQ(x.buffers, 2);
  const OperandPlan& w = plan->operands[1];
  EXPECT_EQ(w.bytes, 8 * 4 * 3 * 4);
  EXPECT_EQ(w.moves, 1);
  EXPECT_EQ(w.buffers, 1);
  const OperandPlan& y = plan->operands[3];
  EXPECT_EQ(y.bytes, 8 * 64 * 4);
  EXPECT_EQ(y.moves, 7);
  EXPECT_EQ(y.buffers, 2);
  // fmem: two input windows of 48 floats, two output tiles of 80: exactly full.
  ASSERT_EQ(plan->memories.size(), 3u);
  EXPECT_EQ(plan->memories[1].name, "fmem");
  EXPECT_EQ(plan->memories[1].peak, (2 * 48 + 2 * 80) * 4);
  EXPECT_EQ(plan->memories[1].capacity, 1024);
  EXPECT_EQ(plan->traffic(), x.bytes + w.bytes + 8 * 4 + y.bytes);
}

// Slices of output channels outside stripes of time: the weights follow the slice (moved
// once per slice), the input does not, so each slice reads it again.
TEST_F(TilePlanTest, AnOuterLoopTheInputDoesNotFollowReadsItAgain) {
  TileSpace space = conv1d();
  Expected<TilePlan> plan = make_plan(space, memories(32768), {1, 4, 16, 4}, {1, 2}, false);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->tiles, 8);
  // Windows of the 4 stripes: [0, 16], [15, 32], [31, 48], [47, 63]: 70 samples, twice.
  EXPECT_EQ(plan->operands[0].bytes, 2 * 70 * 4 * 4);
  EXPECT_EQ(plan->operands[0].moves, 8);
  EXPECT_EQ(plan->operands[0].halo_bytes, 2 * (70 - 64) * 4 * 4);
  EXPECT_EQ(plan->operands[1].bytes, 8 * 4 * 3 * 4);
  EXPECT_EQ(plan->operands[1].moves, 2);
  EXPECT_EQ(plan->operands[2].moves, 2);
  EXPECT_EQ(plan->operands[3].bytes, 8 * 64 * 4);
  // The output tile [1, 4, 16] is 4 rows of 16 samples of an array of 64: a 2-D transfer.
  EXPECT_EQ(plan->operands[3].transfers, 8);
}

// An engine that does not overlap compute gets no second buffer: the same fmem holds stripes
// of 16 outputs instead of 10.
TEST_F(TilePlanTest, AnEngineThatDoesNotOverlapComputeGetsOneBuffer) {
  TileSpace space = conv1d();
  MemoryModel model = memories(1024);
  model.dma.overlaps_compute = false;
  Expected<TilePlan> plan = plan_tiles(space, model);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_FALSE(plan->double_buffered);
  for (const OperandPlan& operand : plan->operands) EXPECT_EQ(operand.buffers, 1) << operand.name;
  EXPECT_EQ(plan->summary(), "1x8x16 (4 tiles, single buffered)");
}

TEST_F(TilePlanTest, AOneDimensionalEngineMovesARowPerTransfer) {
  TileSpace space = conv1d();
  MemoryModel model = memories(1024);
  model.dma.dims = 1;
  Expected<TilePlan> plan = make_plan(space, model, {1, 8, 10, 4}, {2}, true);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->operands[0].transfers, 7 * 4);  // a row per channel
  EXPECT_EQ(plan->operands[3].transfers, 7 * 8);
  EXPECT_EQ(plan->operands[1].transfers, 1);  // the weights are one contiguous array
}

TEST_F(TilePlanTest, ATileThatDoesNotFitIsAnError) {
  TileSpace space = conv1d();
  Expected<TilePlan> plan = make_plan(space, memories(1024), {1, 8, 11, 4}, {2}, true);
  ASSERT_FALSE(plan.ok());
  // Two windows of 4 x 13 samples and two output tiles of 8 x 11.
  EXPECT_EQ(plan.error().message(), "tile 1x8x11 needs 1120 bytes of fmem, has 1024");
}

// 300 input channels: the smallest tile (one output, one channel, one sample) reads a window
// of 300 x 3 values, more than fmem holds.
TEST_F(TilePlanTest, TheSmallestTileThatDoesNotFitSaysWhatItNeeds) {
  TileSpace space = conv1d(300);
  Expected<TilePlan> plan = plan_tiles(space, memories(1024));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message(),
            "needs 3604 bytes of fmem at its smallest tile (1x1x1), has 1024");
}

TEST_F(TilePlanTest, AnOperandWhoseRoleNoMemoryHoldsIsAnError) {
  TileSpace space = conv1d();
  MemoryModel model = memories(32768);
  model.memories.pop_back();  // no bmem
  Expected<TilePlan> plan = plan_tiles(space, model);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message(), "no memory holds %b's bias");
}

// Each memory's use, as the plan states it: every operand's largest tile rounded up to the
// alignment, twice when double buffered.
TEST_F(TilePlanTest, AlignmentRoundsEachBufferUp) {
  TileSpace space = conv1d();
  MemoryModel model = memories(32768);
  model.memories[2].alignment = 64;  // bmem
  Expected<TilePlan> plan = plan_tiles(space, model);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->memories[2].peak, 64);  // 32 bytes of bias
}

}  // namespace
}  // namespace uma::tiling
