// Unit tests of merge-composite: what it records in the partition report (composites,
// rejections and nearest misses) and its errors. The rewrites themselves are checked as text
// in tests/lit/partition/merge_composite.uma.
#include <gtest/gtest.h>

#include <random>

#include "test_targets.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

class MergeCompositeTest : public ::testing::Test {
 protected:
  MergeCompositeTest() { register_test_targets(context_.partition_targets()); }

  // Parses `text` and runs merge-composite for `targets`, recording into report_.
  void run(std::string_view text, std::vector<std::string> targets) {
    auto parsed = parse_module(context_, text, "test.uma");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    module_ = std::move(*parsed);
    report_.begin(*module_, targets);
    auto pass = create_merge_composite_pass({.targets = targets, .report = &report_});
    auto changed = pass->run(*module_);
    ASSERT_TRUE(changed.ok()) << changed.error().message();
  }

  const NodeRecord& record(std::string_view name) const {
    for (const NodeRecord& r : report_.records())
      if (r.name == name) return r;
    ADD_FAILURE() << "no record of node " << name;
    static const NodeRecord none;
    return none;
  }

  // The rejections of node `name` by `target`, as "kind: detail" lines.
  std::vector<std::string> rejections(std::string_view name, std::string_view target) const {
    std::vector<std::string> out;
    for (const Rejection& r : record(name).rejections)
      if (r.target == target)
        out.push_back(fmt::format("{}: {}", rejection_text(r.kind), r.detail));
    return out;
  }

  using Lines = std::vector<std::string>;

  Context context_;
  std::unique_ptr<Module> module_;
  PartitionReport report_;
};

TEST_F(MergeCompositeTest, RecordsTheNodesEachCompositeReplaced) {
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %b = constant {value = dense<[0.5, -0.5]> : tensor<2x1x1xf32>} : tensor<2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv")
  %1 = add(%0, %b) : tensor<1x2x4x4xf32> loc("bias")
  %2 = nn.relu(%1) : tensor<1x2x4x4xf32> loc("relu")
  %y = nn.max_pool2d(%2) {pool_size = [2, 2], strides = [2, 2]} : tensor<1x2x2x2xf32> loc("pool")
  return %y
}
)",
      {"test_conv"});
  for (const char* name : {"conv", "bias", "relu"}) {
    EXPECT_EQ(record(name).composite, "test_conv.conv2d") << name;
    EXPECT_EQ(rejections(name, "test_conv"), Lines{}) << name;
  }
  EXPECT_EQ(record("pool").composite, "");
  // Every pattern fails at the pool's own op; the first (in priority order) is reported.
  EXPECT_EQ(rejections("pool", "test_conv"),
            Lines{"no pattern matched: test_conv.conv2d_residual: at node 'pool' (nn.max_pool2d): "
                  "expected nn.relu or clip, found nn.max_pool2d"});
}

TEST_F(MergeCompositeTest, TheNearestMissIsThePatternThatGotFurthest) {
  // At the gelu, test_dense's first pattern (dense) fails at the add's operand, which is no
  // nn.dense; its second (matmul) gets further: gelu, add, matmul, then a constant bias
  // expected where a parameter is found. At the relu, dense gets furthest.
  run(R"(
func @main(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %m: tensor<4x3xf32>, %p: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.dense(%x, %w) : tensor<2x3xf32> loc("dense")
  %y = nn.relu(%0) : tensor<2x3xf32> loc("relu")
  %1 = nn.matmul(%x, %m) : tensor<2x3xf32> loc("matmul")
  %2 = add(%1, %p) : tensor<2x3xf32> loc("sum")
  %z = nn.gelu(%2) : tensor<2x3xf32> loc("gelu")
  return %y, %z
}
)",
      {"test_dense"});
  EXPECT_EQ(rejections("relu", "test_dense"),
            Lines{"no pattern matched: test_dense.dense: at operand 1 of node 'dense' (nn.dense): "
                  "expected a constant, found parameter %w"});
  EXPECT_EQ(rejections("gelu", "test_dense"),
            Lines{"no pattern matched: test_dense.matmul: at operand 1 of node 'sum' (add): "
                  "expected a constant, found parameter %p"});
  EXPECT_EQ(record("matmul").composite, "test_dense.matmul");
}

TEST_F(MergeCompositeTest, APredicateRejectsWithItsReason) {
  run(R"(
func @main(%x: tensor<1x4x2x2xf32>) -> (tensor<1x4x2x2xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<4x2x1x1xf32>} : tensor<4x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) {groups = 2} : tensor<1x4x2x2xf32> loc("grouped")
  %y = nn.relu(%0) : tensor<1x4x2x2xf32> loc("relu")
  return %y
}
)",
      {"test_conv"});
  // The match rooted at the relu and the one rooted at the convolution are both rejected;
  // each node lists the reason once.
  Lines expected{"predicate rejected: groups is 2; test_conv runs groups 1 or depthwise"};
  EXPECT_EQ(rejections("grouped", "test_conv"), expected);
  EXPECT_EQ(rejections("relu", "test_conv"), expected);
  EXPECT_EQ(record("relu").composite, "");
}

