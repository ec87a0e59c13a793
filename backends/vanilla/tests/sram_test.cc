// vanilla with its optional on-chip memory (`--sram_kb=N`): every convolution tiled by the core
// to fit N KiB, each tile one call of the kernel on a copy of the layer with the tile's shapes
// and padding. The outputs must match the reference interpreter (within the backend's
// tolerance) and be the same bits as without the memory: each output is summed in one call,
// in the kernel's order, whatever the tile. A layer whose smallest tile does not fit stays on
// the host, with the numbers.
#include <cinttypes>
#include <cstdio>

#include "backends/vanilla/tests/vanilla_test_util.h"
#include "uma/partition/report.h"
#include "uma/runtime/executor.h"

namespace uma::backends::vanilla::testing {
namespace {

struct SramCase {
  std::string name;
  Shape data;
  ConvSpec conv;
};

void PrintTo(const SramCase& c, std::ostream* os) { *os << c.name; }

std::string testing_rejections(const NodeRecord& record) {
  std::string text;
  for (const Rejection& r : record.rejections)
    text += fmt::format("{}: {}: {}\n", r.target, rejection_text(r.kind), r.detail);
  return text;
}

std::string target(std::int64_t kb) { return fmt::format("vanilla --sram_kb={}", kb); }

class VanillaSramTest : public VanillaTest {
 protected:
  std::unique_ptr<Module> one_conv(const Shape& data, const ConvSpec& conv) {
    return model([&](Function& main, ModelBuilder& mb) {
      main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, data}, "x"), conv)});
    });
  }

  // The convolution's record after partitioning `module` (a copy) for `target`.
  NodeRecord partitioned(const Module& module, const std::string& target) {
    std::unique_ptr<Module> m = copy(module);
    PartitionReport report;
    report.begin(*m, {target});
    build::BuildOptions o = options();
    o.report = &report;
    auto targets = build::parse_targets(ctx, {target});
    EXPECT_TRUE(targets.ok()) << targets.error().message();
    Status status = build::partition_for_targets(*m, *targets, o);
    EXPECT_TRUE(status.ok()) << status.error().message();
    for (const NodeRecord& record : report.records())
      if (record.op == "nn.conv2d") return record;
    ADD_FAILURE() << "no nn.conv2d in the report";
    return {};
  }

  struct Run {
    std::vector<TensorPtr> outputs;
    std::vector<TilingRecord> tilings;
    build::HostBuild built;
  };

  // `module` (a copy) built for `targets` and run on `inputs`, with the plans of its tiles.
  Run run(const Module& module, const std::vector<std::string>& targets,
          const std::vector<TensorPtr>& inputs) {
    std::unique_ptr<Module> m = copy(module);
    PartitionReport report;
    report.begin(*m, targets);
    build::BuildOptions o = options();
    o.report = &report;
    Run result;
    auto outputs = build_and_run(*m, targets, inputs, &result.built, o);
    EXPECT_TRUE(outputs.ok()) << outputs.error().message();
    if (outputs.ok()) result.outputs = std::move(*outputs);
    result.tilings = report.tilings();
    return result;
  }
};

class VanillaSramLayerTest : public VanillaSramTest,
                             public ::testing::WithParamInterface<SramCase> {};

