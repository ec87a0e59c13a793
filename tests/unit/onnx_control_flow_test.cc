// Unit tests of the ONNX converters of control flow (src/frontend/onnx/control_flow.cc) and of
// the importer's subgraph scopes: If inlined, Loop and Scan unrolled, and the errors of what
// cannot be decided at import.
#include <chrono>

#include "onnx_importer_test_util.h"
#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"

namespace uma::test {
namespace {

using Values = std::vector<double>;
constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kInt64 = onnx::TensorProto::INT64;
constexpr int kBool = onnx::TensorProto::BOOL;

TensorPtr boolean(bool value) { return make_tensor(DType::boolean, {}, {value ? 1.0 : 0.0}); }
TensorPtr i64(double value) { return make_tensor(DType::i64, {}, {value}); }

void graph_attr(onnx::NodeProto& node, const std::string& name, const OnnxGraph& graph) {
  onnx::AttributeProto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = graph.model.graph();
}

// y = x + x when `cond` holds, else -x; the branches read x from the enclosing graph.
OnnxGraph if_model(const std::vector<Dim>& cond_shape = {}) {
  OnnxGraph then_branch, else_branch;
  then_branch.graph().set_name("then");
  then_branch.node("Add", {"x", "x"}, {"doubled"}, "twice");
  then_branch.output("doubled");
  else_branch.graph().set_name("else");
  else_branch.node("Neg", {"x"}, {"negated"}, "negate");
  else_branch.output("negated");
  OnnxGraph g(13);
  g.input("x", kFloat, {2});
  g.input("cond", kBool, cond_shape);
  onnx::NodeProto& node = g.node("If", {"cond"}, {"y"}, "if");
  graph_attr(node, "then_branch", then_branch);
  graph_attr(node, "else_branch", else_branch);
  g.output("y");
  return g;
}

OnnxImportOptions bound(const std::string& name, TensorPtr value) {
  OnnxImportOptions options;
  options.constant_inputs.emplace(name, std::move(value));
  return options;
}

std::vector<TensorPtr> run(const OnnxGraph& g, const OnnxImportOptions& options,
                           const std::vector<TensorPtr>& inputs) {
  Context context;
  auto module = import_graph(context, g, options);
  EXPECT_TRUE(module.ok()) << module.error().message();
  if (!module) return {};
  auto outputs = interpret(**module, inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.error().message();
  return outputs ? *outputs : std::vector<TensorPtr>{};
}

TEST(OnnxControlFlowTest, IfImportsTheBranchItsConstantConditionChooses) {
  Context context;
  auto module = import_graph(context, if_model(), bound("cond", boolean(true)));
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ(to_string(**module),
            "module @g\n"
            "\n"
            "func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n"
            "  %doubled = add(%x, %x) : tensor<2xf32> loc(\"twice\")\n"
            "  return %doubled\n"
            "}\n");
  std::vector<TensorPtr> out = run(if_model(), bound("cond", boolean(false)), {f32({2}, {1, -2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values_of(*out[0]), (Values{-1, 2}));
}

TEST(OnnxControlFlowTest, IfErrors) {
  EXPECT_EQ(import_error(if_model()),
            "model.onnx: node 'if' (If): input 0 ('cond') must be a constant: uma's graph has no "
            "control flow, so it is decided at import; it is the model's input 'cond', so give "
            "its value with --bind cond=FILE");
  EXPECT_EQ(import_error(if_model({2}), bound("cond", make_tensor(DType::boolean, {2}, {1, 0}))),
            "model.onnx: node 'if' (If): input 0 ('cond') has 2 elements, but must have one");
  OnnxGraph g = if_model();
  g.graph().mutable_node(0)->mutable_attribute(1)->mutable_g()->add_output()->set_name("x");
  EXPECT_EQ(
      import_error(g, bound("cond", boolean(true))),
      "model.onnx: node 'if' (If): attribute 'else_branch' has 2 outputs, but the node has 1");
}

TEST(OnnxControlFlowTest, IfBranchErrorsNameTheBranchAndItsNode) {
  OnnxGraph g = if_model();
  g.graph().mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_input(1, "z");
  EXPECT_EQ(import_error(g, bound("cond", boolean(true))),
            "model.onnx: node 'if' (If): then_branch: missing initializer or input 'z' used by "
            "node 'twice'");
}

// A loop over y (f32[1]): each iteration y = y * 2 + i, which is also its scan output; the
// body's condition output is `cond_out`, made by `cond_node`.
OnnxGraph loop_model(bool with_trip_count, bool with_cond) {
  OnnxGraph body;
  body.graph().set_name("body");
  body.input("i", kInt64, {});
  body.input("cond_in", kBool, {});
  body.input("y_in", kFloat, {1});
  OnnxGraph::int_attr(body.node("Cast", {"i"}, {"i_f"}, "cast"), "to", kFloat);
  body.node("Add", {"y_in", "y_in"}, {"twice"}, "twice");
  body.node("Add", {"twice", "i_f"}, {"y_out"}, "plus_i");
  body.node("Identity", {"y_out"}, {"scan"}, "scan");
  // Continue while i < 2: three iterations.
  body.initializer("two", *make_tensor(DType::i64, {}, {2}));
  body.node("Less", {"i", "two"}, {"cond_out"}, "less");
  body.output("cond_out");
  body.output("y_out");
  body.output("scan");
  OnnxGraph g(13);
  g.input("y", kFloat, {1});
  if (with_trip_count) g.input("m", kInt64, {});
  if (with_cond) g.input("cond", kBool, {});
  onnx::NodeProto& node = g.node("Loop", {with_trip_count ? "m" : "", with_cond ? "cond" : "", "y"},
                                 {"y_last", "ys"}, "loop");
  graph_attr(node, "body", body);
  g.output("y_last");
  g.output("ys");
  return g;
}

TEST(OnnxControlFlowTest, LoopUnrollsAndStacksItsScanOutput) {
  // A for loop: 4 iterations, the body's condition ignored. y: 1 -> 2 -> 5 -> 12 -> 27.
  std::vector<TensorPtr> out = run(loop_model(true, false), bound("m", i64(4)), {f32({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(*out[0]), (Values{27}));
  EXPECT_EQ(out[1]->shape(), (Shape{4, 1}));
  EXPECT_EQ(values_of(*out[1]), (Values{2, 5, 12, 27}));

  // A while loop: it stops after iteration 2, where i < 2 becomes false.
  OnnxImportOptions options = bound("cond", boolean(true));
  out = run(loop_model(false, true), options, {f32({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(*out[0]), (Values{12}));
  EXPECT_EQ(values_of(*out[1]), (Values{2, 5, 12}));

  // Both: the trip count stops it first.
  options.constant_inputs.emplace("m", i64(2));
  out = run(loop_model(true, true), options, {f32({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(*out[1]), (Values{2, 5}));

  // No iteration: y as given, and an empty scan output of the body's type.
  out = run(loop_model(true, false), bound("m", i64(0)), {f32({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(*out[0]), (Values{1}));
  EXPECT_EQ(out[1]->shape(), (Shape{0, 1}));
}

TEST(OnnxControlFlowTest, LoopErrors) {
  EXPECT_EQ(import_error(loop_model(true, false)),
            "model.onnx: node 'loop' (Loop): input 0 ('M') must be a constant: uma's graph has "
            "no control flow, so it is decided at import; it is the model's input 'm', so give "
            "its value with --bind m=FILE");
  EXPECT_EQ(import_error(loop_model(false, false)),
            "model.onnx: node 'loop' (Loop): the loop has neither a trip count (input 0, 'M') "
            "nor a condition (input 1, 'cond'), so it never ends");

  // The condition output depends on y, which is known only at run time.
  OnnxGraph g = loop_model(false, true);
  onnx::NodeProto& less =
      *g.graph().mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(4);
  less.set_input(0, "y_out");
  less.set_input(1, "y_out");
  EXPECT_EQ(import_error(g, bound("cond", boolean(true))),
            "model.onnx: node 'loop' (Loop): iteration 0: the body's condition output 'cond_out' "
            "must be a constant: uma unrolls the loop, and stops where the condition becomes "
            "false");
}

TEST(OnnxControlFlowTest, LoopsBeyondTheUnrollingCapFailAtOnce) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(import_error(loop_model(true, false), bound("m", i64(1e9))),
            "model.onnx: node 'loop' (Loop): unrolling 1000000000 iterations of a body of 5 nodes "
            "would exceed the cap of 100000 unrolled nodes (iterations × body nodes, over the "
            "whole model; 0 are unrolled already)");
  // A while loop whose condition stays true stops at the cap.
  OnnxGraph g = loop_model(false, true);
  onnx::NodeProto& less =
      *g.graph().mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(4);
  less.set_op_type("GreaterOrEqual");  // i >= i: true in every iteration
  less.set_input(1, "i");
  EXPECT_EQ(import_error(g, bound("cond", boolean(true))),
            "model.onnx: node 'loop' (Loop): iteration 20000 of a body of 5 nodes would exceed the "
            "cap of 100000 unrolled nodes (iterations × body nodes, over the whole model; 100000 "
            "are unrolled already)");
  // A body of no node counts as one, or it would loop forever.
  OnnxGraph body;
  body.input("i", kInt64, {});
  body.input("cond_in", kBool, {});
  body.output("cond_in");
  OnnxGraph empty(13);
  empty.input("cond", kBool, {});
  graph_attr(empty.node("Loop", {"", "cond"}, {}, "loop"), "body", body);
  EXPECT_EQ(import_error(empty, bound("cond", boolean(true))),
            "model.onnx: node 'loop' (Loop): iteration 100000 of a body of 0 nodes would exceed "
            "the cap of 100000 unrolled nodes (iterations × body nodes, over the whole model; "
            "100000 are unrolled already)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(OnnxControlFlowTest, SubgraphsNestAndSeeEveryEnclosingScope) {
  // for i in 0..3: y = (i < 1) ? y * ten : y + one, where `ten` is the main graph's
  // initializer, `one` the loop body's, and y the body's input: 1 -> 10 -> 11 -> 12.
  OnnxGraph then_branch, else_branch, body;
  then_branch.node("Mul", {"y_in", "ten"}, {"times"}, "times");
  then_branch.output("times");
  else_branch.node("Add", {"y_in", "one"}, {"plus"}, "plus");
  else_branch.output("plus");
  body.input("i", kInt64, {});
  body.input("cond_in", kBool, {});
  body.input("y_in", kFloat, {1});
  body.initializer("one", *f32({1}, {1}));
  body.initializer("first", *make_tensor(DType::i64, {}, {1}));
  body.node("Less", {"i", "first"}, {"is_first"}, "is_first");
  onnx::NodeProto& branch = body.node("If", {"is_first"}, {"y_out"}, "branch");
  graph_attr(branch, "then_branch", then_branch);
  graph_attr(branch, "else_branch", else_branch);
  body.output("cond_in");
  body.output("y_out");
  OnnxGraph g(13);
  g.input("y", kFloat, {1});
  g.initializer("m", *make_tensor(DType::i64, {}, {3}));
  g.initializer("ten", *f32({1}, {10}));
  graph_attr(g.node("Loop", {"m", "", "y"}, {"y_last"}, "loop"), "body", body);
  g.output("y_last");
  std::vector<TensorPtr> out = run(g, {}, {f32({1}, {1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values_of(*out[0]), (Values{12}));
}

// Running sums, read in reverse. From opset 9: over a 2x3 input along axis 1
// (scan_input_axes), the steps stacked along the last axis of the output (scan_output_axes).
// Opset 8 has a batch axis 0 on every value and scans axis 1: the same sums over a 2x3x1
// input, one batch entry at a time, after an empty sequence_lens.
OnnxGraph scan_model(int opset) {
  bool batched = opset < 9;
  std::vector<Dim> element = batched ? std::vector<Dim>{1} : std::vector<Dim>{2};
  OnnxGraph body;
  body.input("sum_in", kFloat, element);
  body.input("x_t", kFloat, element);
  body.node("Add", {"sum_in", "x_t"}, {"sum_out"}, "add");
  body.node("Identity", {"sum_out"}, {"step"}, "step");
  body.output("sum_out");
  body.output("step");
  OnnxGraph g(opset);
  g.input("initial", kFloat, batched ? std::vector<Dim>{2, 1} : std::vector<Dim>{2});
  g.input("x", kFloat, batched ? std::vector<Dim>{2, 3, 1} : std::vector<Dim>{2, 3});
  std::vector<std::string> inputs{"initial", "x"};
  if (batched) inputs.insert(inputs.begin(), "");
  onnx::NodeProto& node = g.node("Scan", inputs, {"sum", "steps"}, "scan");
  graph_attr(node, "body", body);
  OnnxGraph::int_attr(node, "num_scan_inputs", 1);
  if (batched) {
    OnnxGraph::ints_attr(node, "directions", {1});
  } else {
    OnnxGraph::ints_attr(node, "scan_input_axes", {1});
    OnnxGraph::ints_attr(node, "scan_input_directions", {1});
    OnnxGraph::ints_attr(node, "scan_output_axes", {-1});
  }
  g.output("sum");
  g.output("steps");
  return g;
}

TEST(OnnxControlFlowTest, ScanUnrollsAlongItsAxesAndDirections) {
  // x = [[1, 2, 3], [10, 20, 30]], read from the last column: sums 3, 5, 6 and 30, 50, 60.
  std::vector<TensorPtr> out =
      run(scan_model(11), {}, {f32({2}, {0, 0}), f32({2, 3}, {1, 2, 3, 10, 20, 30})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(*out[0]), (Values{6, 60}));
  EXPECT_EQ(out[1]->shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(*out[1]), (Values{3, 5, 6, 30, 50, 60}));
}

TEST(OnnxControlFlowTest, ScanOfOpset8ScansEachBatchEntry) {
  std::vector<TensorPtr> out =
      run(scan_model(8), {}, {f32({2, 1}, {0, 100}), f32({2, 3, 1}, {1, 2, 3, 10, 20, 30})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(*out[0]), (Values{6, 160}));
  EXPECT_EQ(out[1]->shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(values_of(*out[1]), (Values{3, 5, 6, 130, 150, 160}));
}

TEST(OnnxControlFlowTest, ScanErrors) {
  OnnxGraph g = scan_model(11);
  g.graph().mutable_node(0)->mutable_attribute(1)->set_i(3);
  EXPECT_EQ(import_error(g),
            "model.onnx: node 'scan' (Scan): attribute 'num_scan_inputs' is 3, but must be in "
            "[1, 2]");
  OnnxGraph lens = scan_model(8);
  lens.input("lens", onnx::TensorProto::INT32, {2});
  lens.graph().mutable_node(0)->set_input(0, "lens");
  EXPECT_EQ(import_error(lens),
            "model.onnx: node 'scan' (Scan): input 0 ('sequence_lens') must be a constant that "
            "gives every batch entry the sequence's full length (3): shorter sequences are not "
            "supported");
  OnnxGraph empty = scan_model(8);
  for (int i : {0, 1})
    empty.graph()
        .mutable_input(i)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(0)
        ->set_dim_value(0);
  EXPECT_EQ(import_error(empty),
            "model.onnx: node 'scan' (Scan): the batch is empty, so the scan outputs have no type");
}

}  // namespace
}  // namespace uma::test
