// The partition policies (uma/uma/partition_policy.h) through the build driver, with test_npu,
// whose backend declares a cost, against the host's roofline at a peak the host target sets:
// under the cost policy a small layer stays on the host for its transfers while a large one
// is offloaded, the report says why in numbers, a target without a cost is offloaded as
// under greedy, a cost that fails fails the build; and the strict policy fails naming every
// node a strict target's patterns matched but left on the host, with its reason.
#include <gtest/gtest.h>

#include "test_npu.h"
#include "uma/graph/parser.h"
#include "uma/partition/report.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"
#include "uma/uma/partition_policy.h"

namespace uma {
namespace {

// A large convolution and a small add. At the host's 100 GFLOP/s and 10 GB/s and test_npu's
// defaults (256 MACs a cycle at 1000 MHz; DMA 8 bytes a cycle after 16 cycles of setup):
//   big    1179648 MACs (16 x 32 x 32 outputs of 8 x 3 x 3): the host 23.6 us (2 MACs /
//          100e9; its 102912 bytes take 10.3 us), test_npu 4608 cycles of compute and 12912
//          of transfers (x 16 + 32768 / 8, w 16 + 4608 / 8, out 16 + 65536 / 8): 17.5 us
//   small  16 elements: the host 19.2 ns (192 bytes at 10 GB/s), test_npu 1 cycle of compute
//          and 72 of transfers (three of 16 + 64 / 8): 73 ns
constexpr std::string_view kModelText = R"(
func @main(%x: tensor<1x8x32x32xf32>, %p: tensor<1x16xf32>, %q: tensor<1x16xf32>) -> (tensor<1x16x32x32xf32>, tensor<1x16xf32>) {
  %w = constant {value = @w} : tensor<16x8x3x3xf32>
  %c = nn.conv2d(%x, %w) {padding = [1, 1, 1, 1]} : tensor<1x16x32x32xf32> loc("big")
  %s = add(%p, %q) : tensor<1x16xf32> loc("small")
  return %c, %s
}
data @w : tensor<16x8x3x3xf32> = )";

constexpr std::string_view kHost = "c --peak_gflops=100 --memory_gbps=10";

// The text, then the hex string of the weight's data: `floats` zeros (the fit check folds
// the layer's constants, so they need bytes).
std::string with_weight(std::string_view text, std::size_t floats) {
  return fmt::format("{}\"0x{}\"\n", text, std::string(8 * floats, '0'));
}

std::string model() { return with_weight(kModelText, 16 * 8 * 9); }

// Takes every add; its cost is given.
class Adder : public Backend {
 public:
  Adder(std::string name, BackendCost cost) : Backend(std::move(name)) {
    add_pattern("add", is_op("add", {wildcard(), wildcard()}));
    if (cost) set_cost(std::move(cost));
  }
};

class PartitionPolicyTest : public ::testing::Test {
 protected:
  PartitionPolicyTest() { EXPECT_TRUE(register_test_npu(context).ok()); }

  // Partitions `text` for the targets; the report is left in `report`.
  Status partition(std::string_view text, const std::vector<std::string>& targets,
                   build::BuildOptions options) {
    auto parsed = parse_module(context, text, "test.uma");
    if (!parsed) return parsed.error();
    module = std::move(*parsed);
    options.report = &report;
    UMA_TRY_ASSIGN(build::BuildTargets parsed_targets, build::parse_targets(context, targets));
    return build::partition_for_targets(*module, parsed_targets, options);
  }

  const NodeRecord& record(std::string_view name) const {
    for (const NodeRecord& r : report.records())
      if (r.name == name) return r;
    ADD_FAILURE() << "no record of node " << name;
    static const NodeRecord none;
    return none;
  }

