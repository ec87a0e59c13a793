// The pattern language: ops, constants, inputs, alternatives, optional chains, diamonds,
// attribute and type predicates; the exact words of each failure, and the nearest miss
// through alternatives. Tuples and dominators are in pattern_structure_test.cc.
#include <gtest/gtest.h>

#include <algorithm>

#include "pattern_test_util.h"
#include "uma/graph/ir.h"

namespace uma {
namespace {

using Names = std::vector<std::string>;

// Convolutions alone and followed by a bias add and/or a relu, and a few odd nodes.
const char* kConvs = R"(
func @main(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>, %wp: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32> loc("w")
  %b = constant {value = dense<[0.5, -0.5]> : tensor<2x1x1xf32>} : tensor<2x1x1xf32> loc("b")
  %wg = constant {value = dense<[1.0, 2.0]> : tensor<2x1x1x1xf32>} : tensor<2x1x1x1xf32> loc("wg")
  %c0 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv_alone")
  %c1 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv_b")
  %a1 = add(%c1, %b) : tensor<1x2x4x4xf32> loc("bias_b")
  %c2 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv_r")
  %r2 = nn.relu(%c2) : tensor<1x2x4x4xf32> loc("relu_r")
  %c3 = nn.conv2d(%x, %w) : tensor<1x2x4x4xf32> loc("conv_br")
  %a3 = add(%c3, %b) : tensor<1x2x4x4xf32> loc("bias_br")
  %r3 = nn.relu(%a3) : tensor<1x2x4x4xf32> loc("relu_br")
  %cp = nn.conv2d(%x, %wp) : tensor<1x2x4x4xf32> loc("conv_param")
  %ay = add(%cp, %y) : tensor<1x2x4x4xf32> loc("add_y")
  %ry = nn.relu(%ay) : tensor<1x2x4x4xf32> loc("relu_y")
  %pool = nn.max_pool2d(%x) {pool_size = [1, 1]} : tensor<1x2x4x4xf32> loc("pool1")
  %g = nn.conv2d(%x, %wg) {groups = 2} : tensor<1x2x4x4xf32> loc("grouped")
  %s = nn.conv2d(%x, %w) {strides = [2, 2]} : tensor<1x2x2x2xf32> loc("strided")
  %rx = nn.relu(%x) : tensor<1x2x4x4xf32> loc("rx")
  %ryy = nn.relu(%y) : tensor<1x2x4x4xf32> loc("ry")
  %double = add(%rx, %rx) : tensor<1x2x4x4xf32> loc("double")
  %mixed = add(%rx, %ryy) : tensor<1x2x4x4xf32> loc("mixed")
  %self = add(%rx, %x) : tensor<1x2x4x4xf32> loc("self")
  return %c0, %a1, %r2, %r3, %ry, %pool, %g, %s, %double, %mixed, %self
}
)";

class Patterns : public PatternTest {
 protected:
  void SetUp() override { parse(kConvs); }

