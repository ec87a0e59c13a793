// Unit tests of the partition report and of the node costs it records: a small module whose
// partitioning is played by hand (what the passes call), printed as a table, JSON and dot.
#include <gtest/gtest.h>

#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/op/cost.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

std::unique_ptr<Module> parse(Context& context, std::string_view text) {
  auto module = parse_module(context, text, "test.uma");
  EXPECT_TRUE(module.ok()) << (module.ok() ? "" : module.error().message());
  return module.ok() ? std::move(*module) : nullptr;
}

// The nodes of @main in order, constants left out.
std::vector<Node*> op_nodes(const Module& module) {
  std::vector<Node*> nodes;
  for (Node* node : module.find_function("main")->node_list())
    if (!node->is_op("constant")) nodes.push_back(node);
  return nodes;
}

// ---- Costs ----

TEST(NodeCost, CountsTheProductsOfConvolutionsAndMatrixProducts) {
  Context context;
  auto module = parse(context, R"(
func @main(%x: tensor<2x4x10xf32>, %a: tensor<5x3x4xf32>, %b: tensor<4x6xf32>, %v: tensor<4xf32>) -> (tensor<2x6x8xf32>, tensor<2x3x21xf32>, tensor<5x3x6xf32>, tensor<5x3xf32>, tensor<5x3x6xf32>) {
  %w = constant {value = @w} : tensor<6x2x3xf32>
  %wt = constant {value = @wt} : tensor<4x3x3xf32>
  %d = constant {value = @d} : tensor<6x4xf32>
  %0 = nn.conv1d(%x, %w) {groups = 2} : tensor<2x6x8xf32>
  %1 = nn.conv1d_transpose(%x, %wt) {strides = [2]} : tensor<2x3x21xf32>
  %2 = nn.matmul(%a, %b) : tensor<5x3x6xf32>
  %3 = nn.matmul(%a, %v) : tensor<5x3xf32>
  %4 = nn.dense(%a, %d) : tensor<5x3x6xf32>
  return %0, %1, %2, %3, %4
}
data @w : tensor<6x2x3xf32> = elided
data @wt : tensor<4x3x3xf32> = elided
data @d : tensor<6x4xf32> = elided
)");
  ASSERT_NE(module, nullptr);
  std::vector<Node*> nodes = op_nodes(*module);
  ASSERT_EQ(nodes.size(), 5u);
  // Each of the 2*6*8 outputs sums 4 / 2 channels times 3 taps.
  EXPECT_EQ(node_cost(*nodes[0]).macs, 2 * 6 * 8 * 2 * 3);
  // Each of the 2*4*10 inputs scatters into 3 output channels times 3 taps.
  EXPECT_EQ(node_cost(*nodes[1]).macs, 2 * 4 * 10 * 3 * 3);
  EXPECT_EQ(node_cost(*nodes[2]).macs, 5 * 3 * 6 * 4);
  EXPECT_EQ(node_cost(*nodes[3]).macs, 5 * 3 * 4);
  EXPECT_EQ(node_cost(*nodes[4]).macs, 5 * 3 * 6 * 4);
  // Bytes: the result, plus the constant weight; parameters are not counted.
  EXPECT_EQ(node_cost(*nodes[0]).bytes, (2 * 6 * 8 + 6 * 2 * 3) * 4);
  EXPECT_EQ(node_cost(*nodes[2]).bytes, 5 * 3 * 6 * 4);
}

TEST(NodeCost, ACallCostsWhatItsCalleeDoesPlusTheConstantsItIsGiven) {
  Context context;
  auto module = parse(context, R"(
func @main(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>) {
  %w = constant {value = @w} : tensor<3x4xf32>
  %b = constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %0 = call @f(%x, %b) : tensor<2x3xf32>
  %1 = call @f(%x, %b) : tensor<2x3xf32>
  %2 = add(%0, %1) : tensor<2x3xf32>
  return %2
}
func @f(%x: tensor<2x4xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>) attributes {Composite = "t.dense_bias"} {
  %w = constant {value = @w} : tensor<3x4xf32>
  %0 = nn.dense(%x, %w) : tensor<2x3xf32>
  %1 = add(%0, %b) : tensor<2x3xf32>
  return %1
}
data @w : tensor<3x4xf32> = elided
)");
  ASSERT_NE(module, nullptr);
  std::vector<Node*> nodes = op_nodes(*module);
  ASSERT_EQ(nodes.size(), 3u);
  NodeCost call = node_cost(*nodes[0]);
  EXPECT_EQ(call.macs, 2 * 3 * 4);
  // dense: result 24 + weight 48; add: result 24; the bias passed in: 12.
  EXPECT_EQ(call.bytes, 24 + 48 + 24 + 12);
  EXPECT_EQ(node_cost(*nodes[2]).macs, 0);
  EXPECT_EQ(node_cost(*nodes[2]).bytes, 24);
}

