// A one-node ONNX model built field by field, for unit tests of the ONNX converters.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <vector>

#include "tensor_util.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/context.h"

namespace uma::test {

class OnnxModel {
 public:
  OnnxModel(std::string op_type, int opset) {
    model_.set_ir_version(8);
    model_.add_opset_import()->set_version(opset);
    graph()->set_name("g");
    node_ = graph()->add_node();
    node_->set_op_type(std::move(op_type));
    node_->set_name("n");
  }

  // A graph input that feeds the node's next input.
  OnnxModel& input(const std::string& name, DType dtype, const Shape& shape) {
    onnx::ValueInfoProto* info = graph()->add_input();
    info->set_name(name);
    auto* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(dtype_to_onnx(dtype));
    type->mutable_shape();  // present even for a scalar: no shape means an unknown rank
    for (std::int64_t dim : shape) type->mutable_shape()->add_dim()->set_dim_value(dim);
    node_->add_input(name);
    return *this;
  }
  // An initializer that feeds the node's next input.
  OnnxModel& constant(const std::string& name, const Tensor& tensor) {
    *graph()->add_initializer() = tensor_to_onnx(tensor, name);
    node_->add_input(name);
    return *this;
  }
  // An input left out ("").
  OnnxModel& skip() {
    node_->add_input("");
    return *this;
  }
  // A node output that is also a graph output.
  OnnxModel& output(const std::string& name) {
    node_->add_output(name);
    graph()->add_output()->set_name(name);
    return *this;
  }
  // An optional node output left out ("").
  OnnxModel& skip_output() {
    node_->add_output("");
    return *this;
  }

  OnnxModel& attr(const std::string& name, double value) {
    onnx::AttributeProto* a = add_attr(name, onnx::AttributeProto::FLOAT);
    a->set_f(static_cast<float>(value));
    return *this;
  }
  OnnxModel& int_attr(const std::string& name, std::int64_t value) {
    add_attr(name, onnx::AttributeProto::INT)->set_i(value);
    return *this;
  }
  OnnxModel& string_attr(const std::string& name, const std::string& value) {
    add_attr(name, onnx::AttributeProto::STRING)->set_s(value);
    return *this;
  }
  OnnxModel& floats_attr(const std::string& name, const std::vector<double>& values) {
    onnx::AttributeProto* a = add_attr(name, onnx::AttributeProto::FLOATS);
    for (double v : values) a->add_floats(static_cast<float>(v));
    return *this;
  }
  OnnxModel& ints_attr(const std::string& name, const std::vector<std::int64_t>& values) {
    onnx::AttributeProto* a = add_attr(name, onnx::AttributeProto::INTS);
    for (std::int64_t v : values) a->add_ints(v);
    return *this;
  }
  OnnxModel& strings_attr(const std::string& name, const std::vector<std::string>& values) {
    onnx::AttributeProto* a = add_attr(name, onnx::AttributeProto::STRINGS);
    for (const std::string& v : values) a->add_strings(v);
    return *this;
  }

  Expected<std::unique_ptr<Module>> import(Context& ctx) const {
    return import_onnx_bytes(ctx, model_.SerializeAsString(), "m.onnx", "");
  }

 private:
  onnx::GraphProto* graph() { return model_.mutable_graph(); }
  onnx::AttributeProto* add_attr(const std::string& name,
                                 onnx::AttributeProto::AttributeType type) {
    onnx::AttributeProto* a = node_->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  }

  onnx::ModelProto model_;
  onnx::NodeProto* node_;
};

// A fixture for converter tests: import a one-node model, then print, check or run it.
class OnnxConverterTest : public ::testing::Test {
 protected:
  // The imported @main as text, without the "module" line.
  std::string text(const OnnxModel& model) {
    auto module = model.import(ctx);
    if (!module) return "error: " + module.error().message();
    std::string printed = to_string(**module);
    return printed.substr(printed.find("func"));
  }

  std::string import_error(const OnnxModel& model) {
    auto module = model.import(ctx);
    return module ? "(no error)" : module.error().message();
  }

  std::vector<TensorPtr> run(const OnnxModel& model, const std::vector<TensorPtr>& inputs) {
    auto module = model.import(ctx);
    EXPECT_TRUE(module.ok()) << module.error().message();
    if (!module) return {};
    auto outputs = interpret(**module, inputs);
    EXPECT_TRUE(outputs.ok()) << outputs.error().message();
    return outputs ? *outputs : std::vector<TensorPtr>{};
  }

  // The values of the single output.
  std::vector<double> run1(const OnnxModel& model, const std::vector<TensorPtr>& inputs) {
    std::vector<TensorPtr> outputs = run(model, inputs);
    return outputs.size() == 1 ? values_of(*outputs[0]) : std::vector<double>{};
  }

  Context ctx;
};

// A one-node model (test::OnnxModel) and the tensors to run it on: inputs fed at run time,
// initializers for what must be constant (shapes, axes, pads, sizes).
class OneNode {
 public:
  using Ints = std::vector<std::int64_t>;
  using Values = std::vector<double>;

  OneNode(std::string op_type, int opset) : model_(std::move(op_type), opset) {}

  OneNode& input(const TensorPtr& tensor) {
    model_.input(next_name(), tensor->dtype(), tensor->shape());
    arguments_.push_back(tensor);
    return *this;
  }
  OneNode& constant(const TensorPtr& tensor) {
    model_.constant(next_name(), *tensor);
    return *this;
  }
  OneNode& ints(const Ints& values) {
    Values v(values.begin(), values.end());
    return constant(make_tensor(DType::i64, {static_cast<std::int64_t>(values.size())}, v));
  }
  OneNode& skip() {
    model_.skip();
    ++inputs_;
    return *this;
  }
  OneNode& attr(const std::string& name, std::int64_t value) {
    model_.int_attr(name, value);
    return *this;
  }
  OneNode& attr(const std::string& name, double value) {
    model_.attr(name, value);
    return *this;
  }
  OneNode& attr(const std::string& name, const std::string& value) {
    model_.string_attr(name, value);
    return *this;
  }
  OneNode& attr(const std::string& name, const Ints& values) {
    model_.ints_attr(name, values);
    return *this;
  }
  OneNode& outputs(int count) {
    for (int i = 0; i < count; ++i) model_.output(fmt::format("out{}", i));
    outputs_ += count;
    return *this;
  }

  Expected<std::vector<TensorPtr>> try_run() {
    if (outputs_ == 0) outputs(1);
    Context context;
    UMA_TRY_ASSIGN(auto module, model_.import(context));
    return interpret(*module, arguments_);
  }
  std::vector<TensorPtr> run() {
    auto results = try_run();
    EXPECT_TRUE(results.ok()) << results.error().message();
    return results.ok() ? *results : std::vector<TensorPtr>{};
  }
  // The single result.
  TensorPtr run1() {
    std::vector<TensorPtr> results = run();
    if (results.size() == 1) return results[0];
    ADD_FAILURE() << results.size() << " results";
    return std::make_shared<Tensor>(TensorType{DType::f32, {0}});
  }
  std::string error() {
    auto results = try_run();
    return results.ok() ? "(no error)" : results.error().message();
  }

 private:
  std::string next_name() { return fmt::format("in{}", inputs_++); }

  test::OnnxModel model_;
  int inputs_ = 0;
  int outputs_ = 0;
  std::vector<TensorPtr> arguments_;
};

}  // namespace uma::test
