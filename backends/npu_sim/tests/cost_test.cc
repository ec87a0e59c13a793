// npu_sim under the cost policy: its performance model is its cost, so a layer that moves more
// than it computes stays on the host, and a strict target says which and why.
#include <fmt/format.h>

#include "backends/npu_sim/tests/npu_sim_test_util.h"
#include "uma/uma/partition_policy.h"

namespace uma::backends::npu_sim::test {
namespace {

// The host at fixed rates (not this machine's measured ones): 100 GFLOP/s, 10 GB/s.
constexpr std::string_view kHost = "c --peak_gflops=100 --memory_gbps=10";

class NpuSimCostTest : public NpuSimTest {
 public:
  // x [1, 64, 28, 28] → conv 3x3 64 → 64 ("wide": 29 M MACs) → conv 1x1 64 → 8, stride 2
  // ("thin": 100 k MACs for 200 KB in).
  std::unique_ptr<Module> two_layers() {
    return model([](Function& main, Layers& l) {
      Value* x = main.add_param(TensorType{DType::f32, {1, 64, 28, 28}}, "x");
      Value* wide = l.conv(x, {.out_channels = 64, .kernel = 3, .pad = 1});
      wide->producer()->set_name("wide");
      Value* thin = l.conv(wide, {.out_channels = 8, .kernel = 1, .stride = 2});
      thin->producer()->set_name("thin");
      main.set_outputs({thin});
    });
  }

  Expected<std::vector<std::string>> placed(const std::string& target, bool strict,
                                            PartitionReport& report) {
    std::unique_ptr<Module> m = copy(*two_layers());
    UMA_TRY_ASSIGN(build::BuildTargets targets, build::parse_targets(ctx, {target, std::string(kHost)}));
    report.begin(*m, {"npu_sim"});
    build::BuildOptions o = options();
    o.report = &report;
    o.partition = PartitionPolicy::kCost;
    o.no_fallback = strict;
    UMA_TRY(build::partition_for_targets(*m, targets, o));
    std::vector<std::string> where;
    for (const NodeRecord& record : report.records()) {
      std::string reasons;
      for (const Rejection& r : record.rejections) reasons += ": " + r.detail;
      where.push_back(fmt::format("{} on {}{}", record.name,
                                  record.target.empty() ? "host" : record.target, reasons));
    }
    return where;
  }
};

// The host's roofline of "thin": 200 k FLOP at 100 GFLOP/s is 2 us, but its 200,704 bytes in,
// 2,048 of weights and 6,272 out at 10 GB/s take 20.9 us. npu_sim, with a DMA engine of 4
// bytes a cycle, computes it in under 2 us but stalls about 50 us on moving the 200 KB in (50 k
// cycles at 1 GHz): it stays on the host. The wide layer computes 29 M MACs, far longer on the
// host than its moves take on npu_sim.
TEST_F(NpuSimCostTest, AThinLayerStaysOnTheHostForItsTransfers) {
  PartitionReport report;
  auto placed_nodes = placed("npu_sim --dma_bytes_per_cycle=4", false, report);
  ASSERT_TRUE(placed_nodes.ok()) << placed_nodes.error().message();
  ASSERT_EQ(placed_nodes->size(), 2u);
  EXPECT_EQ((*placed_nodes)[0], "wide on npu_sim");
  EXPECT_EQ((*placed_nodes)[1],
            "thin on host: offload 1.74 us + transfer 49.6 us > host 20.9 us");
}

TEST_F(NpuSimCostTest, AStrictTargetNamesTheLayerItLeaves) {
  PartitionReport report;
  auto placed_nodes = placed("npu_sim --dma_bytes_per_cycle=4", true, report);
  ASSERT_FALSE(placed_nodes.ok());
  EXPECT_EQ(placed_nodes.error().message(),
            "target 'npu_sim' has no_fallback, but 1 node(s) its patterns matched stay on the "
            "host:\n  node 'thin' (nn.conv2d): predicate rejected (offload 1.74 us + transfer "
            "49.6 us > host 20.9 us)");
}

}  // namespace
}  // namespace uma::backends::npu_sim::test