TEST_F(MergeCompositeTest, AnInteriorValueLeadingBackToTheRootWouldMakeACycle) {
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv")
  %1 = tanh(%0) : tensor<1x2x4x4xf32> loc("tanh")
  %2 = add(%0, %1) : tensor<1x2x4x4xf32> loc("sum")
  %y = nn.relu(%2) : tensor<1x2x4x4xf32> loc("relu")
  return %y
}
)",
      {"test_conv"});
  Lines cycle{"would create a cycle: node 'tanh' (tanh)"};
  EXPECT_EQ(rejections("relu", "test_conv"), cycle);
  EXPECT_EQ(rejections("sum", "test_conv"), cycle);
  // The convolution alone is taken.
  EXPECT_EQ(record("conv").composite, "test_conv.conv2d");
  EXPECT_EQ(rejections("conv", "test_conv"), Lines{});
  EXPECT_EQ(rejections("tanh", "test_conv"),
            Lines{"no pattern matched: test_conv.conv2d_residual: at node 'tanh' (tanh): expected "
                  "nn.relu or clip, found tanh"});
}

// An inverted residual block (MobileNetV2's): the sum's first operand is a convolution that
// the block also reads, so taking it as the residual's convolution would need its own
// result. The matcher goes back into the pattern's other alternative: the block's last
// convolution, with the first as the residual.
TEST_F(MergeCompositeTest, ARefusedMatchBacktracksIntoTheOtherAlternative) {
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("first")
  %1 = nn.conv2d(%0, %w) : tensor<1x2x4x4xf32> loc("last")
  %y = add(%0, %1) : tensor<1x2x4x4xf32> loc("sum")
  return %y
}
)",
      {"test_conv"});
  EXPECT_EQ(record("sum").composite, "test_conv.conv2d_residual");
  EXPECT_EQ(record("last").composite, "test_conv.conv2d_residual");
  EXPECT_EQ(rejections("sum", "test_conv"), Lines{});
  EXPECT_EQ(record("first").composite, "test_conv.conv2d");
  std::string text = to_string(*module_);
  // The first convolution's result is both the last one's data and the residual.
  EXPECT_NE(text.find("%y = call @test_conv.conv2d_residual_0(%0)"), std::string::npos) << text;
}

TEST_F(MergeCompositeTest, AnInteriorValueUsedElsewhereEscapes) {
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %b = constant {value = dense<[0.5, -0.5]> : tensor<2x1x1xf32>} : tensor<2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv")
  %1 = add(%0, %b) : tensor<1x2x4x4xf32> loc("bias")
  %y = nn.relu(%1) : tensor<1x2x4x4xf32> loc("relu")
  %t = tanh(%1) : tensor<1x2x4x4xf32>
  return %y, %t
}
)",
      {"test_conv"});
  // The tanh has no name: its value's name stands for it.
  EXPECT_EQ(rejections("relu", "test_conv"), Lines{"value needed outside: node %t (tanh)"});
  EXPECT_EQ(record("bias").composite, "test_conv.conv2d");
}

TEST_F(MergeCompositeTest, AnInteriorValueTheFunctionReturnsEscapes) {
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv")
  %y = nn.relu(%0) : tensor<1x2x4x4xf32> loc("relu")
  return %y, %0
}
)",
      {"test_conv"});
  EXPECT_EQ(rejections("relu", "test_conv"),
            Lines{"value needed outside: output 1 of function @main"});
  EXPECT_EQ(record("conv").composite, "test_conv.conv2d");
}

TEST_F(MergeCompositeTest, ALaterTargetDoesNotExplainNodesAnEarlierOneTook) {
  // test_conv takes the 1x1 convolution first; test_dense, which could take it too, leaves
  // the reason to annotate-target (claimed by a higher-priority target).
  run(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv")
  %y = nn.relu(%0) : tensor<1x2x4x4xf32> loc("relu")
  return %y
}
)",
      {"test_conv", "test_dense"});
  EXPECT_EQ(record("conv").composite, "test_conv.conv2d");
  EXPECT_EQ(record("conv").rejections.size(), 0u);
  EXPECT_EQ(record("relu").rejections.size(), 0u);
}

TEST_F(MergeCompositeTest, TargetsMustBeKnownAndGiven) {
  auto module = parse_module(
      context_, "func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n  return %x\n}\n");
  ASSERT_TRUE(module.ok());
  auto unknown = create_merge_composite_pass({.targets = {"test_conv", "npu"}})->run(**module);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(),
            "unknown partition target 'npu' (known targets: test_conv, test_dense, test_elem, "
            "test_int8)");
  auto none = create_merge_composite_pass({})->run(**module);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(),
            "no target to partition for: name them, e.g. merge-composite{targets=a,b}");
}

// ---- The match filter ----

