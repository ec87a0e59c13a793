// Property tests of tiling (uma/tiling/): seeded random layers (tiling_layers.h: conv1d on
// ultra_trail; conv2d, grouped and depthwise conv2d, dense, max and average pooling, add on
// test_npu) at capacities from the smallest that holds a tile up to the layer's size. For each
// layer and capacities:
//   (a) the plan fits: each memory's peak, recomputed here from the plan's operands (tile bytes
//       aligned, times the buffers: two for the operands moved in the innermost loop of a
//       double-buffered plan), is the plan's and at most the capacity; and the smallest
//       capacity that plans (bisected) is the first KiB to hold the smallest tile's peak,
//       computed here;
//   (b) the plan's numbers are those of its tiling, counted here from the layer's geometry: per
//       operand its largest tile, its moves and bytes (the clamped region of every tile, times
//       the reloads by the outer loops whose axis it does not follow), the bytes it moves more
//       than once; weights the plan does not cut are moved once, whole;
//   (c) the build runs; test_npu's DMA engine moves the plan's bytes in the plan's transfers
//       (its counters, in the function's load-time state); the outputs are the same bits as
//       those of the build whose memories hold the whole layer, and (test_npu's kernels sum as
//       the interpreter does) as the reference interpreter's; ultra_trail's, which sums in
//       f32, within 1e-5 of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "backends/register.h"
#include "c_test_util.h"
#include "test_npu.h"
#include "tiling_layers.h"
#include "uma/partition/report.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/tiling/plan.h"
#include "uma/tiling/region.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma::tiling_test {
namespace {

using tiling::Role;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t align_up(std::int64_t bytes, std::int64_t alignment) {
  return ceil_div(bytes, alignment) * alignment;
}

// The clamped extent of operand o's dimension d in the tile at position t of tiles of `size`
// along the axis it follows (its whole extent when it follows none).
std::int64_t extent(const Operand& o, std::size_t d, const Shape& output, std::int64_t size,
                    std::int64_t t) {
  if (!o.axis[d]) return o.shape[d];
  std::int64_t lo = t * size, hi = std::min(output[*o.axis[d]], lo + size) - 1;
  auto [first, last] = o.region[d](lo, hi);
  return std::max<std::int64_t>(
      std::min(last, o.shape[d] - 1) - std::max<std::int64_t>(first, 0) + 1, 0);
}

// The elements of operand o's dimension d that the tiles of `size` cover together.
std::int64_t covered(const Operand& o, std::size_t d, const Shape& output, std::int64_t size) {
  std::size_t a = *o.axis[d];
  std::vector<bool> seen(static_cast<std::size_t>(o.shape[d]), false);
  for (std::int64_t lo = 0; lo < output[a]; lo += size) {
    auto [first, last] = o.region[d](lo, std::min(output[a], lo + size) - 1);
    for (std::int64_t e = std::max<std::int64_t>(first, 0); e <= std::min(last, o.shape[d] - 1);
         ++e)
      seen[static_cast<std::size_t>(e)] = true;
  }
  return std::count(seen.begin(), seen.end(), true);
}

// (a) and (b) for `plan`, a plan of `layer` in `model`.
void check_plan(const Layer& layer, const tiling::TilePlan& plan,
                const tiling::MemoryModel& model) {
  const Shape& out = layer.operands.back().shape;
  ASSERT_EQ(plan.output, out);
  ASSERT_EQ(plan.tile.size(), out.size());
  std::vector<std::int64_t> count;
  std::vector<std::size_t> cut;
  std::int64_t tiles = 1;
  for (std::size_t a = 0; a < out.size(); ++a) {
    ASSERT_GE(plan.tile[a], 1);
    ASSERT_LE(plan.tile[a], out[a]);
    count.push_back(ceil_div(out[a], plan.tile[a]));
    if (count[a] > 1) cut.push_back(a);
    tiles *= count[a];
  }
  std::vector<std::size_t> order = plan.order;
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, cut) << "a loop per axis of more than one tile";
  EXPECT_EQ(plan.tiles, tiles);
  EXPECT_FALSE(plan.double_buffered && plan.order.empty());