  PatternPtr conv = is_op("nn.conv2d", {wildcard(), is_constant()});
  PatternPtr bias = is_op("add", {conv, is_constant()});
  PatternPtr conv_or_bias = alt(bias, conv);
  PatternPtr relu = is_op("nn.relu", {conv_or_bias});
  PatternPtr chain = alt(relu, conv_or_bias);
};

TEST_F(Patterns, OpBindsEachSubPatternAndListsNodesAndInputs) {
  Match m = matched(match(*bias, value("bias_b")));
  EXPECT_EQ(m.root, value("bias_b"));
  EXPECT_EQ(name_of(m[bias]), "bias_b");
  EXPECT_EQ(name_of(m[conv]), "conv_b");
  EXPECT_EQ(name_of(m[conv->operands->at(0)]), "%x");
  EXPECT_EQ(name_of(m[conv->operands->at(1)]), "w");
  EXPECT_EQ(name_of(m[bias->operands->at(1)]), "b");
  EXPECT_EQ(m.bindings.size(), 5u);
  EXPECT_EQ(names(m.nodes), (Names{"w", "conv_b", "b", "bias_b"}));
  EXPECT_EQ(names(m.inputs), (Names{"%x"}));
}

TEST_F(Patterns, OptionalChainMatchesEachLengthLongestFirst) {
  // The same pattern, built with optional().
  PatternPtr built = optional(optional(conv,
                                       [](PatternPtr p) {
                                         return is_op("add", {std::move(p), is_constant()});
                                       }),
                              [](PatternPtr p) { return is_op("nn.relu", {std::move(p)}); });
  EXPECT_EQ(built->to_string(), chain->to_string());

  for (const PatternPtr& pattern : {chain, built}) {
    EXPECT_EQ(names(matched(match(*pattern, value("conv_alone"))).nodes),
              (Names{"w", "conv_alone"}));
    EXPECT_EQ(names(matched(match(*pattern, value("bias_b"))).nodes),
              (Names{"w", "conv_b", "b", "bias_b"}));
    EXPECT_EQ(names(matched(match(*pattern, value("relu_r"))).nodes),
              (Names{"w", "conv_r", "relu_r"}));
    Match full = matched(match(*pattern, value("relu_br")));
    EXPECT_EQ(names(full.nodes), (Names{"w", "conv_br", "b", "bias_br", "relu_br"}));
    EXPECT_EQ(names(full.inputs), (Names{"%x"}));
  }
  // Which alternative matched shows in the bindings; the one that failed left none.
  Match conv_relu = matched(match(*chain, value("relu_r")));
  EXPECT_EQ(name_of(conv_relu[relu]), "relu_r");
  EXPECT_EQ(conv_relu[bias], nullptr);
  EXPECT_EQ(name_of(conv_relu[conv_or_bias]), "conv_r");
  EXPECT_EQ(name_of(conv_relu[chain]), "relu_r");
  Match conv_bias = matched(match(*chain, value("bias_b")));
  EXPECT_EQ(conv_bias[relu], nullptr);
  EXPECT_EQ(name_of(conv_bias[bias]), "bias_b");
}

TEST_F(Patterns, FailedAlternativeLeavesNoBindings) {
  PatternPtr any_add = is_op("add", {wildcard(), wildcard()});
  PatternPtr either = alt(bias, any_add);
  // bias matches add and the conv, then fails at the conv's weight: a parameter.
  Match m = matched(match(*either, value("add_y")));
  EXPECT_EQ(m[conv], nullptr);
  EXPECT_EQ(m[conv->operands->at(0)], nullptr);
  EXPECT_EQ(m[bias], nullptr);
  EXPECT_EQ(m.bindings.size(), 4u);  // either, any_add and its two wildcards
  EXPECT_EQ(names(m.nodes), (Names{"add_y"}));
  EXPECT_EQ(names(m.inputs), (Names{"conv_param", "%y"}));
}

TEST_F(Patterns, LaterFailureBacktracksIntoAnEarlierAlternative) {
  // add(relu(w) | w, w) on add(%rx, %rx): relu(w) binds w = %x, and the second operand
  // (%rx) then differs; the other branch binds w = %rx and matches.
  PatternPtr w = wildcard();
  PatternPtr pattern = is_op("add", {alt(is_op("nn.relu", {w}), w), w});
  Match m = matched(match(*pattern, value("double")));
  EXPECT_EQ(name_of(m[w]), "rx");
  EXPECT_EQ(names(m.nodes), (Names{"double"}));
  EXPECT_EQ(names(m.inputs), (Names{"rx"}));
}

TEST_F(Patterns, SharedSubPatternBindsOneValue) {
  PatternPtr r = is_op("nn.relu", {wildcard()});
  PatternPtr twice = is_op("add", {r, r});
  Match m = matched(match(*twice, value("double")));
  EXPECT_EQ(names(m.nodes), (Names{"rx", "double"}));
  EXPECT_EQ(names(m.inputs), (Names{"%x"}));

  MatchFailure f = failed(match(*twice, value("mixed")));
  EXPECT_EQ(f.pattern, r.get());
  EXPECT_EQ(f.reason,
            "expected the value bound where the pattern was met first, node 'rx' (nn.relu), "
            "found node 'ry' (nn.relu)");
  EXPECT_EQ(f.to_string(),
            "at operand 1 of node 'mixed' (add): expected the value bound where the pattern was "
            "met first, node 'rx' (nn.relu), found node 'ry' (nn.relu)");

  PatternPtr w = wildcard();
  PatternPtr through_relu = is_op("add", {is_op("nn.relu", {w}), w});
  Match self = matched(match(*through_relu, value("self")));
  EXPECT_EQ(names(self.nodes), (Names{"rx", "self"}));
  EXPECT_EQ(names(self.inputs), (Names{"%x"}));
  EXPECT_EQ(failed(match(*through_relu, value("double"))).reason,
            "expected the value bound where the pattern was met first, parameter %x, found "
            "node 'rx' (nn.relu)");
}

TEST_F(Patterns, RootMismatchNamesBothOps) {
  MatchFailure f = failed(match(*conv, value("pool1")));
  EXPECT_EQ(f.pattern, conv.get());
  EXPECT_EQ(f.value, value("pool1"));
  EXPECT_EQ(f.user, nullptr);
  EXPECT_EQ(f.progress, 0);
  EXPECT_EQ(f.reason, "expected nn.conv2d, found nn.max_pool2d");
  EXPECT_EQ(f.to_string(),
            "at node 'pool1' (nn.max_pool2d): expected nn.conv2d, found nn.max_pool2d");
  EXPECT_EQ(failed(match(*conv, param("x"))).to_string(),
            "at parameter %x: expected nn.conv2d, found parameter %x");
}

TEST_F(Patterns, OpSetsConstantsInputsAndOperandCounts) {
  PatternPtr add_or_mul = is_op({"add", "multiply"}, {wildcard(), wildcard()});
  EXPECT_EQ(names(matched(match(*add_or_mul, value("bias_b"))).nodes), (Names{"bias_b"}));
  EXPECT_EQ(failed(match(*add_or_mul, value("relu_r"))).reason,
            "expected add or multiply, found nn.relu");
  EXPECT_EQ(failed(match(*is_op({"add", "multiply", "subtract"}), value("relu_r"))).reason,
            "expected add, multiply or subtract, found nn.relu");

  PatternPtr relu_of_input = is_op("nn.relu", {is_input()});
  Match m = matched(match(*relu_of_input, value("rx")));
  EXPECT_EQ(names(m.inputs), (Names{"%x"}));
  EXPECT_EQ(failed(match(*relu_of_input, value("relu_r"))).reason,
            "expected an input, found nn.conv2d");

  MatchFailure f = failed(match(*conv, value("conv_param")));
  EXPECT_EQ(f.pattern, conv->operands->at(1).get());
  EXPECT_EQ(f.progress, 2);
  EXPECT_EQ(f.to_string(),
            "at operand 1 of node 'conv_param' (nn.conv2d): expected a constant, found "
            "parameter %wp");

  EXPECT_EQ(failed(match(*is_op("nn.conv2d", {wildcard()}), value("conv_alone"))).reason,
            "operand count 2, expected 1");
}

TEST_F(Patterns, OpenOperandsAreInputs) {
  Match m = matched(match(*is_op("add"), value("bias_b")));
  EXPECT_EQ(names(m.nodes), (Names{"bias_b"}));
  EXPECT_EQ(names(m.inputs), (Names{"conv_b", "b"}));
  // Unless the match computes them itself.
  Match r = matched(match(*is_op("nn.relu", {is_op("add")}), value("relu_br")));
  EXPECT_EQ(names(r.nodes), (Names{"bias_br", "relu_br"}));
  EXPECT_EQ(names(r.inputs), (Names{"conv_br", "b"}));
}

TEST_F(Patterns, NearestMissIsTheDeepestFailure) {
  // relu(bias | conv) | (bias | conv) at relu(add(conv(%x, %wp), %y)): the deepest attempt
  // got through relu, add, conv and %x before the weight.
  MatchFailure f = failed(match(*chain, value("relu_y")));
  EXPECT_EQ(f.progress, 4);
  EXPECT_EQ(f.pattern, conv->operands->at(1).get());
  EXPECT_EQ(f.to_string(),
            "at operand 1 of node 'conv_param' (nn.conv2d): expected a constant, found "
            "parameter %wp");
}

TEST_F(Patterns, AttributePredicates) {
  PatternPtr ungrouped =
      has_attr(is_op("nn.conv2d", {wildcard(), wildcard()}), "groups", Attribute{std::int64_t{1}});
  EXPECT_EQ(ungrouped->to_string(), "nn.conv2d(*, *)[groups is 1]");
  Match m = matched(match(*ungrouped, value("conv_alone")));
  EXPECT_EQ(name_of(m[ungrouped]), "conv_alone");
  MatchFailure f = failed(match(*ungrouped, value("grouped")));
  EXPECT_EQ(f.pattern, ungrouped.get());
  EXPECT_EQ(f.progress, 3);
  EXPECT_EQ(f.to_string(), "at node 'grouped' (nn.conv2d): attribute 'groups' is 2, expected is 1");

  auto all_ones = [](const Attribute& a) {
    const auto* ints = std::get_if<std::vector<std::int64_t>>(&a);
    return ints != nullptr &&
           std::all_of(ints->begin(), ints->end(), [](std::int64_t i) { return i == 1; });
  };
  PatternPtr unstrided = has_attr(conv, "strides", all_ones, "is all ones");
  EXPECT_EQ(unstrided->to_string(), "nn.conv2d(*, const)[strides is all ones]");
  matched(match(*unstrided, value("conv_alone")));
  EXPECT_EQ(failed(match(*unstrided, value("strided"))).reason,
            "attribute 'strides' is [2, 2], expected is all ones");

  EXPECT_EQ(
      failed(match(*has_attr(is_op("nn.relu"), "groups", Attribute{std::int64_t{1}}), value("rx")))
          .reason,
      "attribute 'groups' is missing, expected is 1");
  EXPECT_EQ(failed(match(*has_attr(wildcard(), "groups", Attribute{std::int64_t{1}}), param("x")))
                .to_string(),
            "at parameter %x: expected a node with attribute 'groups', found parameter %x");
  EXPECT_EQ(has_attr(is_op("nn.pad"), "mode", Attribute{std::string("reflect")})->to_string(),
            "nn.pad(...)[mode is \"reflect\"]");
}

TEST_F(Patterns, NearestMissThroughAlternativesIsTheAttribute) {
  PatternPtr ungrouped = has_attr(conv, "groups", Attribute{std::int64_t{1}});
  PatternPtr dense = is_op("nn.dense", {wildcard(), wildcard()});
  for (const PatternPtr& pattern : {alt(dense, ungrouped), alt(ungrouped, dense)}) {
    MatchFailure f = failed(match(*pattern, value("grouped")));
    EXPECT_EQ(f.pattern, ungrouped.get());
    EXPECT_EQ(f.reason, "attribute 'groups' is 2, expected is 1");
  }
  // Equally deep misses: the first alternative's is reported.
  EXPECT_EQ(failed(match(*alt(dense, conv), value("pool1"))).reason,
            "expected nn.dense, found nn.max_pool2d");
}

const char* kTypes = R"(
func @main(%h: tensor<1x3xf16>, %f: tensor<1x3xf32>) -> (tensor<1x3xf16>, tensor<1x3xf32>) {
  %rh = nn.relu(%h) : tensor<1x3xf16> loc("relu_h")
  %rf = nn.relu(%f) : tensor<1x3xf32> loc("relu_f")
  return %rh, %rf
}
)";