TEST(NodeCost, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(saturating_add(INT64_MAX - 1, 5), INT64_MAX);
  EXPECT_EQ(saturating_add(2, 3), 5);
}

// ---- The report ----

constexpr std::string_view kModule = R"(
module @m

func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x2x2xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32>
  %0 = nn.conv2d(%x, %w) : tensor<1x3x4x4xf32> loc("conv1")
  %1 = nn.relu(%0) : tensor<1x3x4x4xf32> loc("relu1")
  %2 = nn.max_pool2d(%1) {pool_size = [2, 2], strides = [2, 2]} : tensor<1x3x2x2xf32> loc("pool \"a\"")
  %3 = add(%2, %2) : tensor<1x3x2x2xf32>
  return %3
}
)";

// What the passes would record for kModule with targets test_conv and test_elem: conv and
// relu become one test_conv composite, the pool stays on the host, the add goes to
// test_elem.
class PartitionReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = parse(context_, kModule);
    ASSERT_NE(module_, nullptr);
    report_.begin(*module_, {"test_conv", "test_elem"});
    std::vector<Node*> nodes = op_nodes(*module_);
    ASSERT_EQ(nodes.size(), 4u);
    Node *conv = nodes[0], *relu = nodes[1], *pool = nodes[2], *add = nodes[3];

    // A stand-in for the composite function: the report only needs a call node.
    Function* composite = *module_->add_function("test_conv.conv2d_relu_0");
    composite->mutable_attrs().set(std::string(kCompositeAttr), "test_conv.conv2d_relu");
    composite->set_outputs({composite->add_param(conv->operand(0)->type())});
    Builder builder(*module_->find_function("main"));
    builder.set_insertion_point(conv);
    Node* call = builder.call(composite, {conv->operand(0)});

    report_.replaced_by({conv, relu}, call, "test_conv.conv2d_relu");
    report_.reject(call, "test_elem", RejectionKind::ClaimedByHigherPriority, "test_conv");
    for (NodeRecord* r : report_.records_of(call)) {
      r->target = "test_conv";
      r->region = "m_test_conv_main_0";
    }
    report_.reject(pool, "test_conv", RejectionKind::NoPatternMatched,
                   "nn.max_pool2d is not nn.conv2d");
    report_.reject(pool, "test_elem", RejectionKind::OpNotSupported,
                   "nn.max_pool2d is not elementwise");
    // A repeated rejection is recorded once.
    report_.reject(pool, "test_elem", RejectionKind::OpNotSupported,
                   "nn.max_pool2d is not elementwise");
    report_.reject(add, "test_conv", RejectionKind::NoPatternMatched, "add is not nn.conv2d");
    for (NodeRecord* r : report_.records_of(add)) {
      r->target = "test_elem";
      r->region = "m_test_elem_main_1";
    }
  }

  Context context_;
  std::unique_ptr<Module> module_;
  PartitionReport report_;
};

TEST_F(PartitionReportTest, RecordsEveryNodeButConstants) {
  const std::vector<NodeRecord>& records = report_.records();
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].name, "conv1");
  EXPECT_EQ(records[0].macs, 3 * 4 * 4 * 2);
  EXPECT_EQ(records[0].bytes, 48 * 4 + 6 * 4);
  EXPECT_EQ(records[1].inputs, std::vector<std::size_t>{0});
  // add reads the pool twice: one input.
  EXPECT_EQ(records[3].inputs, std::vector<std::size_t>{2});
  EXPECT_EQ(records[2].rejections.size(), 2u);
}

TEST_F(PartitionReportTest, ACompositeCallStandsForTheNodesItReplaced) {
  std::vector<Node*> nodes = op_nodes(*module_);
  ASSERT_TRUE(nodes[0]->is_op("call"));
  std::vector<NodeRecord*> records = report_.records_of(nodes[0]);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]->op, "nn.conv2d");
  EXPECT_EQ(records[1]->op, "nn.relu");
  // The replaced nodes no longer stand for anything.
  EXPECT_TRUE(report_.records_of(nodes[1]).empty());
}