  ASSERT_EQ(plan.operands.size(), layer.operands.size());
  std::map<std::string, std::int64_t> peak;
  for (const Operand& o : layer.operands) {
    SCOPED_TRACE("operand " + o.name);
    auto found =
        std::find_if(plan.operands.begin(), plan.operands.end(), [&](const tiling::OperandPlan& p) {
          return o.output ? p.output : !p.output && p.name == o.name;
        });
    ASSERT_NE(found, plan.operands.end());
    const tiling::OperandPlan& p = *found;
    const tiling::Memory* memory = model.holding(o.role);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(p.role, o.role);
    EXPECT_EQ(p.memory, memory->name);
    // Its largest tile; the elements of all its tiles (per axis it follows, the sum over the
    // axis's tiles of its extents on that axis); the elements they cover together.
    Shape tile;
    std::int64_t swept = 4, unique = 4;
    std::vector<bool> follows(out.size(), false);
    for (std::size_t d = 0; d < o.shape.size(); ++d) {
      std::int64_t most = o.shape[d];
      if (o.axis[d]) {
        std::size_t a = *o.axis[d];
        follows[a] = true;
        most = 0;
        for (std::int64_t t = 0; t < count[a]; ++t)
          most = std::max(most, extent(o, d, out, plan.tile[a], t));
        unique *= covered(o, d, out, plan.tile[a]);
      } else {
        swept *= o.shape[d];
        unique *= o.shape[d];
      }
      tile.push_back(most);
    }
    for (std::size_t a = 0; a < out.size(); ++a) {
      if (!follows[a]) continue;
      std::int64_t sum = 0;
      for (std::int64_t t = 0; t < count[a]; ++t) {
        std::int64_t elements = 1;
        for (std::size_t d = 0; d < o.shape.size(); ++d)
          if (o.axis[d] == a) elements *= extent(o, d, out, plan.tile[a], t);
        sum += elements;
      }
      swept *= sum;
    }
    // Moved in the loop of the innermost axis it follows, and again for every tile of each
    // loop outside that one whose axis it does not follow.
    std::ptrdiff_t innermost = -1;
    for (std::size_t k = 0; k < plan.order.size(); ++k)
      if (follows[plan.order[k]]) innermost = static_cast<std::ptrdiff_t>(k);
    std::int64_t reloads = 1, moves = 1;
    for (std::size_t k = 0; k < plan.order.size(); ++k) {
      std::size_t a = plan.order[k];
      if (follows[a])
        moves *= count[a];
      else if (static_cast<std::ptrdiff_t>(k) < innermost)
        reloads *= count[a];
    }
    bool inner = innermost >= 0 && innermost + 1 == static_cast<std::ptrdiff_t>(plan.order.size());
    int buffers = plan.double_buffered && inner ? 2 : 1;
    std::int64_t tile_bytes = TensorType{DType::f32, tile}.num_elements() * 4;
    EXPECT_EQ(p.tile, tile);
    EXPECT_EQ(p.tile_bytes, tile_bytes);
    EXPECT_EQ(p.buffers, buffers);
    EXPECT_EQ(p.moves, moves * reloads);
    EXPECT_EQ(p.bytes, swept * reloads);
    EXPECT_EQ(p.halo_bytes, (swept - unique) * reloads);
    if (o.role == Role::kWeights && innermost < 0) {
      EXPECT_EQ(p.moves, 1) << "weights the plan does not cut are moved once";
      EXPECT_EQ(p.bytes, o.bytes()) << "weights the plan does not cut are moved whole";
    }
    peak[memory->name] += align_up(tile_bytes, memory->alignment) * buffers;
  }
  ASSERT_EQ(plan.memories.size(), peak.size());
  for (const tiling::MemoryUse& use : plan.memories) {
    SCOPED_TRACE("memory " + use.name);
    EXPECT_EQ(use.peak, peak[use.name]);
    EXPECT_EQ(use.capacity, model.find(use.name)->capacity);
    EXPECT_LE(use.peak, use.capacity);
  }
}

