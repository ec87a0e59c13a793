// Partitioning for vanilla: what the predicate rejects and why (as the partition report shows
// it), and the build driver's partition against the same passes assembled by hand.
#include "backends/cpu/cpu.h"
#include "backends/vanilla/tests/vanilla_test_util.h"
#include "uma/partition/report.h"

namespace uma::backends::vanilla::testing {
namespace {

class VanillaPartitionTest : public VanillaTest {
 protected:
  // Partitions a module of one convolution and returns the report's record of it.
  NodeRecord partition_one(const ConvSpec& spec, Shape data = {1, 4, 8, 8},
                           DType dtype = DType::f32) {
    auto m = model([&](Function& main, ModelBuilder& mb) {
      main.set_outputs({mb.conv(main.add_param(TensorType{dtype, data}, "x"), spec)});
    });
    PartitionReport report;
    report.begin(*m, {"vanilla"});
    build::BuildOptions o = options();
    o.report = &report;
    auto targets = build::parse_targets(ctx, {"vanilla"});
    EXPECT_TRUE(targets.ok());
    Status partitioned = build::partition_for_targets(*m, *targets, o);
    EXPECT_TRUE(partitioned.ok()) << partitioned.error().message();
    for (const NodeRecord& record : report.records())
      if (record.op == "nn.conv2d") return record;
    ADD_FAILURE() << "no nn.conv2d in the report";
    return {};
  }

  // The one rejection of the convolution, as "<kind>: <detail>".
  std::string rejection(const ConvSpec& spec, Shape data = {1, 4, 8, 8}, DType dtype = DType::f32) {
    NodeRecord record = partition_one(spec, std::move(data), dtype);
    EXPECT_EQ(record.target, "");
    if (record.rejections.size() != 1)
      return fmt::format("{} rejections", record.rejections.size());
    const Rejection& r = record.rejections[0];
    EXPECT_EQ(r.target, "vanilla");
    return fmt::format("{}: {}", rejection_text(r.kind), r.detail);
  }
};

TEST_F(VanillaPartitionTest, ClaimsConvolutionsWithTheirEpilogue) {
  for (bool bias_operand : {false, true}) {
    NodeRecord record = partition_one({.out_channels = 8,
                                       .strides = {2, 1},
                                       .padding = {0, 1, 2, 3},
                                       .bias_operand = bias_operand,
                                       .bias_add = !bias_operand,
                                       .activation = "nn.relu"},
                                      {2, 4, 9, 9});
    EXPECT_EQ(record.target, "vanilla");
    EXPECT_EQ(record.composite, "vanilla.conv2d");
    EXPECT_TRUE(record.rejections.empty());
  }
}

// The kernel adds one bias: a convolution with its own and an added one is claimed without
// the add, and the add (and what follows it) stays on the host.
TEST_F(VanillaPartitionTest, ASecondBiasStaysOnTheHost) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, {1, 4, 8, 8}}, "x"),
                              {.bias_operand = true, .bias_add = true, .activation = "nn.relu"})});
  });
  PartitionReport report;
  report.begin(*m, {"vanilla"});
  build::BuildOptions o = options();
  o.report = &report;
  ASSERT_TRUE(
      build::partition_for_targets(*m, build::parse_targets(ctx, {"vanilla"}).value(), o).ok());
  for (const NodeRecord& record : report.records()) {
    if (record.op == "nn.conv2d") {
      EXPECT_EQ(record.target, "vanilla");
    }
    if (record.op != "add") continue;
    EXPECT_EQ(record.target, "");
    ASSERT_FALSE(record.rejections.empty());
    EXPECT_EQ(record.rejections[0].detail,
              "vanilla.conv2d: the kernel adds one bias, and the convolution has its own besides "
              "the add");
  }
}

TEST_F(VanillaPartitionTest, GroupedConvolutionsAreRejected) {
  EXPECT_EQ(rejection({.out_channels = 4, .groups = 2}),
            "predicate rejected: vanilla.conv2d: grouped convolutions (groups=2) are not "
            "supported");
  // Depthwise, as MobileNet's.
  EXPECT_EQ(rejection({.out_channels = 4, .groups = 4}),
            "predicate rejected: vanilla.conv2d: grouped convolutions (groups=4) are not "
            "supported");
}

TEST_F(VanillaPartitionTest, DilatedConvolutionsAreRejected) {
  EXPECT_EQ(rejection({.dilation = {2, 1}}),
            "predicate rejected: vanilla.conv2d: dilated convolutions (dilation=[2, 1]) are not "
            "supported");
}

TEST_F(VanillaPartitionTest, OtherDtypesAreRejected) {
  EXPECT_EQ(rejection({}, {1, 4, 8, 8}, DType::f16),
            "predicate rejected: vanilla.conv2d: f16 is not supported; the kernel computes f32");
}

// 2x2x1x1: four weights, which the host would write into its code; vanilla's lowering keeps
// every constant a buffer.
TEST_F(VanillaPartitionTest, SmallWeightsAreClaimed) {
  NodeRecord record = partition_one({.out_channels = 2, .kernel = 1}, {1, 2, 4, 4});
  EXPECT_EQ(record.target, "vanilla");
  EXPECT_TRUE(record.rejections.empty());
}

