// npu_sim's performance model: SCALE-Sim's compute cycles for published layers, never below
// the roofline, and designs it refuses with the attribute named.
#include <fmt/format.h>

#include "backends/npu_sim/tests/npu_sim_test_util.h"
#include "uma/tiling/region.h"

namespace uma::backends::npu_sim::test {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// SCALE-Sim v2's compute cycles of a layer (scalesim/compute/systolic_compute_{ws,os,is}.py):
// the ifmap operand matrix is ofmap pixels x window (filter height x width x channels), the
// filter matrix window x filters. The dataflow maps Sr and Sc onto the array's rows and
// columns, one fold per array-sized block, and streams T through each fold; a fold's demand
// matrices have T rows, plus the array's rows to load a stationary operand (ws, is) and the
// skew of fill and drain.
std::int64_t scalesim_cycles(std::int64_t pixels, std::int64_t window, std::int64_t filters,
                             std::int64_t rows, std::int64_t cols, const std::string& dataflow) {
  std::int64_t sr, sc, t;
  if (dataflow == "os") {
    sr = pixels, sc = filters, t = window;
    return ceil_div(sr, rows) * ceil_div(sc, cols) * (t + rows + cols - 2);
  }
  if (dataflow == "ws")
    sr = window, sc = filters, t = pixels;
  else
    sr = window, sc = pixels, t = filters;
  return ceil_div(sr, rows) * ceil_div(sc, cols) * (rows + t + cols - 1 + rows - 1);
}

// A row of SCALE-Sim's topologies/conv_nets/Resnet18.csv.
struct Layer {
  std::string name;
  std::int64_t ifmap, kernel, channels, filters, stride;
};
const std::vector<Layer> kResnet18 = {
    {"Conv1", 224, 7, 3, 64, 2},       {"Conv2_1a", 56, 3, 64, 64, 1},
    {"Conv3_1a", 56, 3, 64, 128, 2},   {"Conv3_1b", 28, 3, 128, 128, 1},
    {"Conv3_s", 56, 1, 64, 128, 2},    {"Conv4_1a", 28, 3, 128, 256, 2},
    {"Conv4_1b", 14, 3, 256, 256, 1},  {"Conv4_s", 28, 1, 128, 256, 2},
    {"Conv5_1a", 14, 3, 256, 512, 2},  {"Conv5_1b", 7, 3, 512, 512, 1},
    {"Conv5_s", 14, 1, 256, 512, 2},   {"FC", 1, 1, 512, 1000, 1},
};

// SCALE-Sim's ofmap side, ceil((ifmap - kernel + stride) / stride): the layer is given the
// padding after that makes uma's the same.
std::int64_t scalesim_ofmap(const Layer& l) { return ceil_div(l.ifmap - l.kernel + l.stride, l.stride); }

class NpuSimEstimateTest : public NpuSimTest {
 public:
  std::unique_ptr<Module> one_conv(const Layer& l) {
    return model([&](Function& main, Layers& layers) {
      Value* x = main.add_param(TensorType{DType::f32, {1, l.channels, l.ifmap, l.ifmap}}, "x");
      std::int64_t after = (scalesim_ofmap(l) - 1) * l.stride + l.kernel - l.ifmap;
      main.set_outputs({layers.conv(
          x, {.out_channels = l.filters, .kernel = l.kernel, .stride = l.stride, .pad_after = after})});
    });
  }

  // The estimate of the one layer of `module` for `target` run whole, in one tile: the
  // performance model on the layer's composite as partitioning makes it.
  sim::LayerEstimate whole_layer(const Module& module, const std::string& target) {
    std::unique_ptr<Module> m = copy(module);
    auto targets = build::parse_targets(ctx, {target});
    EXPECT_TRUE(targets.ok()) << targets.error().message();
    Status partitioned = build::partition_for_targets(*m, *targets, options());
    EXPECT_TRUE(partitioned.ok()) << partitioned.error().message();
    const Function* composite = nullptr;
    for (const Function* f : m->functions())
      if (f->attrs().has("Composite")) composite = f;
    EXPECT_NE(composite, nullptr) << "the layer was not offloaded";
    if (composite == nullptr) return {};
    const BackendSpec& spec = ctx.backends().find("npu_sim")->spec();
    auto space = tiling::TileSpace::derive(*composite);
    EXPECT_TRUE(space.ok()) << space.error().message();
    auto memories = memory_model(spec, targets->backends[0]);
    EXPECT_TRUE(memories.ok()) << memories.error().message();
    auto plan = tiling::make_plan(*space, *memories, space->extents(), {}, false);
    EXPECT_TRUE(plan.ok()) << plan.error().message();
    auto estimate = spec.estimate(*composite, *plan, targets->backends[0]);
    EXPECT_TRUE(estimate.ok()) << estimate.error().message();
    return estimate.ok() ? *estimate : sim::LayerEstimate{};
  }

