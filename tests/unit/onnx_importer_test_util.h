// Building whole ONNX graphs in tests of the importer, and importing them.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tensor_util.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/graph/verifier.h"
#include "uma/uma/context.h"

namespace uma::test {

// A dimension of a graph input: a size, a symbolic name, or neither.
struct Unknown {};
using Dim = std::variant<std::int64_t, std::string, Unknown>;

// A model (IR version 8) with one graph "g", built node by node.
class OnnxGraph {
 public:
  explicit OnnxGraph(int opset = 13) {
    model.set_ir_version(8);
    model.add_opset_import()->set_version(opset);
    graph().set_name("g");
  }

  onnx::GraphProto& graph() { return *model.mutable_graph(); }

  void input(const std::string& name, int elem_type, const std::vector<Dim>& dims) {
    onnx::ValueInfoProto* info = graph().add_input();
    info->set_name(name);
    auto* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(elem_type);
    onnx::TensorShapeProto* shape = type->mutable_shape();
    for (const Dim& dim : dims) {
      auto* d = shape->add_dim();
      if (const auto* value = std::get_if<std::int64_t>(&dim)) d->set_dim_value(*value);
      if (const auto* param = std::get_if<std::string>(&dim)) d->set_dim_param(*param);
    }
  }
  void output(const std::string& name) { graph().add_output()->set_name(name); }

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    onnx::NodeProto* node = graph().add_node();
    node->set_op_type(op);
    node->set_name(name);
    for (const std::string& input : inputs) node->add_input(input);
    for (const std::string& output : outputs) node->add_output(output);
    return *node;
  }
  onnx::TensorProto& initializer(const std::string& name, const Tensor& tensor) {
    return *graph().add_initializer() = tensor_to_onnx(tensor, name);
  }

  static void int_attr(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
    add_attr(node, name, onnx::AttributeProto::INT).set_i(value);
  }
  static void float_attr(onnx::NodeProto& node, const std::string& name, double value) {
    add_attr(node, name, onnx::AttributeProto::FLOAT).set_f(static_cast<float>(value));
  }
  static void ints_attr(onnx::NodeProto& node, const std::string& name,
                        const std::vector<std::int64_t>& values) {
    auto& attr = add_attr(node, name, onnx::AttributeProto::INTS);
    for (std::int64_t v : values) attr.add_ints(v);
  }
  static void floats_attr(onnx::NodeProto& node, const std::string& name,
                          const std::vector<double>& values) {
    auto& attr = add_attr(node, name, onnx::AttributeProto::FLOATS);
    for (double v : values) attr.add_floats(static_cast<float>(v));
  }

  onnx::ModelProto model;

 private:
  static onnx::AttributeProto& add_attr(onnx::NodeProto& node, const std::string& name,
                                        onnx::AttributeProto::AttributeType type) {
    onnx::AttributeProto* attr = node.add_attribute();
    attr->set_name(name);
    attr->set_type(type);
    return *attr;
  }
};

inline onnx::AttributeProto tensor_attr(const std::string& name, const Tensor& tensor) {
  onnx::AttributeProto attr;
  attr.set_name(name);
  attr.set_type(onnx::AttributeProto::TENSOR);
  *attr.mutable_t() = tensor_to_onnx(tensor);
  return attr;
}

// Imports the graph as "model.onnx" from `dir` (external data is read there), and checks
// that what imports also verifies.
inline Expected<std::unique_ptr<Module>> import_graph(Context& context, const OnnxGraph& g,
                                                      const OnnxImportOptions& options = {},
                                                      const std::string& dir = "") {
  auto module = import_onnx_bytes(context, g.model.SerializeAsString(), "model.onnx", dir, options);
  if (module.ok()) {
    Status verified = verify(**module);
    EXPECT_TRUE(verified.ok()) << verified.error().message();
  }
  return module;
}

// The import's error message ("" and a test failure when it imports).
inline std::string import_error(const OnnxGraph& g, const OnnxImportOptions& options = {},
                                const std::string& dir = "") {
  Context context;
  auto module = import_graph(context, g, options, dir);
  EXPECT_FALSE(module.ok()) << "the model imported";
  return module.ok() ? "" : module.error().message();
}

}  // namespace uma::test