// Each memory's peak at the smallest tile (`smallest` elements of each output axis), single
// buffered: what the layer needs to fit at all.
std::map<std::string, std::int64_t> smallest_peaks(const Layer& layer, const Shape& smallest,
                                                   const tiling::MemoryModel& model) {
  const Shape& out = layer.operands.back().shape;
  std::map<std::string, std::int64_t> peaks;
  for (const Operand& o : layer.operands) {
    Shape tile;
    for (std::size_t d = 0; d < o.shape.size(); ++d) {
      std::int64_t most = o.shape[d];
      if (o.axis[d]) {
        std::size_t a = *o.axis[d];
        most = 0;
        for (std::int64_t t = 0; t < ceil_div(out[a], smallest[a]); ++t)
          most = std::max(most, extent(o, d, out, smallest[a], t));
      }
      tile.push_back(most);
    }
    const tiling::Memory& memory = *model.holding(o.role);
    peaks[memory.name] +=
        align_up(TensorType{DType::f32, tile}.num_elements() * 4, memory.alignment);
  }
  return peaks;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  std::span<const std::byte> x = a.bytes(), y = b.bytes();
  return a.type() == b.type() && std::equal(x.begin(), x.end(), y.begin(), y.end());
}

// A build's outputs, the plan of each layer it tiled, and the bytes and transfers test_npu's
// DMA engine counted (-1: a target without the counters).
struct BuildRun {
  std::vector<TensorPtr> outputs;
  std::vector<tiling::TilePlan> plans;
  std::int64_t dma_bytes = -1, dma_transfers = -1;
};

class TilingPropertyTest : public ::testing::Test {
 protected:
  TilingPropertyTest() {
    Status npu = register_test_npu(ctx);
    EXPECT_TRUE(npu.ok()) << npu.error().message();
    Status ut = backends::register_ultra_trail(ctx);
    EXPECT_TRUE(ut.ok()) << ut.error().message();
  }

  // "<kind> --<memory>_kb=<kb>... --dma_dims=<dims>"
  static std::string target_text(const Layer& layer, const std::map<std::string, std::int64_t>& kb,
                                 std::int64_t dma_dims) {
    std::string text = layer.target;
    for (const auto& [memory, size] : kb) text += fmt::format(" --{}_kb={}", memory, size);
    return text + fmt::format(" --dma_dims={}", dma_dims);
  }

  tiling::MemoryModel model(const std::string& target) {
    auto parsed = ctx.target_kinds().parse(target);
    EXPECT_TRUE(parsed.ok()) << parsed.error().message();
    if (!parsed.ok()) return {};
    auto resolved = memory_model(ctx.backends().find(parsed->kind().name)->spec(), *parsed);
    EXPECT_TRUE(resolved.ok()) << resolved.error().message();
    return resolved.ok() ? std::move(*resolved) : tiling::MemoryModel{};
  }

