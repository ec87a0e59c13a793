// Unit tests of annotate-target: the targets it gives nodes (including composite calls,
// whose attributes the text format does not show), and what it records in the partition
// report for the targets that did not get a node.
#include <gtest/gtest.h>

#include "test_targets.h"
#include "uma/graph/parser.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

class AnnotateTargetTest : public ::testing::Test {
 protected:
  AnnotateTargetTest() { register_test_targets(context_.partition_targets()); }

  // Parses `text` and runs merge-composite (when `merge`) and annotate-target for
  // `targets`, recording into report_.
  void run(std::string_view text, std::vector<std::string> targets, bool merge = true) {
    auto parsed = parse_module(context_, text, "test.uma");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    module_ = std::move(*parsed);
    report_.begin(*module_, targets);
    PartitionOptions options{.targets = targets, .report = &report_};
    if (merge) {
      auto merged = create_merge_composite_pass(options)->run(*module_);
      ASSERT_TRUE(merged.ok()) << merged.error().message();
    }
    auto annotated = create_annotate_target_pass(options)->run(*module_);
    ASSERT_TRUE(annotated.ok()) << annotated.error().message();
  }

  // The uma.target of @main's node named `name`, or "" when it has none.
  std::string target_of(std::string_view name) const {
    for (const auto& node : module_->find_function("main")->nodes())
      if (node->name() == name) return node->attrs().string_or_none(kTargetAttr).value_or("");
    ADD_FAILURE() << "no node " << name;
    return "";
  }

  // The rejections of the recorded node `name`, as "target: kind (detail)" lines.
  std::vector<std::string> rejections(std::string_view name) const {
    for (const NodeRecord& r : report_.records()) {
      if (r.name != name) continue;
      std::vector<std::string> out;
      for (const Rejection& j : r.rejections)
        out.push_back(fmt::format("{}: {} ({})", j.target, rejection_text(j.kind), j.detail));
      return out;
    }
    ADD_FAILURE() << "no record of node " << name;
    return {};
  }

  using Lines = std::vector<std::string>;

  Context context_;
  std::unique_ptr<Module> module_;
  PartitionReport report_;
};

constexpr std::string_view kConvReluTanh = R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv")
  %1 = nn.relu(%0) : tensor<1x2x4x4xf32> loc("relu")
  %y = tanh(%1) : tensor<1x2x4x4xf32> loc("tanh")
  return %y
}
)";

TEST_F(AnnotateTargetTest, ACompositeCallGoesToTheTargetItsNameStartsWith) {
  run(kConvReluTanh, {"test_conv", "test_elem"});
  // The call keeps the name of the composite's root, the relu.
  EXPECT_EQ(target_of("relu"), "test_conv");
  EXPECT_EQ(target_of("tanh"), "test_elem");
  // test_elem comes after the composite's target.
  Lines claimed{"test_elem: claimed by a higher-priority target (test_conv)"};
  EXPECT_EQ(rejections("conv"), claimed);
  EXPECT_EQ(rejections("relu"), claimed);
  // merge-composite explained already why test_conv did not take the tanh.
  EXPECT_EQ(rejections("tanh"),
            Lines{"test_conv: no pattern matched (test_conv.conv2d_residual: at node 'tanh' "
                  "(tanh): expected nn.relu or clip, found tanh)"});
}

TEST_F(AnnotateTargetTest, AnEarlierTargetSaysWhyItDoesNotRunAComposite) {
  run(kConvReluTanh, {"test_elem", "test_conv"});
  EXPECT_EQ(target_of("relu"), "test_conv");
  Lines composite{"test_elem: op not supported (@test_conv.conv2d_0 is a composite of test_conv)"};
  EXPECT_EQ(rejections("conv"), composite);
  EXPECT_EQ(rejections("relu"), composite);
}

TEST_F(AnnotateTargetTest, OpsGoToTheFirstTargetThatSupportsThem) {
  // Without merge-composite, test_conv (composites only) claims nothing.
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>, %h: tensor<4xf16>) -> (tensor<1x2x2x2xf32>, tensor<4xf16>) {
  %0 = nn.relu(%x) : tensor<1x2x4x4xf32> loc("relu")
  %y = nn.max_pool2d(%0) {pool_size = [2, 2], strides = [2, 2]} : tensor<1x2x2x2xf32> loc("pool")
  %z = nn.relu(%h) : tensor<4xf16> loc("relu_f16")
  return %y, %z
}
)",
      {"test_conv", "test_elem"}, /*merge=*/false);
  EXPECT_EQ(target_of("relu"), "test_elem");
  EXPECT_EQ(target_of("pool"), "");
  EXPECT_EQ(target_of("relu_f16"), "");
  EXPECT_EQ(rejections("relu"),
            Lines{"test_conv: op not supported (test_conv takes only composites)"});
  EXPECT_EQ(rejections("pool"),
            (Lines{"test_conv: op not supported (test_conv takes only composites)",
                   "test_elem: op not supported (nn.max_pool2d is not elementwise)"}));
  EXPECT_EQ(rejections("relu_f16"),
            (Lines{"test_conv: op not supported (test_conv takes only composites)",
                   "test_elem: op not supported (f16 is not supported)"}));
}

TEST_F(AnnotateTargetTest, ALaterTargetIsToldWhoClaimedTheNode) {
  run(R"(
func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %y = exp(%x) : tensor<4xf32> loc("exp")
  return %y
}
)",
      {"test_elem", "test_dense"}, /*merge=*/false);
  EXPECT_EQ(target_of("exp"), "test_elem");
  EXPECT_EQ(rejections("exp"),
            Lines{"test_dense: claimed by a higher-priority target (test_elem)"});
}

TEST_F(AnnotateTargetTest, TuplesGoWithTheirOperands) {
  run(R"(
func @main(%x: tensor<2xf32>, %p: tensor<2xf32>) -> (tensor<2xf32>, tuple<tensor<2xf32>, tensor<2xf32>>) {
  %0 = exp(%x) : tensor<2xf32> loc("exp")
  %1 = negative(%x) : tensor<2xf32> loc("neg")
  %t = tuple(%0, %1) : tuple<tensor<2xf32>, tensor<2xf32>> loc("both")
  %g = get_item(%t) {index = 1} : tensor<2xf32> loc("second")
  %m = tuple(%0, %p) : tuple<tensor<2xf32>, tensor<2xf32>> loc("mixed")
  return %g, %m
}
)",
      {"test_elem"});
  EXPECT_EQ(target_of("both"), "test_elem");
  EXPECT_EQ(target_of("second"), "test_elem");
  EXPECT_EQ(target_of("mixed"), "");
  EXPECT_EQ(rejections("mixed"),
            Lines{"test_elem: op not supported (tuple goes with its operands, which are not all on "
                  "test_elem)"});
}

TEST_F(AnnotateTargetTest, RunningTwiceChangesNothing) {
  run(kConvReluTanh, {"test_conv", "test_elem"});
  auto again = create_annotate_target_pass({.targets = {"test_conv", "test_elem"}})->run(*module_);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST_F(AnnotateTargetTest, ABadTargetAttributeIsAnError) {
  auto module = parse_module(context_, R"(
func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %y = exp(%x) {uma.target = 3} : tensor<4xf32> loc("exp")
  return %y
}
)");
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto run = create_annotate_target_pass({.targets = {"test_elem"}})->run(**module);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().message(),
            "node 'exp' (exp): attribute 'uma.target' is int, it must be a string");
}

}  // namespace
}  // namespace uma