TEST_F(PartitionReportTest, Table) {
  EXPECT_EQ(report_.to_table(),
            "id  name      op             target     composite              other targets\n"
            "0   conv1     nn.conv2d      test_conv  test_conv.conv2d_relu  test_elem: claimed "
            "by a higher-priority target (test_conv)\n"
            "1   relu1     nn.relu        test_conv  test_conv.conv2d_relu  test_elem: claimed "
            "by a higher-priority target (test_conv)\n"
            "2   pool \"a\"  nn.max_pool2d  host       -                      test_conv: no "
            "pattern matched (nn.max_pool2d is not nn.conv2d); test_elem: op not supported "
            "(nn.max_pool2d is not elementwise)\n"
            "3   -         add            test_elem  -                      test_conv: no "
            "pattern matched (add is not nn.conv2d)\n"
            "\n"
            "target     nodes      regions  MACs         bytes\n"
            "test_conv  2 (50.0%)  1        96 (100.0%)  408 (81.0%)\n"
            "test_elem  1 (25.0%)  1        0 (0.0%)     48 (9.5%)\n"
            "host       1 (25.0%)  -        0 (0.0%)     48 (9.5%)\n"
            "total      4          2        96           504\n");
}

TEST_F(PartitionReportTest, Json) {
  EXPECT_EQ(report_.to_json(), R"json({
  "nodes": [
    {
      "bytes": 216,
      "composite": "test_conv.conv2d_relu",
      "function": "main",
      "id": 0,
      "inputs": [],
      "macs": 96,
      "name": "conv1",
      "op": "nn.conv2d",
      "region": "m_test_conv_main_0",
      "rejections": [
        {
          "detail": "test_conv",
          "kind": "ClaimedByHigherPriority",
          "reason": "claimed by a higher-priority target",
          "target": "test_elem"
        }
      ],
      "target": "test_conv"
    },
    {
      "bytes": 192,
      "composite": "test_conv.conv2d_relu",
      "function": "main",
      "id": 1,
      "inputs": [
        0
      ],
      "macs": 0,
      "name": "relu1",
      "op": "nn.relu",
      "region": "m_test_conv_main_0",
      "rejections": [
        {
          "detail": "test_conv",
          "kind": "ClaimedByHigherPriority",
          "reason": "claimed by a higher-priority target",
          "target": "test_elem"
        }
      ],
      "target": "test_conv"
    },
    {
      "bytes": 48,
      "composite": null,
      "function": "main",
      "id": 2,
      "inputs": [
        1
      ],
      "macs": 0,
      "name": "pool \"a\"",
      "op": "nn.max_pool2d",
      "region": null,
      "rejections": [
        {
          "detail": "nn.max_pool2d is not nn.conv2d",
          "kind": "NoPatternMatched",
          "reason": "no pattern matched",
          "target": "test_conv"
        },
        {
          "detail": "nn.max_pool2d is not elementwise",
          "kind": "OpNotSupported",
          "reason": "op not supported",
          "target": "test_elem"
        }
      ],
      "target": null
    },
    {
      "bytes": 48,
      "composite": null,
      "function": "main",
      "id": 3,
      "inputs": [
        2
      ],
      "macs": 0,
      "name": "",
      "op": "add",
      "region": "m_test_elem_main_1",
      "rejections": [
        {
          "detail": "add is not nn.conv2d",
          "kind": "NoPatternMatched",
          "reason": "no pattern matched",
          "target": "test_conv"
        }
      ],
      "target": "test_elem"
    }
  ],
  "summary": [
    {
      "bytes": 408,
      "macs": 96,
      "nodes": 2,
      "regions": 1,
      "target": "test_conv"
    },
    {
      "bytes": 48,
      "macs": 0,
      "nodes": 1,
      "regions": 1,
      "target": "test_elem"
    },
    {
      "bytes": 48,
      "macs": 0,
      "nodes": 1,
      "regions": 0,
      "target": null
    }
  ],
  "targets": [
    "test_conv",
    "test_elem"
  ]
}
)json");
}

