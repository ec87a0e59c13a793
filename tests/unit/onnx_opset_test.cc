// Unit tests of models at old opsets (1 to 6): each converter is registered with the first
// opset whose definition of its op it implements, and a node of an older one is refused by
// name; the legacy broadcasting of binary ops before 7, and Concat's default axis before 4.
#include <gtest/gtest.h>

#include "onnx_importer_test_util.h"
#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::OnnxGraph;
using test::OnnxModel;
using test::values_of;
using Values = std::vector<double>;

class OnnxOpsetTest : public test::OnnxConverterTest {};

TEST_F(OnnxOpsetTest, RefusesAnOpDefinedOtherwiseAtTheModelsOpset) {
  // Reshape-1 took the shape as an attribute; the converter reads it from input 1 (from 5).
  OnnxModel reshape("Reshape", 4);
  reshape.input("x", DType::f32, {2, 3}).output("y").ints_attr("shape", {3, 2});
  EXPECT_EQ(import_error(reshape),
            "m.onnx: node 'n' (Reshape): Reshape of opset 4 is not supported: uma converts "
            "Reshape as defined from opset 5 on (onnx.version_converter can update the model)");
  // BatchNormalization-6 trained unless is_test was set.
  OnnxModel batch_norm("BatchNormalization", 6);
  batch_norm.input("x", DType::f32, {1, 2, 2});
  for (const char* name : {"s", "b", "m", "v"}) batch_norm.input(name, DType::f32, {2});
  batch_norm.output("y").int_attr("is_test", 1);
  EXPECT_EQ(import_error(batch_norm),
            "m.onnx: node 'n' (BatchNormalization): BatchNormalization of opset 6 is not "
            "supported: uma converts BatchNormalization as defined from opset 7 on "
            "(onnx.version_converter can update the model)");
  // Relu-1 had consumed_inputs.
  OnnxModel relu("Relu", 5);
  relu.input("x", DType::f32, {2}).output("y");
  EXPECT_EQ(import_error(relu),
            "m.onnx: node 'n' (Relu): Relu of opset 5 is not supported: uma converts Relu as "
            "defined from opset 6 on (onnx.version_converter can update the model)");
  // An op that did not exist yet.
  OnnxModel where("Where", 8);
  where.input("c", DType::boolean, {2}).input("a", DType::f32, {2}).input("b", DType::f32, {2});
  where.output("y");
  EXPECT_EQ(import_error(where),
            "m.onnx: node 'n' (Where): Where of opset 8 is not supported: uma converts Where as "
            "defined from opset 9 on (onnx.version_converter can update the model)");
}

TEST(OnnxOpsetModelTest, ImportsAndRunsAnOpset6Model) {
  // Elu, InstanceNormalization and Add with broadcast, all at opset 6.
  OnnxGraph g(6);
  g.input("x", onnx::TensorProto::FLOAT, {1, 2, 2});
  g.initializer("scale", *f32({2}, {1, 2}));
  g.initializer("bias", *f32({2}, {0, 1}));
  g.initializer("shift", *f32({2}, {10, 20}));
  OnnxGraph::float_attr(g.node("Elu", {"x"}, {"e"}, "elu"), "alpha", 0.5);
  g.node("InstanceNormalization", {"e", "scale", "bias"}, {"n"}, "norm");
  onnx::NodeProto& add = g.node("Add", {"n", "shift"}, {"y"}, "add");
  OnnxGraph::int_attr(add, "broadcast", 1);
  OnnxGraph::int_attr(add, "axis", 1);
  g.output("y");
  Context context;
  auto module = test::import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  // Elu keeps 1, 3 and 2, 4; each channel normalizes to -1, 1 (epsilon aside), then scales,
  // shifts by its bias and by `shift` along axis 1.
  auto y = interpret(**module, {f32({1, 2, 2}, {1, 3, 2, 4})});
  ASSERT_TRUE(y.ok()) << y.error().message();
  test::expect_near(values_of(*(*y)[0]), {9, 11, 19, 23}, 1e-4);
}