  // Builds `layer` alone for `target` and runs it on `inputs`.
  BuildRun build_and_run(const Layer& layer, const std::string& target,
                         const std::vector<TensorPtr>& inputs) {
    Module module(ctx, "m");
    Function& main = *module.add_function("main").value();
    main.set_outputs({layer.emit(main)});
    PartitionReport report;
    build::BuildOptions options;
    options.report = &report;
    options.passes.verify_each = true;
    options.compiler.cache_dir = testing_c::run_cache_dir();
    BuildRun run;
    auto built = build::build(module, {target}, options);
    EXPECT_TRUE(built.ok()) << target << ": " << built.error().message();
    if (!built.ok()) return run;
    for (const TilingRecord& record : report.tilings()) run.plans.push_back(record.plan);
    EXPECT_EQ(run.plans.size(), 1u) << target << ": the layer is not tiled\n" << report.to_table();
    runtime::Executor executor(built->program);
    auto outputs = executor.run(inputs);
    EXPECT_TRUE(outputs.ok()) << target << ": " << outputs.error().message();
    if (!outputs.ok()) return run;
    run.outputs = std::move(*outputs);
    for (const runtime::HostCall& call : built->program->calls)
      for (const runtime::ArgLocation& arg : call.args) {
        if (arg.kind != runtime::ArgLocation::Kind::kState) continue;
        std::int64_t counters[2];
        std::memcpy(counters, executor.state().data() + arg.index, sizeof counters);
        run.dma_bytes = std::max<std::int64_t>(run.dma_bytes, 0) + counters[0];
        run.dma_transfers = std::max<std::int64_t>(run.dma_transfers, 0) + counters[1];
      }
    return run;
  }

  // Checks `layer` at its smallest capacities and at `random` random ones between those and
  // the layer's size, building and running it at the first `built` of them.
  void check(const Layer& layer, std::mt19937& rng, int random = 3, int built = 2) {
    SCOPED_TRACE(layer.description);
    Module module(ctx, "layer");
    Function& composite = *module.add_function("layer").value();
    composite.set_outputs({layer.emit(composite)});
    ASSERT_EQ(composite.outputs()[0]->tensor_type().shape, layer.operands.back().shape);
    auto space = tiling::TileSpace::derive(composite);
    ASSERT_TRUE(space.ok()) << space.error().message();
    std::int64_t dma_dims = pick(rng, 1, 2);

    // The smallest capacity of each memory, the others at their largest: bisected on whether
    // a plan fits, it is the first KiB to hold the smallest tile, whose sizes are one, or one
    // step of an axis cut at multiples of one (whole groups).
    Shape smallest;
    for (std::size_t a = 0; a < space->num_axes(); ++a)
      smallest.push_back(std::min(space->step(a), space->output_shape()[a]));
    std::map<std::string, std::int64_t> peaks =
        smallest_peaks(layer, smallest, model(layer.target));
    std::map<std::string, std::int64_t> largest, smallest_kb;
    for (const auto& [memory, peak] : peaks) largest[memory] = tiling::kMaxMemoryKb;
    std::int64_t layer_bytes = 0;
    for (const Operand& o : layer.operands) layer_bytes += align_up(o.bytes(), 64);
    std::int64_t whole_kb = ceil_div(layer_bytes, 1024);
    for (const auto& [memory, peak] : peaks) {
      SCOPED_TRACE("memory " + memory);
      auto plan_at = [&](std::int64_t kb) {
        std::map<std::string, std::int64_t> kbs = largest;
        kbs[memory] = kb;
        return tiling::plan_tiles(*space, model(target_text(layer, kbs, dma_dims)));
      };
      std::int64_t lo = 1, hi = whole_kb;
      ASSERT_TRUE(plan_at(hi).ok());
      while (lo < hi) {
        std::int64_t mid = (lo + hi) / 2;
        plan_at(mid).ok() ? hi = mid : lo = mid + 1;
      }
      EXPECT_EQ(lo, ceil_div(peak, 1024));
      if (lo > 1) {
        auto refused = plan_at(lo - 1);
        ASSERT_FALSE(refused.ok());
        EXPECT_EQ(refused.error().message(),
                  fmt::format("needs {} bytes of {} at its smallest tile ({}), has {}", peak,
                              memory, fmt::join(smallest, "x"), (lo - 1) * 1024));
      }
      smallest_kb[memory] = lo;
    }

    // The reference: the layer in memories that hold it whole (in one tile, unless strides
    // leave gaps that tiles skip), and the interpreter.
    std::vector<TensorPtr> inputs = random_inputs(composite, rng());
    auto reference = interpret(composite, inputs);
    ASSERT_TRUE(reference.ok()) << reference.error().message();
    BuildRun whole = build_and_run(layer, target_text(layer, largest, dma_dims), inputs);
    ASSERT_EQ(whole.outputs.size(), reference->size());
    for (std::size_t i = 0; i < reference->size(); ++i) {
      if (layer.target == kTestNpu) {
        EXPECT_TRUE(same_bits(*whole.outputs[i], *(*reference)[i]))
            << "output " << i << " differs from the interpreter's";
        continue;
      }
      TensorComparison near = compare_tensors(*whole.outputs[i], *(*reference)[i], 1e-5, 1e-5);
      EXPECT_TRUE(near.ok()) << "output " << i << ": " << near.mismatches
                             << " mismatch(es), max abs error " << near.max_abs_error;
    }

    std::vector<std::map<std::string, std::int64_t>> capacities{smallest_kb};
    for (int k = 0; k < random; ++k) {
      std::map<std::string, std::int64_t> kbs;
      for (const auto& [memory, kb] : smallest_kb) kbs[memory] = pick(rng, kb, whole_kb);
      capacities.push_back(kbs);
    }
    for (std::size_t c = 0; c < capacities.size(); ++c) {
      std::string target = target_text(layer, capacities[c], dma_dims);
      SCOPED_TRACE(target);
      tiling::MemoryModel memories = model(target);
      auto plan = tiling::plan_tiles(*space, memories);
      ASSERT_TRUE(plan.ok()) << plan.error().message();
      check_plan(layer, *plan, memories);
      if (static_cast<int>(c) >= built) continue;
      BuildRun run = build_and_run(layer, target, inputs);
      ASSERT_EQ(run.plans.size(), 1u);
      const tiling::TilePlan& used = run.plans[0];
      EXPECT_EQ(used.summary(), plan->summary()) << "the build's plan is the one checked";
      EXPECT_EQ(used.order, plan->order);
      EXPECT_EQ(used.traffic(), plan->traffic());
      std::int64_t transfers = 0;
      for (const tiling::OperandPlan& operand : used.operands) transfers += operand.transfers;
      if (layer.target == kTestNpu) {
        EXPECT_EQ(run.dma_bytes, used.traffic()) << "bytes test_npu's DMA engine moved";
        EXPECT_EQ(run.dma_transfers, transfers) << "transfers test_npu's DMA engine made";
      }
      ASSERT_EQ(run.outputs.size(), whole.outputs.size());
      for (std::size_t i = 0; i < run.outputs.size(); ++i)
        EXPECT_TRUE(same_bits(*run.outputs[i], *whole.outputs[i]))
            << "output " << i << " differs from the untiled build's";
    }
  }