TEST_F(PartitionReportTest, Dot) {
  EXPECT_EQ(report_.to_dot(), R"dot(digraph partition {
  graph [fontname="Helvetica"];
  node [shape=box, style=filled, fontname="Helvetica"];
  n0 [label="0 conv1\nnn.conv2d\ntest_conv.conv2d_relu", fillcolor="#8dd3c7", tooltip="test_elem: claimed by a higher-priority target (test_conv)"];
  n1 [label="1 relu1\nnn.relu\ntest_conv.conv2d_relu", fillcolor="#8dd3c7", tooltip="test_elem: claimed by a higher-priority target (test_conv)"];
  n2 [label="2 pool \"a\"\nnn.max_pool2d", fillcolor="#eeeeee", tooltip="test_conv: no pattern matched (nn.max_pool2d is not nn.conv2d)\ntest_elem: op not supported (nn.max_pool2d is not elementwise)"];
  n3 [label="3\nadd", fillcolor="#fdb462", tooltip="test_conv: no pattern matched (add is not nn.conv2d)"];
  n0 -> n1;
  n1 -> n2;
  n2 -> n3;
  subgraph cluster_0 {
    label="m_test_conv_main_0";
    style=dashed;
    n0; n1;
  }
  subgraph cluster_1 {
    label="m_test_elem_main_1";
    style=dashed;
    n3;
  }
  subgraph cluster_legend {
    label="legend";
    legend_0 [label="test_conv", fillcolor="#8dd3c7"];
    legend_1 [label="test_elem", fillcolor="#fdb462"];
    legend_host [label="host", fillcolor="#eeeeee"];
  }
}
)dot");
}

TEST(PartitionReport, RecordsWhatAnEarlierPartitioningPlaced) {
  Context context;
  auto module = parse(context, R"(
module @m
func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %0 = call @m_test_elem_main_0(%x) : tensor<4xf32>
  %1 = nn.relu(%0) {uma.target = "test_elem"} : tensor<4xf32>
  %2 = nn.relu(%1) : tensor<4xf32>
  return %2
}
func @m_test_elem_main_0(%x: tensor<4xf32>) -> (tensor<4xf32>) attributes {Compiler = "test_elem", global_symbol = "m_test_elem_main_0"} {
  %0 = nn.relu(%x) : tensor<4xf32>
  %1 = nn.relu(%0) : tensor<4xf32>
  return %1
}
)");
  ASSERT_NE(module, nullptr);
  PartitionReport report;
  report.begin(*module, {"test_conv"});
  ASSERT_EQ(report.records().size(), 3u);
  EXPECT_EQ(report.records()[0].target, "test_elem");
  EXPECT_EQ(report.records()[0].region, "m_test_elem_main_0");
  EXPECT_EQ(report.records()[0].bytes, 32);
  EXPECT_EQ(report.records()[1].target, "test_elem");
  EXPECT_EQ(report.records()[2].target, "");
  std::vector<TargetSummary> summary = report.summary();
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0].target, "test_conv");
  EXPECT_EQ(summary[1].target, "test_elem");
  EXPECT_EQ(summary[1].nodes, 2);
  EXPECT_EQ(summary[1].regions, 1);
  EXPECT_EQ(summary[2].target, "host");
  EXPECT_EQ(summary[2].nodes, 1);
}

TEST(PartitionReport, ACallOfAnotherHostFunctionDoesNotCountItsNodesTwice) {
  Context context;
  auto module = parse(context, R"(
func @main(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>) {
  %0 = call @helper(%x) : tensor<2x3xf32>
  return %0
}
func @helper(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>) {
  %w = constant {value = @w} : tensor<3x4xf32>
  %0 = nn.dense(%x, %w) : tensor<2x3xf32>
  return %0
}
data @w : tensor<3x4xf32> = elided
)");
  ASSERT_NE(module, nullptr);
  PartitionReport report;
  report.begin(*module, {});
  ASSERT_EQ(report.records().size(), 2u);
  EXPECT_EQ(report.records()[0].function, "main");
  EXPECT_EQ(report.records()[0].macs, 0);
  EXPECT_EQ(report.records()[0].bytes, 24);
  EXPECT_EQ(report.records()[1].function, "helper");
  EXPECT_EQ(report.records()[1].macs, 2 * 3 * 4);
  EXPECT_EQ(report.summary().back().macs, 2 * 3 * 4);
}

TEST(PartitionReport, JsonReplacesBytesThatAreNotUtf8) {
  Context context;
  auto module = parse(context, R"(
func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %0 = nn.relu(%x) : tensor<4xf32> loc("bad\xff")
  return %0
}
)");
  ASSERT_NE(module, nullptr);
  PartitionReport report;
  report.begin(*module, {});
  EXPECT_NE(report.to_json().find("\"name\": \"bad\xef\xbf\xbd\""), std::string::npos);
}

TEST(PartitionReport, RejectionTexts) {
  EXPECT_EQ(rejection_text(RejectionKind::WouldCreateCycle), "would create a cycle");
  EXPECT_EQ(rejection_id(RejectionKind::RegionTooSmall), "RegionTooSmall");
}

}  // namespace
}  // namespace uma
