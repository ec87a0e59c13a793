// Patterns over the graph's structure: results of multi-result nodes, tuples and get_item,
// and dominator chains of elementwise ops.
#include <gtest/gtest.h>

#include "pattern_test_util.h"
#include "uma/graph/ir.h"

namespace uma {
namespace {

using Names = std::vector<std::string>;

const char* kTuples = R"(
func @main(%x: tensor<1x4x2x2xf32>, %y: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %s:2 = split(%x) {axis = 1, sections = 2} : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32> loc("split1")
  %m = multiply(%s#0, %s#1) : tensor<1x2x2x2xf32> loc("mul1")
  %t = tuple(%s#0, %y) : tuple<tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>> loc("tup")
  %g = get_item(%t) {index = 0} : tensor<1x2x2x2xf32> loc("item0")
  %n = nn.relu(%g) : tensor<1x2x2x2xf32> loc("relu_item")
  %p = nn.relu(%s#1) : tensor<1x2x2x2xf32> loc("relu_s1")
  return %m, %n, %p
}
)";

class TuplePatterns : public PatternTest {
 protected:
  void SetUp() override { parse(kTuples); }
  PatternPtr split = is_op("split");
};

TEST_F(TuplePatterns, GetItemSelectsResultsOfAMultiResultNode) {
  PatternPtr first = is_tuple_get_item(split, 0);
  PatternPtr second = is_tuple_get_item(split, 1);
  PatternPtr pattern = is_op("multiply", {first, second});
  EXPECT_EQ(pattern->to_string(), "multiply(split(...)#0, split(...)#1)");
  Match m = matched(match(*pattern, value("mul1")));
  EXPECT_EQ(name_of(m[first]), "split1#0");
  EXPECT_EQ(name_of(m[second]), "split1#1");
  EXPECT_EQ(name_of(m[split]), "split1#0");  // the node, through the result met first
  EXPECT_EQ(names(m.nodes), (Names{"split1", "mul1"}));
  EXPECT_EQ(names(m.inputs), (Names{"%x"}));

  // Any index; two get_items of one split pattern select results of one node.
  PatternPtr any = is_tuple_get_item(split);
  EXPECT_EQ(any->to_string(), "split(...)#*");
  Match both = matched(match(*is_op("multiply", {any, is_tuple_get_item(split)}), value("mul1")));
  EXPECT_EQ(names(both.nodes), (Names{"split1", "mul1"}));
  // One get_item pattern used twice binds one value, like any other pattern.
  EXPECT_EQ(failed(match(*is_op("multiply", {any, any}), value("mul1"))).pattern, any.get());

  MatchFailure f =
      failed(match(*is_op("multiply", {is_tuple_get_item(split, 1), first}), value("mul1")));
  EXPECT_EQ(f.reason, "expected result 1, found result 0 of split");
  EXPECT_EQ(f.to_string(),
            "at operand 0 of node 'mul1' (multiply): expected result 1, found result 0 of split");
  EXPECT_EQ(failed(match(*first, param("x"))).reason, "expected result 0, found parameter %x");
}

TEST_F(TuplePatterns, OpPatternMatchesAnyResultButBindsOneValue) {
  Match m = matched(match(*is_op("nn.relu", {split}), value("relu_s1")));
  EXPECT_EQ(names(m.nodes), (Names{"split1", "relu_s1"}));
  EXPECT_EQ(name_of(m[split]), "split1#1");
  // Used twice without a get_item, the split pattern must bind one value.
  MatchFailure f = failed(match(*is_op("multiply", {split, split}), value("mul1")));
  EXPECT_EQ(f.pattern, split.get());
  EXPECT_EQ(f.reason,
            "expected the value bound where the pattern was met first, result 0 of node "
            "'split1' (split), found result 1 of node 'split1' (split)");
}

TEST_F(TuplePatterns, GetItemOfATupleNode) {
  PatternPtr first_half = is_tuple_get_item(split, 0);
  PatternPtr tuple = is_tuple({first_half, wildcard()});
  PatternPtr pattern = is_op("nn.relu", {is_tuple_get_item(tuple, 0)});
  EXPECT_EQ(pattern->to_string(), "nn.relu(tuple(split(...)#0, *)#0)");
  Match m = matched(match(*pattern, value("relu_item")));
  EXPECT_EQ(name_of(m[tuple]), "tup");
  EXPECT_EQ(names(m.nodes), (Names{"split1", "tup", "item0", "relu_item"}));
  EXPECT_EQ(names(m.inputs), (Names{"%x", "%y"}));

  MatchFailure f = failed(match(*is_tuple_get_item(tuple, 1), value("item0")));
  EXPECT_EQ(f.to_string(), "at node 'item0' (get_item): get_item index is 0, expected 1");
  EXPECT_EQ(failed(match(*is_tuple({wildcard()}), value("tup"))).reason,
            "field count 2, expected 1");
  EXPECT_EQ(failed(match(*is_tuple({}), value("relu_item"))).reason,
            "expected a tuple, found nn.relu");
}

// conv1 feeds a chain add1 -> relu1 -> mul1 and mul1 directly (a diamond); join adds a
// value whose own elementwise op does not lead back to the convolution.
const char* kChain = R"(
func @main(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32> loc("w")
  %c = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv1")
  %a = add(%c, %y) : tensor<1x2x4x4xf32> loc("add1")
  %r = nn.relu(%a) : tensor<1x2x4x4xf32> loc("relu1")
  %m = multiply(%r, %c) : tensor<1x2x4x4xf32> loc("mul1")
  %ry = nn.relu(%y) : tensor<1x2x4x4xf32> loc("ry")
  %j = add(%m, %ry) : tensor<1x2x4x4xf32> loc("join")
  return %j
}
)";

class DominatorPatterns : public PatternTest {
 protected:
  PatternPtr conv = is_op("nn.conv2d", {wildcard(), is_constant()});
  PatternPtr elementwise = is_op({"add", "nn.relu", "multiply"});
  // The same pattern object as path and child: the path binds nothing.
  PatternPtr chain = dominates(conv, elementwise, elementwise);
};

TEST_F(DominatorPatterns, AcceptsElementwiseChainsAfterAConvolution) {
  parse(kChain);
  EXPECT_EQ(chain->to_string(),
            "dominates(nn.conv2d(*, const), {add, nn.relu, multiply}(...), "
            "{add, nn.relu, multiply}(...))");
  Match m = matched(match(*chain, value("mul1")));
  EXPECT_EQ(names(m.nodes), (Names{"w", "conv1", "add1", "relu1", "mul1"}));
  EXPECT_EQ(names(m.inputs), (Names{"%x", "%y"}));
  EXPECT_EQ(name_of(m[conv]), "conv1");
  EXPECT_EQ(name_of(m[elementwise]), "mul1");
  EXPECT_EQ(name_of(m[chain]), "mul1");

  EXPECT_EQ(names(matched(match(*chain, value("add1"))).nodes), (Names{"w", "conv1", "add1"}));
  EXPECT_EQ(names(matched(match(*chain, value("relu1"))).nodes),
            (Names{"w", "conv1", "add1", "relu1"}));

  // relu(%y) is elementwise but does not lead back to the convolution: it is an input.
  Match joined = matched(match(*chain, value("join")));
  EXPECT_EQ(names(joined.nodes), (Names{"w", "conv1", "add1", "relu1", "mul1", "join"}));
  EXPECT_EQ(names(joined.inputs), (Names{"ry", "%x", "%y"}));
}

TEST_F(DominatorPatterns, RejectsAChainWithoutParent) {
  parse(kChain);
  MatchFailure f = failed(match(*chain, value("ry")));
  EXPECT_EQ(f.pattern, chain.get());
  EXPECT_EQ(f.to_string(),
            "at node 'ry' (nn.relu): no operand leads back to a node matching "
            "nn.conv2d(*, const)");
  // The child's own failure comes first.
  EXPECT_EQ(failed(match(*chain, value("conv1"))).reason,
            "expected add, nn.relu or multiply, found nn.conv2d");
}

TEST_F(DominatorPatterns, RejectsAnInteriorNodeUsedOutsideTheChain) {
  parse(R"(
func @main(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32> loc("w")
  %c = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv1")
  %a = add(%c, %y) : tensor<1x2x4x4xf32> loc("add1")
  %r = nn.relu(%a) : tensor<1x2x4x4xf32> loc("relu1")
  %m = multiply(%r, %c) : tensor<1x2x4x4xf32> loc("mul1")
  %o = sigmoid(%r) : tensor<1x2x4x4xf32> loc("other")
  return %m, %o
}
)");
  MatchFailure f = failed(match(*chain, value("mul1")));
  EXPECT_EQ(f.pattern, chain.get());
  EXPECT_EQ(f.value, value("relu1"));
  EXPECT_EQ(f.reason,
            "value of node 'relu1' (nn.relu) is used outside the chain by node 'other' (sigmoid)");
  // A chain that ends before the outside use is fine.
  matched(match(*chain, value("relu1")));
}

TEST_F(DominatorPatterns, RejectsAnInteriorNodeThatIsAnOutput) {
  parse(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32> loc("w")
  %c = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv1")
  %r = nn.relu(%c) : tensor<1x2x4x4xf32> loc("relu1")
  %m = multiply(%r, %r) : tensor<1x2x4x4xf32> loc("mul1")
  return %m, %r
}
)");
  EXPECT_EQ(failed(match(*chain, value("mul1"))).reason,
            "value of node 'relu1' (nn.relu) is used outside the chain by the function's outputs");
}

TEST_F(DominatorPatterns, RejectsTwoDifferentParents) {
  parse(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32> loc("w")
  %c1 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv1")
  %c2 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv2")
  %r = nn.relu(%c1) : tensor<1x2x4x4xf32> loc("relu1")
  %a = add(%r, %c2) : tensor<1x2x4x4xf32> loc("add1")
  return %a
}
)");
  MatchFailure f = failed(match(*chain, value("add1")));
  EXPECT_EQ(f.to_string(),
            "at operand 1 of node 'add1' (add): the chain leads back to two parents, node "
            "'conv1' (nn.conv2d) and node 'conv2' (nn.conv2d)");
}

// Without loc(...) names, a reason names other nodes by their values' names (an unnamed
// node's location is its position, too costly to find at every failed match); the place of
// the failure, shown only on demand, keeps the full location.
TEST_F(DominatorPatterns, UnnamedNodesAreNamedByTheirValues) {
  parse(R"(
func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %c1 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32>
  %c2 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32>
  %a = add(%c1, %c2) : tensor<1x2x4x4xf32>
  return %a
}
)");
  Value* add = main_->nodes().back()->result();
  EXPECT_EQ(failed(match(*chain, add)).to_string(),
            "at operand 1 of node #3 (add) in function @main: the chain leads back to two "
            "parents, node %c1 (nn.conv2d) and node %c2 (nn.conv2d)");
}

}  // namespace
}  // namespace uma