// A random function of the ops the test targets' patterns look for, all on
// tensor<1x2x3x3xf32>: convolutions with constant 1x1 weights (and biases), adds of constants
// (either side) and of values, relu, clip, sigmoid and SiLU, gelu, matmuls with constant and
// computed right-hand sides, tanh. Values feed several users at random.
std::string random_function(std::mt19937_64& rng) {
  const std::string type = "tensor<1x2x3x3xf32>";
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<std::string> values = {"%x"}, lines;
  std::size_t next = 0;
  auto constant = [&](const std::string& shape, std::size_t count) {
    std::string name = fmt::format("%c{}", next++), data;
    for (std::size_t i = 0; i < count; ++i)
      data += fmt::format("{}{}.5", i ? ", " : "", static_cast<int>(pick(5)) - 2);
    lines.push_back(fmt::format("  {} = constant {{value = dense<[{}]> : tensor<{}>}} : tensor<{}>",
                                name, data, shape, shape));
    return name;
  };
  auto value = [&] {
    return values[values.size() - 1 - pick(std::min<std::size_t>(values.size(), 4))];
  };
  auto emit = [&](const std::string& expression) {
    std::string name = fmt::format("%v{}", next++);
    lines.push_back(fmt::format("  {} = {} : {}", name, expression, type));
    values.push_back(name);
    return name;
  };
  std::size_t count = 4 + pick(30);
  for (std::size_t i = 0; i < count; ++i) {
    switch (pick(12)) {
      case 0:
      case 1: {
        std::string w = constant("2x2x1x1xf32", 4);
        emit(pick(2) ? fmt::format("nn.conv2d({}, {})", value(), w)
                     : fmt::format("nn.conv2d({}, {}, {})", value(), w, constant("2xf32", 2)));
        break;
      }
      case 2: {
        std::string b = constant("2x1x1xf32", 2);
        emit(pick(2) ? fmt::format("add({}, {})", value(), b)
                     : fmt::format("add({}, {})", b, value()));
        break;
      }
      case 3:
        emit(fmt::format("add({}, {})", value(), value()));
        break;
      case 4:
        emit(fmt::format("nn.relu({})", value()));
        break;
      case 5:
        emit(fmt::format("clip({}) {{a_min = 0.0, a_max = 6.0}}", value()));
        break;
      case 6: {
        std::string x = value();
        std::string s = emit(fmt::format("sigmoid({})", x));
        emit(pick(2) ? fmt::format("multiply({}, {})", x, s)
                     : fmt::format("multiply({}, {})", s, x));
        break;
      }
      case 7:
        emit(fmt::format("nn.gelu({})", value()));
        break;
      case 8:
        emit(fmt::format("nn.matmul({}, {})", value(), constant("3x3xf32", 9)));
        break;
      case 9:
        emit(fmt::format("nn.matmul({}, {})", value(), value()));
        break;
      default:
        emit(fmt::format("tanh({})", value()));
        break;
    }
  }
  std::string outputs, output_types;
  for (const std::string& v : values) {
    bool used = v == "%x";
    for (const std::string& line : lines)
      used = used || line.find(v + ")") != std::string::npos ||
             line.find(v + ",") != std::string::npos;
    if (used && !(v == values.back() || pick(8) == 0)) continue;
    outputs += (outputs.empty() ? "" : ", ") + v;
    output_types += (output_types.empty() ? "" : ", ") + type;
  }
  std::string text = fmt::format("func @main(%x: {}) -> ({}) {{\n", type, output_types);
  for (const std::string& line : lines) text += line + "\n";
  return text + "  return " + outputs + "\n}\n";
}

// Without a report, merge-composite runs the matcher only where its match filter
// (src/partition/match_filter.h) cannot rule the pattern out; with one, at every node, to
// find the nearest miss. The filter must rule out only matches that fail: on random
// functions, both ways take the same composites.
TEST(MergeCompositeFilter, RulesOutOnlyMatchesThatFail) {
  std::mt19937_64 rng(20250214);
  int composites = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text = random_function(rng);
    std::vector<std::string> targets = {"test_conv", "test_dense"};
    if (rng() % 2) std::swap(targets[0], targets[1]);
    std::string results[2];
    for (bool with_report : {false, true}) {
      Context context;
      register_test_targets(context.partition_targets());
      auto module = parse_module(context, text, "random.uma");
      ASSERT_TRUE(module.ok()) << module.error().message() << "\n" << text;
      PartitionReport report;
      report.begin(**module, targets);
      auto pass = create_merge_composite_pass(
          {.targets = targets, .report = with_report ? &report : nullptr});
      auto changed = pass->run(**module);
      ASSERT_TRUE(changed.ok()) << changed.error().message() << "\n" << text;
      results[with_report] = to_string(**module);
      if (with_report) composites += static_cast<int>((*module)->num_functions()) - 1;
    }
    EXPECT_EQ(results[0], results[1]) << text;
  }
  EXPECT_GT(composites, 600);  // the functions do hold what the patterns take
}

}  // namespace
}  // namespace uma