// At 64, 16 and 4 KiB and at the smallest memory that holds the layer's smallest tile: the
// layer runs on the kernel in tiles that fit, and computes what it computes untiled.
TEST_P(VanillaSramLayerTest, TiledLayersMatchTheInterpreterAndTheUntiledKernel) {
  const SramCase& c = GetParam();
  std::unique_ptr<Module> m = one_conv(c.data, c.conv);
  std::vector<TensorPtr> inputs = random_inputs(*m->find_function("main"), 1);
  auto reference = interpret(*m, inputs);
  ASSERT_TRUE(reference.ok()) << reference.error().message();
  // The tolerance `uma run --check` holds vanilla's outputs to.
  Tolerance tolerance = ctx.backends().find(kTargetName)->spec().tolerance(DType::f32);
  Run untiled = run(*m, {"vanilla"}, inputs);
  ASSERT_EQ(untiled.outputs.size(), 1u);
  EXPECT_TRUE(untiled.tilings.empty());

  // The smallest memory: the first size at which the partitioner offloads the layer. One KiB
  // less, it says what the smallest tile needs, and that is what fits.
  std::int64_t smallest = 1;
  std::string needs;
  for (; smallest <= 64; ++smallest) {
    NodeRecord record = partitioned(*m, target(smallest));
    if (record.target == "vanilla") break;
    // The whole composite's reason first; with an added bias, the convolution alone's next.
    ASSERT_GE(record.rejections.size(), 1u);
    needs = record.rejections[0].detail;
  }
  ASSERT_LT(smallest, 4) << "each case's smallest tile fits in less than 4 KiB";
  if (smallest > 1) {
    std::int64_t bytes = 0;
    ASSERT_EQ(std::sscanf(needs.c_str(), "needs %" SCNd64 " bytes of sram", &bytes), 1) << needs;
    EXPECT_EQ(needs, fmt::format("needs {} bytes of sram at its smallest tile (1x1x1x1), has {}",
                                 bytes, (smallest - 1) * 1024));
    EXPECT_EQ((bytes + 1023) / 1024, smallest);
  }

  for (std::int64_t kb : {std::int64_t{64}, std::int64_t{16}, std::int64_t{4}, smallest}) {
    SCOPED_TRACE(target(kb));
    Run tiled = run(*m, {target(kb)}, inputs);
    ASSERT_EQ(tiled.outputs.size(), 1u);
    EXPECT_EQ(functions_on(tiled.built, "vanilla"), 1u);
    EXPECT_EQ(functions_on(tiled.built, "c"), 0u);
    TensorComparison vs_reference =
        compare_scaled(*tiled.outputs[0], *(*reference)[0], tolerance.rtol, tolerance.atol);
    EXPECT_TRUE(vs_reference.ok())
        << vs_reference.mismatches << " mismatch(es), max abs error " << vs_reference.max_abs_error;
    EXPECT_TRUE(compare_tensors(*tiled.outputs[0], *untiled.outputs[0], 0, 0).ok())
        << "not the bits of the untiled kernel";
    ASSERT_EQ(tiled.tilings.size(), 1u);
    const tiling::TilePlan& plan = tiled.tilings[0].plan;
    EXPECT_EQ(tiled.tilings[0].composite, "vanilla.conv2d");
    ASSERT_EQ(plan.memories.size(), 1u);
    EXPECT_EQ(plan.memories[0].name, "sram");
    EXPECT_EQ(plan.memories[0].capacity, kb * 1024);
    EXPECT_LE(plan.memories[0].peak, kb * 1024);
    // The plan counts the tiles its sizes cut the output into.
    std::int64_t tiles = 1;
    for (std::size_t a = 0; a < plan.output.size(); ++a)
      tiles *= (plan.output[a] + plan.tile[a] - 1) / plan.tile[a];
    EXPECT_EQ(plan.tiles, tiles);
    // Every case is larger than its smallest memory.
    if (kb == smallest) {
      EXPECT_GT(plan.tiles, 1) << plan.summary();
    }
    std::string code;
    for (const runtime::CSourceFile& file : tiled.built.sources) code += file.code;
    EXPECT_NE(code.find("// scope sram"), std::string::npos);
    EXPECT_NE(code.find("uma_dma_start("), std::string::npos);
  }
}