  Context ctx;
};

// 40 layers in all, each at 4 capacities, built at 2 of them and with memories that hold it
// whole.

TEST_F(TilingPropertyTest, Conv1dOnUltraTrail) {
  std::mt19937 rng(1);
  for (int i = 0; i < 6; ++i) check(conv_layer(random_conv(rng, 1, Grouping::kNone)), rng);
}

TEST_F(TilingPropertyTest, Conv2d) {
  std::mt19937 rng(2);
  for (int i = 0; i < 8; ++i) check(conv_layer(random_conv(rng, 2, Grouping::kNone)), rng);
}

TEST_F(TilingPropertyTest, GroupedAndDepthwiseConv2d) {
  std::mt19937 rng(3);
  for (int i = 0; i < 6; ++i)
    check(conv_layer(random_conv(rng, 2, i % 2 ? Grouping::kGroups : Grouping::kDepthwise)), rng);
}

TEST_F(TilingPropertyTest, Dense) {
  std::mt19937 rng(4);
  for (int i = 0; i < 6; ++i) check(random_dense(rng), rng);
}

TEST_F(TilingPropertyTest, MaxPool2d) {
  std::mt19937 rng(5);
  for (int i = 0; i < 5; ++i) check(pool_layer(random_pool(rng, true)), rng);
}

