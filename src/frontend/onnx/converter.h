// The interface between the ONNX importer and its per-op-family converters
// (one file per family in this folder). Private to the frontend.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/builder.h"
#include "uma/graph/ir.h"

namespace uma::onnx_import {

// What the importer offers converters of control flow (If, Loop, Scan): importing a
// subgraph's nodes inline, with the importer's own conversion of each node, into the
// function being built. Names the subgraph does not define are its enclosing graphs'.
class SubgraphImporter {
 public:
  virtual ~SubgraphImporter() = default;
  // Imports `graph` with its inputs bound to `inputs`, one per graph input in order, and
  // returns the values of its outputs. Each call is a fresh scope: a loop body imported
  // once per iteration defines its names anew each time.
  virtual Expected<std::vector<Value*>> import_subgraph(const onnx::GraphProto& graph,
                                                        const std::vector<Value*>& inputs) = 0;
  // How many subgraph nodes the model's import has converted so far (an empty subgraph
  // counting as one): what unrolling converters hold under their cap, across nested and
  // successive loops.
  virtual std::int64_t imported_subgraph_nodes() const = 0;
};

// The tensor behind `value` when it is a constant with data (an initializer, a Constant node,
// or a computation on constants folded on the way), else nullptr.
TensorPtr constant_tensor(const Value* value);

// What a converter sees of one ONNX node: its inputs as graph values, its attributes with
// checked types, the model's opset, and a builder that names new nodes after it.
class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& node, std::vector<Value*> inputs, std::int64_t opset,
              Builder& builder, SubgraphImporter* subgraphs = nullptr,
              const std::map<std::string, TensorPtr, std::less<>>* run_inputs = nullptr)
      : node_(node),
        inputs_(std::move(inputs)),
        opset_(opset),
        builder_(builder),
        subgraphs_(subgraphs),
        run_inputs_(run_inputs) {}

  const onnx::NodeProto& proto() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  // The default domain's opset version the model imports (1..17).
  std::int64_t opset() const { return opset_; }

  // Inputs, with optional ones that the model left empty ("") as nullptr.
  std::size_t num_inputs() const { return inputs_.size(); }
  bool has_input(std::size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  Value* input(std::size_t i) const { return has_input(i) ? inputs_[i] : nullptr; }
  // The tensor behind input i when it is a constant (constant_tensor), else nullptr.
  TensorPtr constant_input(std::size_t i) const { return constant_tensor(input(i)); }
  // The same, or else the value a run gives for it when it is the model's input (the
  // importer's run_inputs), or else an error naming the input, why it must be a constant
  // (`why`, by default that uma needs its value at build time), and the model's inputs to
  // bind: "input 1 ('shape') must be a constant: ...; it is the model's input 'shape', so
  // give its value with --bind shape=FILE".
  Expected<TensorPtr> require_constant_input(std::size_t i, std::string_view what,
                                             std::string_view why = "") const;
  // The same for an input whose values decide the shapes of the node's results (NonZero's
  // input, TopK's k): as uma's shapes are static, the error says so and how to give the
  // values at build time.
  Expected<TensorPtr> require_shaping_input(std::size_t i, std::string_view what) const;

  // Attributes: absent ones take `fallback`, or are an error when it is nullopt. A wrong
  // attribute type is an error naming the attribute.
  bool has_attr(std::string_view name) const;
  Expected<std::int64_t> attr_int(std::string_view name,
                                  std::optional<std::int64_t> fallback) const;
  Expected<double> attr_float(std::string_view name, std::optional<double> fallback) const;
  Expected<std::string> attr_string(std::string_view name,
                                    std::optional<std::string> fallback) const;
  Expected<std::vector<std::int64_t>> attr_ints(
      std::string_view name, std::optional<std::vector<std::int64_t>> fallback) const;
  Expected<std::vector<double>> attr_floats(std::string_view name,
                                            std::optional<std::vector<double>> fallback) const;
  Expected<TensorPtr> attr_tensor(std::string_view name) const;
  // A graph attribute (If's branches, a Loop's or Scan's body); required.
  Expected<const onnx::GraphProto*> attr_graph(std::string_view name) const;

  // The importer's subgraph import, for control flow; an internal error where the context
  // was made without one.
  Expected<SubgraphImporter*> subgraphs() const;

  // Creates a uma node named after this ONNX node; errors come back for the importer to
  // prefix with the node's location.
  Expected<Node*> emit(std::string_view op, std::vector<Value*> operands, AttrMap attrs = {});
  // The same for a single-result op.
  Expected<Value*> emit_value(std::string_view op, std::vector<Value*> operands,
                              AttrMap attrs = {});
  Value* constant(TensorPtr tensor);
  Builder& builder() { return builder_; }

 private:
  const onnx::AttributeProto* find_attr(std::string_view name) const;
  const onnx::NodeProto& node_;
  std::vector<Value*> inputs_;
  std::int64_t opset_;
  Builder& builder_;
  SubgraphImporter* subgraphs_;
  const std::map<std::string, TensorPtr, std::less<>>* run_inputs_;  // OnnxImportOptions'
};