std::vector<SramCase> cases() {
  return {
      {"Kernel1Stride1BiasRelu",
       {2, 16, 20, 20},
       {.out_channels = 32, .kernel = 1, .bias_operand = true, .activation = "nn.relu"}},
      {"Kernel1Stride2", {2, 16, 15, 15}, {.out_channels = 24, .kernel = 1, .strides = {2, 2}}},
      {"Kernel3Pad0", {2, 8, 14, 14}, {.out_channels = 20}},
      {"Kernel3Pad1BiasAddRelu6",
       {2, 16, 18, 18},
       {.out_channels = 24, .padding = {1, 1, 1, 1}, .bias_add = true, .activation = "clip"}},
      {"Kernel3Stride2Pad1BiasRelu",
       {2, 12, 21, 19},
       {.out_channels = 20,
        .strides = {2, 2},
        .padding = {1, 1, 1, 1},
        .bias_operand = true,
        .activation = "nn.relu"}},
      {"Kernel3AsymmetricPaddingAndStride",
       {2, 8, 17, 15},
       {.out_channels = 12,
        .strides = {2, 1},
        .padding = {0, 1, 2, 3},
        .bias_add = true,
        .activation = "nn.relu"}},
      // ResNet's stem, smaller.
      {"Kernel7Stride2Pad3BiasRelu",
       {2, 3, 32, 32},
       {.out_channels = 16,
        .kernel = 7,
        .strides = {2, 2},
        .padding = {3, 3, 3, 3},
        .bias_operand = true,
        .activation = "nn.relu"}},
      {"RectangularKernel", {2, 4, 16, 12}, {.out_channels = 8, .kernel = 5, .kernel_w = 2}},
      // The digits model's first layer: at 1 KiB, a loop over channel slices whose body runs
      // the four corner tiles (each padded its own way) one after the other.
      {"DigitsFirstLayer",
       {1, 1, 8, 8},
       {.out_channels = 8, .padding = {1, 1, 1, 1}, .bias_operand = true, .activation = "nn.relu"}},
  };
}

INSTANTIATE_TEST_SUITE_P(Layers, VanillaSramLayerTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// A layer whose smallest tile (one output element: one filter, its window of every input
// channel) needs more than the memory stays on the host, and the report says why.
TEST_F(VanillaSramTest, ALayerWhoseSmallestTileDoesNotFitStaysOnTheHost) {
  // One filter of 64 channels, 3x3: 2304 bytes, and as much of the input.
  std::unique_ptr<Module> m = one_conv(
      {1, 64, 8, 8},
      {.out_channels = 8, .padding = {1, 1, 1, 1}, .bias_operand = true, .activation = "nn.relu"});
  NodeRecord record = partitioned(*m, target(4));
  EXPECT_EQ(record.target, "");
  ASSERT_EQ(record.rejections.size(), 1u) << testing_rejections(record);
  EXPECT_EQ(record.rejections[0].target, "vanilla");
  EXPECT_EQ(rejection_text(record.rejections[0].kind), "predicate rejected");
  EXPECT_EQ(record.rejections[0].detail,
            "needs 4736 bytes of sram at its smallest tile (1x1x1x1), has 4096");
  // 2304 (weights) + 2304 (input window) + 64 + 64 (bias, output, each aligned to 64): 5 KiB.
  EXPECT_EQ(partitioned(*m, target(5)).target, "vanilla");
  build::HostBuild built = check_against_host(*m, {target(4)});
  EXPECT_EQ(functions_on(built, "vanilla"), 0u);
}

// --sram_kb=0, the default, is no memory at all: the same code as without the attribute.
TEST_F(VanillaSramTest, NoMemoryIsTheUntiledBuild) {
  std::unique_ptr<Module> m = one_conv(
      {2, 8, 12, 12},
      {.out_channels = 16, .padding = {1, 1, 1, 1}, .bias_operand = true, .activation = "nn.relu"});
  auto code = [&](const std::string& t) {
    std::unique_ptr<Module> fresh = copy(*m);
    auto built = build::build(*fresh, {t}, options());
    EXPECT_TRUE(built.ok()) << built.error().message();
    std::string text;
    if (built.ok())
      for (const runtime::CSourceFile& file : built->sources) text += file.code;
    return text;
  };
  std::string untiled = code("vanilla");
  EXPECT_EQ(count(untiled, "/* block tiles */"), 0u);
  EXPECT_EQ(count(code(target(64)), "/* block tiles */"), 1u);
  EXPECT_EQ(code(target(0)), untiled);
}

TEST_F(VanillaSramTest, ANegativeSizeIsAnErrorNamingTheAttribute) {
  std::unique_ptr<Module> m = one_conv({1, 3, 6, 6}, {.out_channels = 4});
  auto built = build::build(*m, {target(-1)}, options());
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().message(),
            "target 'vanilla --sram_kb=-1': attribute 'sram_kb' must be in [0, 1048576], not -1");
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