TEST_F(TilingPropertyTest, AvgPool2d) {
  std::mt19937 rng(6);
  for (int i = 0; i < 5; ++i) check(pool_layer(random_pool(rng, false)), rng);
}

TEST_F(TilingPropertyTest, Add) {
  std::mt19937 rng(7);
  for (int i = 0; i < 4; ++i) check(random_add(rng), rng);
}

// ---- Cases the random ones found ----

// A grouped convolution is tiled in whole groups: its output channels are cut at multiples of
// a group's (TileSpace::step), and each tile's copy of the layer has the groups it holds.
TEST_F(TilingPropertyTest, AGroupedConvolutionIsCutIntoWholeGroups) {
  Layer layer = conv_layer({.channels = 12,
                            .out_channels = 12,
                            .groups = 3,
                            .size = {8, 8},
                            .kernel = {3, 3},
                            .strides = {1, 1},
                            .dilation = {1, 1},
                            .padding = {1, 1, 1, 1},
                            .seed = 9});
  Module module(ctx, "layer");
  Function& composite = *module.add_function("layer").value();
  composite.set_outputs({layer.emit(composite)});
  auto space = tiling::TileSpace::derive(composite);
  ASSERT_TRUE(space.ok()) << space.error().message();
  EXPECT_EQ(space->step(0), 1);
  EXPECT_EQ(space->step(1), 4);
  EXPECT_EQ(space->step(2), 1);
  // The weights (1728 bytes) do not fit 1 KiB: a group's (576) does.
  auto plan = tiling::plan_tiles(*space, model("test_npu --wmem_kb=1"));
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->tile[1], 4);
  EXPECT_EQ(
      tiling::make_plan(*space, model("test_npu"), {1, 6, 8, 8}, {1}, false).error().message(),
      "the tile's size 6 on axis 1 is not a multiple of 4, its step");
  std::mt19937 rng(9);
  check(layer, rng);
}

// A ceil-mode pool's last window reaches past the padding (rows 24 and 25 of a 24-row input
// padded by 1 take windows of 3 every 2): the tile keeps the layer's padding there, so that a
// max pool's tile is valid (its padding below the pool size) and an average that counts the
// padding counts the same taps as the layer.
TEST_F(TilingPropertyTest, ACeilModePoolsLastWindowReachesPastThePadding) {
  for (bool max : {false, true}) {
    std::mt19937 rng(10);
    check(pool_layer({.max = max,
                      .batch = 1,
                      .channels = 4,
                      .size = {24, 24},
                      .kernel = {3, 3},
                      .strides = {2, 2},
                      .padding = {1, 1, 1, 1},
                      .ceil_mode = true,
                      .count_include_pad = !max}),
          rng);
  }
}

// Tiles whose windows overlap down the height and leave gaps across the width: what they move
// more than once is the rows two tiles share, whatever the columns none reads.
TEST_F(TilingPropertyTest, TheHaloIsWhatTilesShareWhateverTheGapsBetweenThem) {
  Layer layer = conv_layer({.size = {6, 7},
                            .kernel = {3, 1},
                            .strides = {1, 3},
                            .dilation = {1, 1},
                            .padding = {0, 0, 0, 0}});
  Module module(ctx, "layer");
  Function& composite = *module.add_function("layer").value();
  composite.set_outputs({layer.emit(composite)});
  auto space = tiling::TileSpace::derive(composite);
  ASSERT_TRUE(space.ok()) << space.error().message();
  // Output 4 x 3 in tiles of 2 x 1: input rows [0, 3] and [2, 5], each at columns 0, 3 and
  // 6: 24 elements moved, of which rows 2 and 3 twice.
  tiling::MemoryModel memories = model("test_npu");
  auto plan = tiling::make_plan(*space, memories, {1, 1, 2, 1}, {2, 3}, false);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->operands[0].bytes, 24 * 4);
  EXPECT_EQ(plan->operands[0].halo_bytes, 2 * 3 * 4);
  check_plan(layer, *plan, memories);
}

}  // namespace
}  // namespace uma::tiling_test
