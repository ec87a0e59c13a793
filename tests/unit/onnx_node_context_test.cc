// Unit tests of NodeContext (what converters see of an ONNX node) and ConverterTable: typed
// attribute access with its errors, constant inputs, and node creation.
#include <gtest/gtest.h>

#include "../../src/frontend/onnx/converter.h"
#include "tensor_util.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/uma/context.h"

namespace uma::onnx_import {
namespace {

using test::f32;

class NodeContextTest : public ::testing::Test {
 protected:
  NodeContextTest()
      : module_(context_), function_(**module_.add_function("main")), builder_(function_) {
    node_.set_op_type("Test");
    node_.set_name("n");
    x_ = function_.add_param(TensorType{DType::f32, {2}}, "x");
    c_ = builder_.constant(f32({2}, {1, 2}));
  }

  onnx::AttributeProto& attr(const std::string& name, onnx::AttributeProto::AttributeType type) {
    onnx::AttributeProto* a = node_.add_attribute();
    a->set_name(name);
    a->set_type(type);
    return *a;
  }
  NodeContext context(std::vector<Value*> inputs = {}, std::int64_t opset = 13) {
    return NodeContext(node_, std::move(inputs), opset, builder_);
  }

  template <typename T>
  static std::string error_of(const Expected<T>& result) {
    EXPECT_FALSE(result.ok());
    return result.ok() ? "" : result.error().message();
  }