  Context context;
  std::unique_ptr<Module> module;
  PartitionReport report;
};

build::BuildOptions cost_policy() { return {.partition = PartitionPolicy::kCost}; }

TEST_F(PartitionPolicyTest, TheSmallLayerStaysForItsTransfersTheLargeOneIsOffloaded) {
  Status done = partition(model(), {"test_npu", std::string(kHost)}, cost_policy());
  ASSERT_TRUE(done.ok()) << done.error().message();
  EXPECT_EQ(record("big").target, "test_npu");
  EXPECT_EQ(record("small").target, "");
  EXPECT_EQ(report.to_table(),
            "id  name   op         target    composite        other targets\n"
            "0   big    nn.conv2d  test_npu  test_npu.conv2d\n"
            "1   small  add        host      -                test_npu: predicate rejected "
            "(offload 1 ns + transfer 72 ns > host 19.2 ns)\n"
            "\n"
            "target    nodes      regions  MACs              bytes\n"
            "test_npu  1 (50.0%)  1        1179648 (100.0%)  70144 (99.9%)\n"
            "host      1 (50.0%)  -        0 (0.0%)          64 (0.1%)\n"
            "total     2          1        1179648           70208\n");
}

TEST_F(PartitionPolicyTest, GreedyOffloadsBoth) {
  Status done = partition(model(), {"test_npu", std::string(kHost)}, {});
  ASSERT_TRUE(done.ok()) << done.error().message();
  EXPECT_EQ(record("big").target, "test_npu");
  EXPECT_EQ(record("small").target, "test_npu");
}

TEST_F(PartitionPolicyTest, TheTargetsAttributesChangeTheDecision) {
  // A DMA engine of 64 bytes a cycle without setup moves the add's operands in 3 cycles: with
  // its cycle of compute, 4 ns, less than the host's 19.2.
  Status done = partition(
      model(), {"test_npu --dma_bytes_per_cycle=64 --dma_setup_cycles=0", std::string(kHost)},
      cost_policy());
  ASSERT_TRUE(done.ok()) << done.error().message();
  EXPECT_EQ(record("small").target, "test_npu");
  // A host ten times as fast keeps the convolution: 2.36 us against test_npu's 17.5.
  done = partition(model(), {"test_npu", "c --peak_gflops=1000 --memory_gbps=100"}, cost_policy());
  ASSERT_TRUE(done.ok()) << done.error().message();
  EXPECT_EQ(record("big").target, "");
  ASSERT_EQ(record("big").rejections.size(), 1u);
  EXPECT_EQ(record("big").rejections[0].detail,
            "offload 4.61 us + transfer 12.9 us > host 2.36 us");
}

TEST_F(PartitionPolicyTest, ATargetWithoutACostIsOffloadedAsUnderGreedy) {
  ASSERT_TRUE(register_backend(context, std::make_unique<Adder>("plain", nullptr)).ok());
  Status done = partition(model(), {"plain", "test_npu", std::string(kHost)}, cost_policy());
  ASSERT_TRUE(done.ok()) << done.error().message();
  EXPECT_EQ(record("small").target, "plain");
  EXPECT_EQ(record("big").target, "test_npu");
}

TEST_F(PartitionPolicyTest, ACostThatFailsFailsTheBuild) {
  BackendCost fails = [](const Function&, const Target&) -> Expected<CompositeCost> {
    return make_error("no estimate");
  };
  BackendCost invalid = [](const Function&, const Target&) -> Expected<CompositeCost> {
    return CompositeCost{.seconds = 1, .transfer_seconds = 2};
  };
  ASSERT_TRUE(register_backend(context, std::make_unique<Adder>("failing", fails)).ok());
  ASSERT_TRUE(register_backend(context, std::make_unique<Adder>("invalid", invalid)).ok());
  Status done = partition(model(), {"failing", std::string(kHost)}, cost_policy());
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(), "the cost of failing.add on target 'failing': no estimate");
  done = partition(model(), {"invalid", std::string(kHost)}, cost_policy());
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(),
            "the cost of invalid.add on target 'invalid': the estimate (seconds 1, "
            "transfer_seconds 2) is not a duration that holds its transfers");
  // Greedy never asks.
  EXPECT_TRUE(partition(model(), {"failing", std::string(kHost)}, {}).ok());
}

TEST(PartitionPolicyHost, TheCostPolicyNeedsTheHostsCost) {
  class CostlessHost : public Backend {
   public:
    CostlessHost() : Backend(std::string(kHostTargetKind)) { declare_host(); }
  };
  Context context(std::make_unique<CostlessHost>());
  ASSERT_TRUE(register_test_npu(context).ok());
  auto module = parse_module(context, model(), "test.uma");
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto targets = build::parse_targets(context, {"test_npu"});
  ASSERT_TRUE(targets.ok()) << targets.error().message();
  Status done = build::partition_for_targets(**module, *targets, cost_policy());
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(),
            "the cost policy compares each target's cost with the host's, but the host's "
            "backend 'c' declares no cost");
}

