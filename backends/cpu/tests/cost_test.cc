// The host's roofline (backends/cpu/cost.cc): a dense layer's seconds against the roofline
// written out from its shapes, monotone in its size and in the peak, the peak's attributes
// honoured (each alone: the other measured), and checked.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/cpu/cpu.h"
#include "uma/graph/parser.h"
#include "uma/runtime/machine_peak.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

struct Dense {
  std::int64_t batch, in, out;
  double macs() const { return static_cast<double>(batch * in * out); }
  // The data, the weight and the result, in f32.
  double bytes() const { return 4.0 * static_cast<double>(batch * in + out * in + batch * out); }
};

class HostCostTest : public ::testing::Test {
 protected:
  Target host(const std::string& text) {
    Expected<Target> target = context.target_kinds().parse(text);
    EXPECT_TRUE(target.ok()) << target.error().message();
    return *target;
  }

  // The host's seconds for a composite of the dense layer and a relu, as merge-composite
  // makes one: the data a parameter, the weight a constant inside.
  double seconds(const Dense& d, const Target& target) {
    std::string text = fmt::format(R"(
func @layer(%x: tensor<{0}x{1}xf32>) -> (tensor<{0}x{2}xf32>) {{
  %w = constant {{value = @w}} : tensor<{2}x{1}xf32>
  %y = nn.dense(%x, %w) : tensor<{0}x{2}xf32>
  %r = nn.relu(%y) : tensor<{0}x{2}xf32>
  return %r
}}
data @w : tensor<{2}x{1}xf32> = elided
)",
                                   d.batch, d.in, d.out);
    auto module = parse_module(context, text, "layer.uma");
    EXPECT_TRUE(module.ok()) << module.error().message();
    if (!module.ok()) return -1;
    Expected<CompositeCost> cost = backends::host_cost(*(*module)->find_function("layer"), target);
    EXPECT_TRUE(cost.ok()) << cost.error().message();
    if (!cost.ok()) return -1;
    EXPECT_EQ(cost->transfer_seconds, 0);
    return cost->seconds;
  }

  Context context;
};

double roofline(const Dense& d, double gflops, double gbps) {
  return std::max(2 * d.macs() / (gflops * 1e9), d.bytes() / (gbps * 1e9));
}

TEST_F(HostCostTest, IsTheRooflineOfTheLayersMacsAndBytes) {
  Target target = host("c --peak_gflops=100 --memory_gbps=10");
  // 2048 MACs take 41 ns, 8576 bytes 858: bound by memory.
  Dense small{1, 64, 32};
  EXPECT_DOUBLE_EQ(seconds(small, target), 8576 / 10e9);
  // 4194304 MACs take 83.9 us, 393216 bytes 39.3: bound by arithmetic.
  Dense large{64, 256, 256};
  EXPECT_DOUBLE_EQ(seconds(large, target), 2 * 4194304 / 100e9);
  for (const Dense& d : {small, large}) EXPECT_DOUBLE_EQ(seconds(d, target), roofline(d, 100, 10));
}

TEST_F(HostCostTest, GrowsWithTheLayerAndShrinksWithThePeak) {
  Target target = host("c --peak_gflops=50 --memory_gbps=20");
  double previous = 0;
  for (std::int64_t batch : {1, 2, 4, 16, 64, 256}) {
    double now = seconds({batch, 128, 64}, target);
    EXPECT_GT(now, previous) << "batch " << batch;
    EXPECT_DOUBLE_EQ(now, roofline({batch, 128, 64}, 50, 20));
    previous = now;
  }
  previous = 1;
  for (int gflops : {1, 10, 100, 1000}) {
    double now =
        seconds({64, 256, 256}, host(fmt::format("c --peak_gflops={} --memory_gbps=20", gflops)));
    EXPECT_LE(now, previous) << gflops << " GFLOP/s";
    previous = now;
  }
}

TEST_F(HostCostTest, TheAttributesOverrideTheMeasuredPeak) {
  // Twice the peak halves a layer bound by arithmetic, twice the bandwidth one bound by memory.
  Dense compute_bound{64, 256, 256}, memory_bound{1, 64, 32};
  EXPECT_DOUBLE_EQ(seconds(compute_bound, host("c --peak_gflops=200 --memory_gbps=10")),
                   seconds(compute_bound, host("c --peak_gflops=100 --memory_gbps=10")) / 2);
  EXPECT_DOUBLE_EQ(seconds(memory_bound, host("c --peak_gflops=100 --memory_gbps=20")),
                   seconds(memory_bound, host("c --peak_gflops=100 --memory_gbps=10")) / 2);
  // Unset, each is this machine's, as measured for the target's CPU and threads.
  Target measured_target = host("c");
  auto compiler = build::host_compiler_options(measured_target);
  ASSERT_TRUE(compiler.ok()) << compiler.error().message();
  auto peak = runtime::machine_peak(*compiler, 1);
  ASSERT_TRUE(peak.ok()) << peak.error().message();
  for (const Dense& d : {compute_bound, memory_bound}) {
    EXPECT_DOUBLE_EQ(seconds(d, measured_target), roofline(d, peak->gflops, peak->memory_gbps));
    EXPECT_DOUBLE_EQ(seconds(d, host("c --peak_gflops=100")), roofline(d, 100, peak->memory_gbps));
    EXPECT_DOUBLE_EQ(seconds(d, host("c --memory_gbps=10")), roofline(d, peak->gflops, 10));
  }
}

TEST_F(HostCostTest, ThePeaksAttributesAreChecked) {
  auto error = [&](const std::string& text) {
    auto targets = build::parse_targets(context, {text});
    return targets.ok() ? std::string("no error") : targets.error().message();
  };
  EXPECT_EQ(error("c --peak_gflops=-1"),
            "target 'c --peak_gflops=-1': peak_gflops must be in [0, 1073741824] (0: measured), "
            "not -1");
  EXPECT_EQ(error("c --memory_gbps=2000000000"),
            "target 'c --memory_gbps=2000000000': memory_gbps must be in [0, 1073741824] (0: "
            "measured), not 2000000000");
}

}  // namespace
}  // namespace uma