TEST_F(PatternTest, DtypeShapeAndRankPredicates) {
  parse(kTypes);
  PatternPtr relu = is_op("nn.relu", {wildcard()});
  PatternPtr f32 = has_dtype(relu, DType::f32);
  EXPECT_EQ(f32->to_string(), "nn.relu(*)[dtype f32]");
  matched(match(*f32, value("relu_f")));
  MatchFailure f = failed(match(*f32, value("relu_h")));
  EXPECT_EQ(f.pattern, f32.get());
  EXPECT_EQ(f.reason, "type tensor<1x3xf16> does not have dtype f32");

  matched(match(*has_shape(relu, {1, 3}), value("relu_h")));
  EXPECT_EQ(failed(match(*has_shape(relu, {1, 4}), value("relu_f"))).reason,
            "type tensor<1x3xf32> does not have shape 1x4");
  EXPECT_EQ(has_shape(relu, {})->to_string(), "nn.relu(*)[a scalar shape]");

  PatternPtr rank2 = has_rank(relu, 2);
  matched(match(*rank2, value("relu_f")));
  EXPECT_EQ(failed(match(*has_rank(relu, 4), value("relu_f"))).reason,
            "type tensor<1x3xf32> does not have rank 4");

  PatternPtr wide = has_type(
      is_input(), [](const Type& t) { return t.is_tensor() && t.tensor().shape.back() >= 8; },
      "a last dimension of at least 8");
  EXPECT_EQ(wide->to_string(), "input[a last dimension of at least 8]");
  EXPECT_EQ(failed(match(*wide, param("h"))).to_string(),
            "at parameter %h: type tensor<1x3xf16> does not have a last dimension of at least 8");
}

TEST(PatternText, CompositePatternsPrintCompactly) {
  PatternPtr conv = is_op("nn.conv2d", {wildcard(), is_constant()});
  PatternPtr chain = is_op("nn.relu", {is_op("add", {conv, is_constant()})});
  EXPECT_EQ(chain->to_string(), "nn.relu(add(nn.conv2d(*, const), const))");
  PatternPtr optional_bias = optional(conv, [](PatternPtr p) {
    return is_op("add", {std::move(p), is_constant()});
  });
  EXPECT_EQ(optional_bias->to_string(), "(add(nn.conv2d(*, const), const) | nn.conv2d(*, const))");
  EXPECT_EQ(is_op({"add", "multiply"}, {wildcard(), is_input()})->to_string(),
            "{add, multiply}(*, input)");
  EXPECT_EQ(is_op("nn.relu")->to_string(), "nn.relu(...)");
  EXPECT_EQ(has_rank(has_dtype(is_op("nn.relu"), DType::f32), 4)->to_string(),
            "nn.relu(...)[dtype f32][rank 4]");
}

}  // namespace
}  // namespace uma