TEST_F(OnnxOpsetTest, LegacyBroadcast) {
  auto mul = [](const Shape& b, std::optional<std::int64_t> axis, std::int64_t broadcast = 1) {
    OnnxModel model("Mul", 6);
    model.input("a", DType::f32, {2, 3, 2}).input("b", DType::f32, b).output("y");
    model.int_attr("broadcast", broadcast);
    if (axis) model.int_attr("axis", *axis);
    return model;
  };
  Values a = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  // B along axis 1 is reshaped to 3x1, so it multiplies rows, not columns.
  OnnxModel rows = mul({3}, 1);
  EXPECT_EQ(text(rows),
            "func @main(%a: tensor<2x3x2xf32>, %b: tensor<3xf32>) -> (tensor<2x3x2xf32>) {\n"
            "  %0 = reshape(%b) {allowzero = 1, newshape = [3, 1]} : tensor<3x1xf32> loc(\"n\")\n"
            "  %y = multiply(%a, %0) : tensor<2x3x2xf32> loc(\"n\")\n"
            "  return %y\n}\n");
  EXPECT_EQ(run1(rows, {f32({2, 3, 2}, a), f32({3}, {1, 10, 100})}),
            (Values{0, 1, 20, 30, 400, 500, 6, 7, 80, 90, 1000, 1100}));
  // Without an axis B matches A's last dimensions, as numpy's broadcasting does; a
  // one-element B goes anywhere.
  EXPECT_EQ(run1(mul({3, 2}, std::nullopt), {f32({2, 3, 2}, a), f32({3, 2}, {1, 1, 1, 1, 1, 2})}),
            (Values{0, 1, 2, 3, 4, 10, 6, 7, 8, 9, 10, 22}));
  EXPECT_EQ(run1(mul({1, 1}, 0), {f32({2, 3, 2}, a), f32({1, 1}, {2})})[11], 22);
  // Equal shapes need no broadcast.
  EXPECT_EQ(run1(mul({2, 3, 2}, std::nullopt, 0), {f32({2, 3, 2}, a), f32({2, 3, 2}, a)})[3], 9);

  EXPECT_EQ(import_error(mul({3}, std::nullopt, 0)),
            "m.onnx: node 'n' (Mul): inputs have shapes 2x3x2 and 3, which must be equal without "
            "attribute 'broadcast' (before opset 7)");
  EXPECT_EQ(import_error(mul({3}, std::nullopt)),
            "m.onnx: node 'n' (Mul): input 1 has shape 3, which is neither one element nor the "
            "dimensions of input 0's shape 2x3x2 from axis 2 on, as attribute 'broadcast' "
            "requires (before opset 7)");
  EXPECT_EQ(import_error(mul({3, 2}, 2)),
            "m.onnx: node 'n' (Mul): input 1 has shape 3x2, which is neither one element nor the "
            "dimensions of input 0's shape 2x3x2 from axis 2 on, as attribute 'broadcast' "
            "requires (before opset 7)");
  // Pow and the comparisons had the same broadcasting from opset 1.
  OnnxModel less("Less", 1);
  less.input("a", DType::f32, {2, 2}).input("b", DType::f32, {2}).output("y");
  less.int_attr("broadcast", 1).int_attr("axis", 0);
  EXPECT_EQ(run1(less, {f32({2, 2}, {1, 2, 3, 4}), f32({2}, {2, 5})}), (Values{1, 0, 1, 1}));
}

TEST_F(OnnxOpsetTest, ConcatAxisDefaultsTo1BeforeOpset4) {
  OnnxModel concat("Concat", 3);
  concat.input("a", DType::f32, {1, 2}).input("b", DType::f32, {1, 1}).output("y");
  EXPECT_EQ(run1(concat, {f32({1, 2}, {1, 2}), f32({1, 1}, {3})}), (Values{1, 2, 3}));
  OnnxModel required("Concat", 4);
  required.input("a", DType::f32, {1, 2}).input("b", DType::f32, {1, 1}).output("y");
  EXPECT_EQ(import_error(required), "m.onnx: node 'n' (Concat): attribute 'axis' is required");
}

TEST_F(OnnxOpsetTest, OpsWithoutChangesImportAtOpset1) {
  OnnxModel model("GlobalMaxPool", 1);
  model.input("x", DType::f32, {1, 2, 2}).output("y");
  EXPECT_EQ(run1(model, {f32({1, 2, 2}, {1, 5, 7, 3})}), (Values{5, 7}));
  OnnxModel logical("Not", 1);
  logical.input("x", DType::boolean, {2}).output("y");
  EXPECT_EQ(import_error(logical), "(no error)");
}

}  // namespace
}  // namespace uma