// Converts one ONNX node; returns one value per ONNX output (nullptr for an optional output
// that the model leaves unused and the op does not produce).
using Converter = std::function<Expected<std::vector<Value*>>(NodeContext&)>;

// A converter and the first opset from which it implements its op's definition. Each family
// registers its converters in a table, one row per op with that opset: the one where the op
// appeared, or where its definition last changed in a way the converter does not handle
// (Reshape's shape became an input at 5; consumed_inputs attributes went away at 6). The
// importer refuses a node of a model at an older opset, whose op means something else.
struct ConverterEntry {
  std::int64_t since;
  Converter convert;
  std::string family;  // the family file's name: "elementwise", "rnn", ...
};

// ONNX op types (default domain) to converters.
class ConverterTable {
 public:
  // The family the converters added next belong to (what reports group ops by).
  void set_family(std::string family) { family_ = std::move(family); }
  void add(std::string op_type, std::int64_t since, Converter converter);
  const ConverterEntry* find(std::string_view op_type) const;
  // Every op type with a converter, sorted.
  std::vector<std::string> op_types() const;

 private:
  std::map<std::string, ConverterEntry, std::less<>> converters_;
  std::string family_;
};

// One per op family, in the file of that name.
void register_elementwise_converters(ConverterTable& table);  // Add, Relu, Cast, Where, ...
void register_conv_converters(ConverterTable& table);  // Conv, ConvTranspose, Gemm, MatMul, pools
void register_norm_converters(ConverterTable& table);  // norms, Softmax, LogSoftmax, Resize
void register_transform_converters(ConverterTable& table);  // Reshape, Slice, Gather, Pad, ...
void register_reduce_converters(ConverterTable& table);     // ReduceMean, ..., ArgMax
void register_constant_converter(ConverterTable& table);    // Constant (constant.cc)
void register_einsum_converter(ConverterTable& table);      // Einsum (einsum.cc)
void register_det_converter(ConverterTable& table);         // Det (det.cc)
void register_tfidf_converter(ConverterTable& table);       // TfIdfVectorizer (tfidf.cc)
void register_quantize_converters(ConverterTable& table);   // QuantizeLinear, QLinearMatMul, ...
void register_rnn_converters(ConverterTable& table);        // RNN, GRU, LSTM (rnn.cc)
void register_signal_converters(ConverterTable& table);     // windows, DFT, STFT (signal.cc)
void register_loss_converters(ConverterTable& table);  // NegativeLogLikelihoodLoss, ... (loss.cc)
void register_control_flow_converters(ConverterTable& table);    // If, Loop, Scan (control_flow.cc)
void register_data_dependent_converters(ConverterTable& table);  // NonZero, Unique, NMS
void register_sample_converters(ConverterTable& table);          // GridSample, RoiAlign (sample.cc)

// An nn.conv<N>d of `operands` (X, W and an optional bias) with the node's Conv attributes
// (strides, pads or auto_pad, dilations, group, kernel_shape); conv.cc. ConvInteger and
// QLinearConv give it their operands less their zero points.
Expected<Value*> emit_conv(NodeContext& ctx, std::vector<Value*> operands);

}  // namespace uma::onnx_import