  Context context_;
  Module module_;
  Function& function_;
  Builder builder_;
  onnx::NodeProto node_;
  Value* x_;
  Value* c_;
};

TEST_F(NodeContextTest, AttributesOfEachType) {
  attr("i", onnx::AttributeProto::INT).set_i(-4);
  attr("f", onnx::AttributeProto::FLOAT).set_f(0.5f);
  attr("s", onnx::AttributeProto::STRING).set_s("edge");
  auto& ints = attr("is", onnx::AttributeProto::INTS);
  ints.add_ints(1);
  ints.add_ints(2);
  auto& floats = attr("fs", onnx::AttributeProto::FLOATS);
  floats.add_floats(1.5f);
  *attr("t", onnx::AttributeProto::TENSOR).mutable_t() = tensor_to_onnx(*f32({1}, {3}));
  NodeContext ctx = context();
  EXPECT_TRUE(ctx.has_attr("i"));
  EXPECT_FALSE(ctx.has_attr("nope"));
  EXPECT_EQ(*ctx.attr_int("i", std::nullopt), -4);
  EXPECT_EQ(*ctx.attr_float("f", std::nullopt), 0.5);
  EXPECT_EQ(*ctx.attr_float("i", std::nullopt), -4.0);  // an int where a float is expected
  EXPECT_EQ(*ctx.attr_string("s", std::nullopt), "edge");
  EXPECT_EQ(*ctx.attr_ints("is", std::nullopt), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(*ctx.attr_floats("fs", std::nullopt), std::vector<double>{1.5});
  EXPECT_EQ(test::values_of(**ctx.attr_tensor("t")), std::vector<double>{3});
  EXPECT_EQ(ctx.opset(), 13);
  EXPECT_EQ(ctx.op_type(), "Test");
}

TEST_F(NodeContextTest, AbsentAttributesTakeTheFallbackOrAreRequired) {
  NodeContext ctx = context();
  EXPECT_EQ(*ctx.attr_int("axis", 1), 1);
  EXPECT_EQ(*ctx.attr_string("mode", "constant"), "constant");
  EXPECT_EQ(*ctx.attr_ints("pads", std::vector<std::int64_t>{}), std::vector<std::int64_t>{});
  EXPECT_EQ(error_of(ctx.attr_int("axis", std::nullopt)), "attribute 'axis' is required");
  EXPECT_EQ(error_of(ctx.attr_floats("scales", std::nullopt)), "attribute 'scales' is required");
  EXPECT_EQ(error_of(ctx.attr_tensor("value")), "attribute 'value' is required");
}

TEST_F(NodeContextTest, WrongAttributeTypesNameTheAttribute) {
  attr("axis", onnx::AttributeProto::FLOAT).set_f(1);
  attr("perm", onnx::AttributeProto::INT).set_i(1);
  attr("mode", onnx::AttributeProto::INTS);
  attr("value", onnx::AttributeProto::GRAPH);
  NodeContext ctx = context();
  EXPECT_EQ(error_of(ctx.attr_int("axis", 0)), "attribute 'axis' has type FLOAT, expected INT");
  EXPECT_EQ(error_of(ctx.attr_ints("perm", std::nullopt)),
            "attribute 'perm' has type INT, expected INTS");
  EXPECT_EQ(error_of(ctx.attr_string("mode", std::nullopt)),
            "attribute 'mode' has type INTS, expected STRING");
  EXPECT_EQ(error_of(ctx.attr_tensor("value")),
            "attribute 'value' has type GRAPH, expected TENSOR");
}

// Models from before attribute types were recorded say the type by the field they set.
TEST_F(NodeContextTest, UntypedAttributesAreReadByTheirField) {
  attr("axis", onnx::AttributeProto::UNDEFINED).set_i(2);
  attr("alpha", onnx::AttributeProto::UNDEFINED).set_f(0.25f);
  NodeContext ctx = context();
  EXPECT_EQ(*ctx.attr_int("axis", std::nullopt), 2);
  EXPECT_EQ(*ctx.attr_float("alpha", std::nullopt), 0.25);
  EXPECT_EQ(error_of(ctx.attr_int("alpha", std::nullopt)),
            "attribute 'alpha' has type UNDEFINED, expected INT");
}

TEST_F(NodeContextTest, ConstantInputs) {
  NodeContext ctx = context({x_, c_, nullptr});
  EXPECT_EQ(ctx.num_inputs(), 3u);
  EXPECT_TRUE(ctx.has_input(0));
  EXPECT_FALSE(ctx.has_input(2));
  EXPECT_FALSE(ctx.has_input(7));
  EXPECT_EQ(ctx.input(2), nullptr);
  EXPECT_EQ(ctx.constant_input(0), nullptr);
  EXPECT_EQ(ctx.constant_input(1), c_->producer()->attrs().get_tensor("value"));
  EXPECT_EQ(*ctx.require_constant_input(1, "shape"), ctx.constant_input(1));
  // The error names the model's input to bind, and how.
  EXPECT_EQ(error_of(ctx.require_constant_input(0, "shape")),
            "input 0 ('shape') must be a constant: uma needs its value at build time; it is the "
            "model's input 'x', so give its value with --bind x=FILE");
  EXPECT_EQ(error_of(ctx.require_constant_input(2, "axes")), "input 2 ('axes') is missing");
  // An input that decides the results' shapes says why it must be known.
  EXPECT_EQ(*ctx.require_shaping_input(1, "X"), ctx.constant_input(1));
  EXPECT_EQ(error_of(ctx.require_shaping_input(0, "X")),
            "input 0 ('X') must be a constant: the node's output shape depends on its values, "
            "and uma's shapes are static; it is the model's input 'x', so give its value with "
            "--bind x=FILE");
  EXPECT_EQ(error_of(ctx.require_shaping_input(2, "axes")), "input 2 ('axes') is missing");
}

TEST_F(NodeContextTest, AValueComputedFromInputsNamesThemAndARunGivesIt) {
  Value* y = function_.add_param(TensorType{DType::f32, {2}}, "y");
  Value* sum = builder_.value("add", {x_, y});
  EXPECT_EQ(error_of(context({sum}).require_constant_input(0, "shape")),
            "input 0 ('shape') must be a constant: uma needs its value at build time, but it is "
            "computed at run time from the model's input(s) 'x', 'y'; give their values with "
            "--bind NAME=FILE");
  // A run's value of the model's input serves, when its type is the input's.
  std::map<std::string, TensorPtr, std::less<>> run_inputs{{"x", f32({2}, {3, 4})}};
  NodeContext ctx(node_, {x_}, 13, builder_, nullptr, &run_inputs);
  EXPECT_EQ(*ctx.require_constant_input(0, "shape"), run_inputs["x"]);
  run_inputs["x"] = f32({3}, {3, 4, 5});
  EXPECT_EQ(error_of(ctx.require_constant_input(0, "shape")),
            "input 0 ('shape'): the value given for the model's input 'x' is tensor<3xf32>, but "
            "the input is tensor<2xf32>");
}

TEST_F(NodeContextTest, EmittedNodesAreNamedAfterTheOnnxNode) {
  NodeContext ctx = context({x_});
  auto value = ctx.emit_value("nn.relu", {x_});
  ASSERT_TRUE(value.ok()) << value.error().message();
  EXPECT_EQ((*value)->producer()->name(), "n");
  EXPECT_EQ(ctx.constant(f32({1}, {0}))->producer()->name(), "n");
  EXPECT_EQ(error_of(ctx.emit("no_such_op", {x_})), "no_such_op: unknown op no_such_op");
  EXPECT_EQ(error_of(ctx.emit_value("add", {x_})), "add: op add takes 2 operand(s), got 1");
}

TEST(ConverterTableTest, FindsAndListsConverters) {
  ConverterTable table;
  table.add("B", 1,
            [](NodeContext&) -> Expected<std::vector<Value*>> { return std::vector<Value*>{}; });
  table.add("A", 7,
            [](NodeContext&) -> Expected<std::vector<Value*>> { return std::vector<Value*>{}; });
  ASSERT_NE(table.find("A"), nullptr);
  EXPECT_EQ(table.find("A")->since, 7);
  EXPECT_EQ(table.find("C"), nullptr);
  EXPECT_EQ(table.op_types(), (std::vector<std::string>{"A", "B"}));
}

}  // namespace
}  // namespace uma::onnx_import