TEST_F(VanillaPartitionTest, BiasesThatAreNotPerChannelAreRejected) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* y = mb.conv(main.add_param(TensorType{DType::f32, {1, 4, 8, 8}}, "x"), {});
    // One value per column: not a bias of the kernel's.
    main.set_outputs(
        {mb.builder().value("add", {y, mb.builder().constant(random_tensor({6}, 7))})});
  });
  PartitionReport report;
  report.begin(*m, {"vanilla"});
  build::BuildOptions o = options();
  o.report = &report;
  ASSERT_TRUE(
      build::partition_for_targets(*m, build::parse_targets(ctx, {"vanilla"}).value(), o).ok());
  // The convolution alone is claimed; the add, which the predicate refused, stays on the host.
  for (const NodeRecord& record : report.records()) {
    if (record.op == "nn.conv2d") {
      EXPECT_EQ(record.target, "vanilla");
    }
    if (record.op != "add") continue;
    EXPECT_EQ(record.target, "");
    ASSERT_EQ(record.rejections.size(), 1u);
    EXPECT_EQ(record.rejections[0].detail,
              "vanilla.conv2d: the added bias has shape 6, not one value per output channel");
  }
}

// One value for four channels: the kernel reads one per channel.
TEST_F(VanillaPartitionTest, OneBiasForAllChannelsIsRejected) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* y = mb.conv(main.add_param(TensorType{DType::f32, {1, 4, 8, 8}}, "x"), {});
    main.set_outputs(
        {mb.builder().value("add", {y, mb.builder().constant(random_tensor({1}, 7))})});
  });
  PartitionReport report;
  report.begin(*m, {"vanilla"});
  build::BuildOptions o = options();
  o.report = &report;
  ASSERT_TRUE(
      build::partition_for_targets(*m, build::parse_targets(ctx, {"vanilla"}).value(), o).ok());
  for (const NodeRecord& record : report.records()) {
    if (record.op != "add") continue;
    EXPECT_EQ(record.target, "");
    ASSERT_EQ(record.rejections.size(), 1u);
    EXPECT_EQ(record.rejections[0].detail,
              "vanilla.conv2d: the added bias has shape 1, not one value per output channel");
  }
}

// The rejection as a person reads it, in the report's table.
TEST_F(VanillaPartitionTest, TheReportTableShowsTheReason) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.mobilenet(main.add_param(TensorType{DType::f32, {1, 3, 16, 16}}, "x"))});
  });
  PartitionReport report;
  report.begin(*m, {"vanilla"});
  build::BuildOptions o = options();
  o.report = &report;
  ASSERT_TRUE(
      build::partition_for_targets(*m, build::parse_targets(ctx, {"vanilla"}).value(), o).ok());
  std::string table = report.to_table();
  EXPECT_NE(table.find("\n6   -     nn.conv2d           host     -               vanilla: "
                       "predicate rejected (vanilla.conv2d: grouped convolutions (groups=48) are "
                       "not supported)\n"),
            std::string::npos)
      << table;
  // The stem, the expanding and the projecting convolution, in two regions.
  EXPECT_NE(table.find("\nvanilla  8 (61.5%)  2 "), std::string::npos) << table;
}

// build::partition_for_targets is the four BYOC passes with vanilla's patterns, then the
// host's graph passes of POST_PARTITIONING_0 on what vanilla leaves.
TEST_F(VanillaPartitionTest, EqualsTheHandAssembledPasses) {
  for (bool resnet : {false, true}) {
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Value* x = main.add_param(TensorType{DType::f32, {1, 3, 16, 16}}, "x");
      main.set_outputs({resnet ? mb.resnet(x) : mb.mobilenet(x)});
    });
    // Both from the printed module, so that their constants have the same names.
    std::unique_ptr<Module> by_driver = copy(*m), by_hand = copy(*m);
    ASSERT_TRUE(build::partition_for_targets(
                    *by_driver, build::parse_targets(ctx, {"vanilla"}).value(), options())
                    .ok());
    auto passes =
        parse_pipeline(ctx.passes(),
                       "merge-composite{targets=vanilla},annotate-target{targets=vanilla},"
                       "merge-compiler-regions,partition-graph");
    ASSERT_TRUE(passes.ok()) << passes.error().message();
    auto changed = passes->run(*by_hand);
    ASSERT_TRUE(changed.ok()) << changed.error().message();
    EXPECT_TRUE(*changed);
    const Target host = build::parse_targets(ctx, {"vanilla"}).value().host;
    for (auto pass : {backends::pack_weights, backends::layout_nchwc})
      ASSERT_TRUE(pass(*by_hand, host).ok());
    EXPECT_EQ(to_string(*by_driver), to_string(*by_hand)) << (resnet ? "resnet" : "mobilenet");
    EXPECT_NE(to_string(*by_driver).find("Compiler = \"vanilla\""), std::string::npos);
  }
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