  // The estimate of the one layer of `module` for `target` in the plan the build chooses.
  sim::LayerEstimate planned(const Module& module, const std::string& target,
                             tiling::TilePlan& plan) {
    SimRun run = simulate(module, target, {}, false);
    EXPECT_EQ(run.simulation.layers.size(), 1u) << target;
    if (run.simulation.layers.empty()) return {};
    plan = run.report.tilings()[0].plan;
    return run.simulation.layers[0].estimate;
  }
};

// Run whole (one tile), each layer takes the array SCALE-Sim's cycles, to the cycle, for every
// dataflow and two array shapes (SCALE-Sim's compute cycles do not depend on its buffers).
// Tiled into the default 64 KiB memories (checked on the 32 x 32 array), each tile fills and
// drains the array again: never fewer cycles than whole.
TEST_F(NpuSimEstimateTest, ComputeCyclesAreScaleSimsForResnet18sLayers) {
  for (const Layer& l : kResnet18)
    for (const std::string dataflow : {"ws", "os", "is"})
      for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{32, 32}, {16, 8}}) {
        SCOPED_TRACE(fmt::format("{} {} {}x{}", l.name, dataflow, rows, cols));
        std::unique_ptr<Module> m = one_conv(l);
        std::int64_t pixels = scalesim_ofmap(l) * scalesim_ofmap(l);
        std::int64_t expected = scalesim_cycles(pixels, l.kernel * l.kernel * l.channels,
                                                l.filters, rows, cols, dataflow);
        std::string design = fmt::format("npu_sim --rows={} --cols={} --dataflow={}", rows, cols,
                                         dataflow);
        EXPECT_EQ(whole_layer(*m, design + " --ifmap_kb=4096 --filter_kb=16384 --ofmap_kb=4096")
                      .compute_cycles,
                  expected);
        if (rows != 32) continue;
        tiling::TilePlan plan;
        sim::LayerEstimate tiled = planned(*m, design, plan);
        EXPECT_GE(tiled.compute_cycles, expected) << plan.summary();
      }
}

// Over random layers and designs: no estimate beats the roofline, the array's peak or the
// DMA engine's rate, and the MACs are the layer's.
TEST_F(NpuSimEstimateTest, CyclesNeverFallBelowTheRoofline) {
  std::mt19937 rng(7);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 40; ++trial) {
    std::int64_t channels = pick(1, 48), size = pick(3, 20), kernel = pick(1, 3);
    bool depthwise = pick(0, 3) == 0;
    Conv conv{.out_channels = depthwise ? channels : pick(1, 64),
              .kernel = kernel,
              .stride = pick(1, 2),
              .pad = kernel / 2,
              .groups = depthwise ? channels : 1};
    std::unique_ptr<Module> m = model([&](Function& main, Layers& layers) {
      Value* x = main.add_param(TensorType{DType::f32, {pick(1, 2), channels, size, size}}, "x");
      main.set_outputs({layers.relu(layers.conv(x, conv))});
    });
    std::int64_t rows = pick(1, 40), cols = pick(1, 40), bandwidth = pick(1, 64);
    const char* dataflows[] = {"ws", "os", "is"};
    std::string design = fmt::format(
        "npu_sim --rows={} --cols={} --dataflow={} --ifmap_kb={} --filter_kb={} --ofmap_kb={} "
        "--dma_bytes_per_cycle={} --dma_setup_cycles={}",
        rows, cols, dataflows[pick(0, 2)], pick(2, 64), pick(2, 64), pick(2, 64), bandwidth,
        pick(0, 100));
    SCOPED_TRACE(design);
    SimRun run = simulate(*m, design, {}, false);
    ASSERT_EQ(run.simulation.layers.size(), 1u);
    const sim::LayerEstimate& e = run.simulation.layers[0].estimate;
    const TensorType& out = m->find_function("main")->outputs()[0]->tensor_type();
    std::int64_t macs = out.num_elements() * kernel * kernel * (channels / conv.groups);
    EXPECT_EQ(e.macs, macs);
    EXPECT_GE(e.cycles, e.roofline_cycles);
    EXPECT_GE(e.compute_cycles, ceil_div(macs, rows * cols));
    EXPECT_GE(e.dma_cycles, ceil_div(e.dram_bytes, bandwidth));
    EXPECT_GE(e.stall_cycles, 0);
    EXPECT_LE(e.utilisation, 1.0);
    EXPECT_EQ(e.cycles, e.compute_cycles + e.stall_cycles);
  }
}

// A design the array cannot be: the build's targets are refused, naming the attribute.
TEST_F(NpuSimEstimateTest, BadDesignsNameTheAttribute) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"npu_sim --rows=0", "attribute 'rows' must be between 1 and 4096, not 0"},
      {"npu_sim --cols=5000", "attribute 'cols' must be between 1 and 4096, not 5000"},
      {"npu_sim --dataflow=rs", "attribute 'dataflow' is 'rs'; expected ws, os or is"},
      {"npu_sim --dtype=int8",
       "attribute 'dtype' is 'int8'; npu_sim runs f32 (int8 needs quantized composites, which "
       "uma does not make yet)"},
      {"npu_sim --clock_mhz=0", "attribute 'clock_mhz' must be between 1 and 100000, not 0"},
      {"npu_sim --mac_fj=-1", "attribute 'mac_fj' must be between 0 and 1099511627776, not -1"},
  };
  for (const auto& [target, message] : cases) {
    auto parsed = build::parse_targets(ctx, {target});
    ASSERT_FALSE(parsed.ok()) << target;
    EXPECT_EQ(parsed.error().message(), fmt::format("target '{}': {}", target, message));
  }
  auto memory = build::parse_targets(ctx, {"npu_sim --ifmap_kb=0"});
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.error().message().find("ifmap_kb"), std::string::npos)
      << memory.error().message();
}

}  // namespace
}  // namespace uma::backends::npu_sim::test