// Three nodes test_npu's patterns match and leave on the host, each for another reason, and
// one they do not match (a sigmoid), which is not a fallback.
constexpr std::string_view kFallbacksText = R"(
func @main(%x: tensor<1x64x4x4xf32>, %p: tensor<1x16xf32>, %q: tensor<1x16xf32>, %r: tensor<16xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x16xf32>, tensor<1x16xf32>) {
  %w = constant {value = @w} : tensor<4x64x3x3xf32>
  %c = nn.conv2d(%x, %w) {padding = [1, 1, 1, 1]} : tensor<1x4x4x4xf32> loc("wide")
  %s = add(%p, %q) : tensor<1x16xf32> loc("small")
  %b = add(%p, %r) : tensor<1x16xf32>
  %t = sigmoid(%s) : tensor<1x16xf32> loc("alone")
  return %c, %b, %t
}
data @w : tensor<4x64x3x3xf32> = )";

std::string fallbacks() { return with_weight(kFallbacksText, 4 * 64 * 9); }

// The wide convolution's smallest tile, one output of one channel, reads 64 channels of a 3x3
// window (2304 bytes) and writes one value (16 bytes, aligned): 2320 bytes of imem, which has
// 1024.
constexpr std::string_view kStrictError =
    "target 'test_npu' has no_fallback, but 3 node(s) its patterns matched stay on the host:\n"
    "  node 'wide' (nn.conv2d): predicate rejected (needs 2320 bytes of imem at its smallest "
    "tile (1x1x1x1), has 1024)\n"
    "  node 'small' (add): predicate rejected (offload 1 ns + transfer 72 ns > host 19.2 ns)\n"
    "  node #2 (add) in @main: predicate rejected (the add broadcasts tensor<16xf32> to "
    "tensor<1x16xf32>)";

TEST_F(PartitionPolicyTest, NoFallbackNamesEveryNodeLeftOnTheHostAndWhy) {
  Status done = partition(fallbacks(), {"test_npu --imem_kb=1 --no_fallback", std::string(kHost)},
                          cost_policy());
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(), kStrictError);
  // The build's option makes every accelerator target strict.
  build::BuildOptions options = cost_policy();
  options.no_fallback = true;
  done = partition(fallbacks(), {"test_npu --imem_kb=1", std::string(kHost)}, options);
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(), kStrictError);
}

TEST_F(PartitionPolicyTest, NoFallbackWithoutAReportOfTheBuilds) {
  auto parsed = parse_module(context, fallbacks(), "test.uma");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  auto targets = build::parse_targets(context, {"test_npu --no_fallback", std::string(kHost)});
  ASSERT_TRUE(targets.ok()) << targets.error().message();
  // Greedy: only the predicate's reason is left.
  Status done = build::partition_for_targets(**parsed, *targets, {});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(),
            "target 'test_npu' has no_fallback, but 1 node(s) its patterns matched stay on the "
            "host:\n"
            "  node #2 (add) in @main: predicate rejected (the add broadcasts tensor<16xf32> to "
            "tensor<1x16xf32>)");
}

TEST_F(PartitionPolicyTest, NoFallbackPassesWhenNothingFallsBack) {
  Status done = partition(model(), {"test_npu --no_fallback", std::string(kHost)}, {});
  EXPECT_TRUE(done.ok()) << done.error().message();
}

TEST_F(PartitionPolicyTest, ABackendMayNotDeclareNoFallbackItself) {
  class Own : public Backend {
   public:
    Own() : Backend("own") { add_bool_attr("no_fallback", true); }
  };
  Status registered = register_backend(context, std::make_unique<Own>());
  ASSERT_FALSE(registered.ok());
  EXPECT_EQ(registered.error().message(),
            "backend 'own': attribute 'no_fallback' is every accelerator's: the core declares it");
}

TEST(PartitionPolicyNames, ParseAndPrint) {
  EXPECT_EQ(parse_partition_policy("cost").value(), PartitionPolicy::kCost);
  EXPECT_EQ(parse_partition_policy("greedy").value(), PartitionPolicy::kGreedy);
  EXPECT_EQ(parse_partition_policy("fast").error().message(),
            "unknown partition policy 'fast' (known: greedy, cost)");
}

TEST(FormatSeconds, PicksTheUnitThatReadsBest) {
  EXPECT_EQ(format_seconds(0), "0 ns");
  EXPECT_EQ(format_seconds(1e-9), "1 ns");
  EXPECT_EQ(format_seconds(850e-9), "850 ns");
  EXPECT_EQ(format_seconds(999.7e-9), "1 us");
  EXPECT_EQ(format_seconds(1.8e-6), "1.8 us");
  EXPECT_EQ(format_seconds(12.345e-3), "12.3 ms");
  EXPECT_EQ(format_seconds(2.05), "2.05 s");
  EXPECT_EQ(format_seconds(5000), "5e+03 s");
}

}  // namespace
}  // namespace uma
