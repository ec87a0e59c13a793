// Importing ONNX models: parse the ModelProto, check what the whole model needs before
// converting anything (opset, every op supported at that opset, names, graph inputs), then
// convert the nodes in the graph's order, folding constant computations as they appear so
// that shape computations (Shape -> Gather -> Concat -> Reshape) reach converters as
// constants. Control flow converters import their subgraphs through the same conversion,
// each in a scope of its own that sees the enclosing graphs' names (SubgraphImporter).
//
// Every error is prefixed with the model's name, and node errors with "node 'n' (OpType)".
#include "uma/frontend/onnx/importer.h"

#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "converter.h"
#include "fuse_qdq.h"
#include "input_types.h"
#include "parse_model.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/graph/fold.h"
#include "uma/graph/pass.h"
#include "uma/support/file.h"

namespace uma {
namespace {

using onnx_import::ConverterTable;
using onnx_import::InitializerData;
using onnx_import::NodeContext;
using onnx_import::raw_data_of;

constexpr std::int64_t kMinOpset = 1;
constexpr std::int64_t kMaxOpset = 17;
// protobuf refuses messages of 2 GB and more; such models keep tensors in external files.
constexpr std::int64_t kMaxProtoBytes = std::numeric_limits<int>::max();
// Per unsupported op, how many node names the error lists before it only counts them.
constexpr std::size_t kMaxNamesPerOp = 10;

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    using namespace onnx_import;
    const std::pair<const char*, void (*)(ConverterTable&)> families[] = {
        {"constant", register_constant_converter},
        {"elementwise", register_elementwise_converters},
        {"conv", register_conv_converters},
        {"norm", register_norm_converters},
        {"transform", register_transform_converters},
        {"reduce", register_reduce_converters},
        {"einsum", register_einsum_converter},
        {"det", register_det_converter},
        {"tfidf", register_tfidf_converter},
        {"quantize", register_quantize_converters},
        {"rnn", register_rnn_converters},
        {"signal", register_signal_converters},
        {"loss", register_loss_converters},
        {"control_flow", register_control_flow_converters},
        {"data_dependent", register_data_dependent_converters},
        {"sample", register_sample_converters},
    };
    ConverterTable t;
    for (const auto& [family, register_family] : families) {
      t.set_family(family);
      register_family(t);
    }
    return t;
  }();
  return table;
}

bool is_default_domain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

// The op as the user knows it: "Conv", or "com.microsoft.Gelu" outside the default domain.
std::string qualified_op(const onnx::NodeProto& node) {
  if (is_default_domain(node.domain())) return node.op_type();
  return fmt::format("{}.{}", node.domain(), node.op_type());
}

std::string node_label(const onnx::NodeProto& node) {
  return fmt::format("node '{}' ({})", node.name(), qualified_op(node));
}

Expected<std::int64_t> default_opset(const onnx::ModelProto& model) {
  std::optional<std::int64_t> opset;
  for (const auto& entry : model.opset_import())
    if (is_default_domain(entry.domain())) opset = entry.version();
  if (!opset) return make_error("the model imports no opset of the default ONNX domain");
  if (*opset < kMinOpset || *opset > kMaxOpset)
    return make_error(
        "opset {} of the default ONNX domain is not supported (uma supports "
        "opsets {} to {})",
        *opset, kMinOpset, kMaxOpset);
  return *opset;
}

// Calls `f` on `graph`, then on the subgraphs its nodes hold (If's branches, a Loop's or
// Scan's body), theirs in turn, and so on; stops at the first error.
Status for_each_graph(onnx::GraphProto& graph, const std::function<Status(onnx::GraphProto&)>& f) {
  UMA_TRY(f(graph));
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) UMA_TRY(for_each_graph(*attr.mutable_g(), f));
      for (onnx::GraphProto& subgraph : *attr.mutable_graphs())
        UMA_TRY(for_each_graph(subgraph, f));
    }
  }
  return Status::success();
}

// Gives unnamed nodes the name "<op_type>_<index>", so every message and location has one.
void name_nodes(onnx::GraphProto& graph) {
  for (int i = 0; i < graph.node_size(); ++i) {
    onnx::NodeProto& node = *graph.mutable_node(i);
    if (node.name().empty()) node.set_name(fmt::format("{}_{}", node.op_type(), i));
  }
}

// One error listing every op without a converter, in the graph and its subgraphs, with the
// nodes that use it.
Status check_supported(onnx::GraphProto& graph, const ConverterTable& table) {
  std::vector<std::pair<std::string, std::vector<std::string>>> unsupported;
  std::unordered_set<std::string> listed;
  (void)for_each_graph(graph, [&](const onnx::GraphProto& g) {
    for (const onnx::NodeProto& node : g.node()) {
      if (is_default_domain(node.domain()) && table.find(node.op_type()) != nullptr) continue;
      std::string op = qualified_op(node);
      auto it = std::find_if(unsupported.begin(), unsupported.end(),
                             [&](const auto& entry) { return entry.first == op; });
      if (it == unsupported.end()) it = unsupported.insert(unsupported.end(), {op, {}});
      // Subgraphs may repeat a name (two branches' "SequenceConstruct_1").
      if (listed.insert(op + '\0' + node.name()).second) it->second.push_back(node.name());
    }
    return Status::success();
  });
  if (unsupported.empty()) return Status::success();
  std::string list;
  for (const auto& [op, nodes] : unsupported) {
    if (!list.empty()) list += ", ";
    list += fmt::format("{} (node{} ", op, nodes.size() > 1 ? "s" : "");
    for (std::size_t i = 0; i < nodes.size() && i < kMaxNamesPerOp; ++i)
      list += fmt::format("{}'{}'", i ? ", " : "", nodes[i]);
    if (nodes.size() > kMaxNamesPerOp)
      list += fmt::format(" and {} more", nodes.size() - kMaxNamesPerOp);
    list += ")";
  }
  return make_error("unsupported ops: {}", list);
}

// Refuses the first node (of the graph or a subgraph) whose op the model's opset defines
// otherwise than its converter implements (see ConverterEntry).
Status check_op_versions(const onnx::GraphProto& graph, const ConverterTable& table,
                         std::int64_t opset) {
  for (const onnx::NodeProto& node : graph.node()) {
    const onnx_import::ConverterEntry* entry = table.find(node.op_type());
    if (entry == nullptr || opset >= entry->since) continue;
    return make_error(
        "{}: {} of opset {} is not supported: uma converts {} as defined from opset {} on "
        "(onnx.version_converter can update the model)",
        node_label(node), node.op_type(), opset, node.op_type(), entry->since);
  }
  return Status::success();
}

// Reads external data of tensors in node attributes into the nodes, so that converters
// (which see attributes through NodeContext) never need the model's folder.
Status inline_attribute_tensors(onnx::GraphProto& graph, const std::string& model_dir) {
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      if (!attr.has_t() || attr.t().data_location() != onnx::TensorProto::EXTERNAL) continue;
      auto tensor =
          tensor_from_onnx(attr.t(), fmt::format("attribute '{}'", attr.name()), model_dir);
      if (!tensor) return tensor.error().with_context(node_label(node));
      *attr.mutable_t() = tensor_to_onnx(**tensor, attr.t().name());
    }
  }
  return Status::success();
}

// The names one graph defines: the main graph's, or those of one import of a subgraph (a
// loop body defines its names anew in each iteration).
struct Scope {
  const onnx::GraphProto* graph = nullptr;
  // Which node of `graph` produces each name, to tell a graph out of order from a missing input.
  std::unordered_map<std::string, std::size_t> producers;
  std::unordered_map<std::string, TensorPtr> initializers;
  std::unordered_map<std::string, Value*> values;
  // Outputs a converter did not produce (optional outputs uma does not compute).
  std::unordered_set<std::string> unavailable;
};

// Converts the graph of one model into @main; subgraphs of control flow are imported inline
// by the same conversion, in a scope of their own (SubgraphImporter).
class GraphImporter : public onnx_import::SubgraphImporter {
 public:
  GraphImporter(Function& function, std::string model_dir, const InitializerData& data,
                std::int64_t opset, const OnnxImportOptions& options)
      : rewriter_(function),
        model_dir_(std::move(model_dir)),
        data_(data),
        opset_(opset),
        options_(options) {}

  Status run(onnx::GraphProto& graph) {
    scopes_.push_back(Scope{&graph});
    UMA_TRY(index_producers());
    UMA_TRY(check_dense(graph));
    for (onnx::TensorProto& proto : *graph.mutable_initializer()) {
      UMA_TRY(add_initializer(proto));
      // The tensor has the bytes now; dropping the proto's copy keeps peak memory near
      // one copy of the weights.
      std::string().swap(*proto.mutable_raw_data());
    }
    UMA_TRY(add_inputs(graph));
    UMA_TRY_ASSIGN(std::vector<Value*> outputs, convert_nodes(graph));
    rewriter_.function().set_outputs(std::move(outputs));
    return Status::success();
  }

  Expected<std::vector<Value*>> import_subgraph(const onnx::GraphProto& graph,
                                                const std::vector<Value*>& inputs) override {
    if (static_cast<std::size_t>(graph.input_size()) != inputs.size())
      return make_error("the subgraph '{}' has {} inputs, but {} values are given (a bug in uma)",
                        graph.name(), graph.input_size(), inputs.size());
    // An empty subgraph counts as one node, so that unrolling it is bounded too.
    imported_subgraph_nodes_ += std::max(1, graph.node_size());
    scopes_.push_back(Scope{&graph});
    auto outputs = import_scope(graph, inputs);
    scopes_.pop_back();
    return outputs;
  }

  std::int64_t imported_subgraph_nodes() const override { return imported_subgraph_nodes_; }

 private:
  // A subgraph's initializers, inputs and nodes, in the innermost scope.
  Expected<std::vector<Value*>> import_scope(const onnx::GraphProto& graph,
                                             const std::vector<Value*>& inputs) {
    UMA_TRY(index_producers());
    UMA_TRY(check_dense(graph));
    for (const onnx::TensorProto& proto : graph.initializer()) UMA_TRY(add_initializer(proto));
    Scope& scope = scopes_.back();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::string& name = graph.input(static_cast<int>(i)).name();
      if (name.empty()) return make_error("input {} of subgraph '{}' has no name", i, graph.name());
      if (auto it = scope.producers.find(name); it != scope.producers.end())
        return make_error("subgraph input '{}' is also produced by node '{}'", name,
                          producer_name(scope, it->second));
      if (!scope.values.emplace(name, inputs[i]).second)
        return make_error("two inputs of subgraph '{}' are named '{}'", graph.name(), name);
    }
    return convert_nodes(graph);
  }

  // Converts the graph's nodes in order; returns the values of its outputs.
  Expected<std::vector<Value*>> convert_nodes(const onnx::GraphProto& graph) {
    for (const onnx::NodeProto& node : graph.node()) UMA_TRY(convert(node));
    std::vector<Value*> outputs;
    for (const onnx::ValueInfoProto& output : graph.output()) {
      UMA_TRY_ASSIGN(Value * value, lookup(output.name(), nullptr));
      outputs.push_back(value);
    }
    return outputs;
  }

  static const std::string& producer_name(const Scope& scope, std::size_t index) {
    return scope.graph->node(static_cast<int>(index)).name();
  }

  Status index_producers() {
    const onnx::GraphProto& graph = *scopes_.back().graph;
    auto& producers = scopes_.back().producers;
    for (int i = 0; i < graph.node_size(); ++i) {
      for (const std::string& output : graph.node(i).output()) {
        if (output.empty()) continue;
        auto [it, inserted] = producers.emplace(output, static_cast<std::size_t>(i));
        if (!inserted)
          return make_error("'{}' is produced by two nodes, '{}' and '{}'", output,
                            graph.node(static_cast<int>(it->second)).name(), graph.node(i).name());
      }
    }
    return Status::success();
  }

  static Status check_dense(const onnx::GraphProto& graph) {
    if (graph.sparse_initializer_size() > 0)
      return make_error("sparse initializers are not supported ('{}')",
                        graph.sparse_initializer(0).values().name());
    return Status::success();
  }

  // Reads one initializer of the graph of the innermost scope. A tensor is read once per
  // proto: a loop body's initializers serve every iteration.
  Status add_initializer(const onnx::TensorProto& proto) {
    Scope& scope = scopes_.back();
    const std::string& name = proto.name();
    if (name.empty()) return make_error("an initializer has no name");
    if (auto it = scope.producers.find(name); it != scope.producers.end())
      return make_error("initializer '{}' is also produced by node '{}'", name,
                        producer_name(scope, it->second));
    TensorPtr& tensor = tensors_[&proto];
    if (tensor == nullptr) {
      UMA_TRY_ASSIGN(tensor, tensor_from_onnx(proto, fmt::format("initializer '{}'", name),
                                              model_dir_, raw_data_of(data_, proto)));
    }
    if (!scope.initializers.emplace(name, tensor).second)
      return make_error("two initializers are named '{}'", name);
    return Status::success();
  }

  Status add_inputs(const onnx::GraphProto& graph) {
    Scope& scope = scopes_.back();
    // Before IR version 4 initializers were listed as inputs too; they stay constants.
    std::vector<const onnx::ValueInfoProto*> inputs;
    std::unordered_set<std::string_view> names;
    for (const onnx::ValueInfoProto& input : graph.input()) {
      if (scope.initializers.count(input.name()) != 0) continue;
      if (input.name().empty()) return make_error("a graph input has no name");
      if (!names.insert(input.name()).second)
        return make_error("two graph inputs are named '{}'", input.name());
      if (auto it = scope.producers.find(input.name()); it != scope.producers.end())
        return make_error("graph input '{}' is also produced by node '{}'", input.name(),
                          producer_name(scope, it->second));
      inputs.push_back(&input);
    }
    // The user's mistakes first: they are clearer than what they would cause.
    for (const auto& [name, shape] : options_.input_shapes) {
      if (names.count(name) != 0) continue;
      std::string list;
      for (const onnx::ValueInfoProto* input : inputs)
        list += fmt::format("{}'{}'", list.empty() ? "" : ", ", input->name());
      return make_error(
          "--input-shape names '{}', which is not an input of the model (its inputs: {})", name,
          list.empty() ? "none" : list);
    }
    for (const auto& [name, tensor] : options_.constant_inputs)
      if (names.count(name) == 0)
        return make_error("a value is bound to '{}', which is not an input of the model", name);
    for (const onnx::ValueInfoProto* input : inputs) {
      const std::string& name = input->name();
      auto given = options_.input_shapes.find(name);
      UMA_TRY_ASSIGN(TensorType type,
                     onnx_import::input_type(
                         *input, given == options_.input_shapes.end() ? nullptr : &given->second));
      if (auto bound = options_.constant_inputs.find(name);
          bound != options_.constant_inputs.end()) {
        if (bound->second == nullptr || !bound->second->has_data())
          return make_error("the value bound to input '{}' has no data", name);
        if (!(bound->second->type() == type))
          return make_error("the value bound to input '{}' is {}, but the input is {}", name,
                            to_string(Type(bound->second->type())), to_string(Type(type)));
        scope.initializers.emplace(name, bound->second);
        continue;
      }
      scope.values.emplace(name, rewriter_.function().add_param(std::move(type), name));
    }
    return Status::success();
  }

  // The value an ONNX name stands for, in the innermost scope that defines it; `user` (null
  // for graph outputs) is the node that asks.
  Expected<Value*> lookup(const std::string& name, const onnx::NodeProto* user) {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      if (auto it = scope->values.find(name); it != scope->values.end()) return it->second;
      if (auto it = scope->initializers.find(name); it != scope->initializers.end()) {
        // One constant per initializer, made where it is first used, sharing the tensor.
        Value* value = rewriter_.constant(it->second);
        value->set_name(name);
        scope->values.emplace(name, value);
        return value;
      }
      if (scope->unavailable.count(name) != 0)
        return make_error("'{}' is an output that uma's converter of its node does not produce{}",
                          name, user ? fmt::format(", but node '{}' uses it", user->name()) : "");
      // Not converted yet: the producer comes later than the user.
      if (user != nullptr && scope->producers.count(name) != 0)
        return make_error(
            "node '{}' uses '{}' before the node that produces it: the graph is not "
            "in topological order",
            user->name(), name);
    }
    if (user == nullptr)
      return make_error(
          "graph output '{}' is not produced by any node, and is neither an input "
          "nor an initializer",
          name);
    return make_error("missing initializer or input '{}' used by node '{}'", name, user->name());
  }

  Status convert(const onnx::NodeProto& node) {
    std::vector<Value*> inputs;
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      UMA_TRY_ASSIGN(Value * value, lookup(name, &node));
      inputs.push_back(value);
    }
    const onnx_import::ConverterEntry* converter = converters().find(node.op_type());
    UMA_CHECK(converter != nullptr, "op {} was checked to be supported", node.op_type());
    Function& function = rewriter_.function();
    Node* last = function.nodes().empty() ? nullptr : function.nodes().back().get();
    NodeContext context(node, std::move(inputs), opset_, rewriter_, this, &options_.run_inputs);
    auto outputs = converter->convert(context);
    if (!outputs) return outputs.error().with_context(node_label(node));
    if (outputs->size() > static_cast<std::size_t>(node.output_size()))
      return make_error("{}: the converter gave {} values for {} outputs (a bug in uma)",
                        node_label(node), outputs->size(), node.output_size());
    Node* first_new = last == nullptr
                          ? (function.nodes().empty() ? nullptr : function.nodes().front().get())
                          : function.node_after(last);
    if (Status folded = fold_new_nodes(first_new, node, *outputs); !folded)
      return folded.error().with_context(node_label(node));
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& name = node.output(i);
      if (name.empty()) continue;
      Value* value = static_cast<std::size_t>(i) < outputs->size()
                         ? (*outputs)[static_cast<std::size_t>(i)]
                         : nullptr;
      if (value == nullptr) {
        scopes_.back().unavailable.insert(name);
        continue;
      }
      if (value->name().empty()) value->set_name(name);
      scopes_.back().values.emplace(name, value);
    }
    return Status::success();
  }

  // Names the nodes a converter made after its ONNX node and folds those whose operands are
  // all constants (or that only read a static shape), updating `outputs` to the constants.
  Status fold_new_nodes(Node* first, const onnx::NodeProto& node, std::vector<Value*>& outputs) {
    std::unordered_map<const Value*, Value*> replaced;
    for (Node* current = first; current != nullptr;) {
      Node* next = rewriter_.function().node_after(current);
      if (current->name().empty()) current->set_name(node.name());
      std::vector<Value*> results = current->results();
      auto folded = fold(current);
      if (!folded) return folded.error();
      if (*folded)
        for (std::size_t i = 0; i < results.size(); ++i) replaced[results[i]] = (**folded)[i];
      current = next;
    }
    for (Value*& output : outputs)
      if (auto it = replaced.find(output); it != replaced.end()) output = it->second;
    return Status::success();
  }

  using Folded = std::optional<std::vector<Value*>>;
  Expected<Folded> fold(Node* node) {
    if (node->is_op("shape_of") && node->operand(0)->type().is_tensor() && node->op().kernel) {
      // Only the operand's (static) type matters, so its data need not be known; the
      // result is one number per dimension, too small to count against the budget.
      std::vector<TensorPtr> operand{Tensor::without_data(node->operand(0)->tensor_type())};
      std::vector<Type> types{node->result()->type()};
      auto shape = node->op().kernel(operand, node->attrs(), types);
      if (!shape) return shape.error().with_context(node->op_name());
      if (shape->size() != 1 || (*shape)[0] == nullptr || !(Type((*shape)[0]->type()) == types[0]))
        return make_error("shape_of's kernel gave no {} (a bug in the kernel)",
                          to_string(types[0]));
      return Folded(replace_by_constants(rewriter_, node, *shape));
    }
    if (folded_elements_ >= options_.max_folded_elements) return Folded();
    std::string op = node->op_name();
    auto constants = fold_node(rewriter_, node, options_.max_fold_elements);
    if (!constants) return constants.error().with_context(op);
    if (*constants)
      for (const Value* value : **constants)
        folded_elements_ += value->tensor_type().num_elements();
    return constants;
  }

  Rewriter rewriter_;
  std::string model_dir_;
  const InitializerData& data_;
  std::int64_t opset_;
  const OnnxImportOptions& options_;
  // The main graph's scope, then one per subgraph being imported, innermost last.
  std::deque<Scope> scopes_;
  // Every initializer's tensor, read once.
  std::unordered_map<const onnx::TensorProto*, TensorPtr> tensors_;
  std::int64_t folded_elements_ = 0;
  std::int64_t imported_subgraph_nodes_ = 0;
};

Expected<std::unique_ptr<Module>> import_model(Context& context, onnx::ModelProto& model,
                                               const InitializerData& data,
                                               const std::string& model_dir,
                                               const OnnxImportOptions& options) {
  UMA_TRY_ASSIGN(std::int64_t opset, default_opset(model));
  if (!model.has_graph()) return make_error("the model has no graph");
  onnx::GraphProto& graph = *model.mutable_graph();
  (void)for_each_graph(graph, [](onnx::GraphProto& g) {
    name_nodes(g);
    return Status::success();
  });
  UMA_TRY(check_supported(graph, converters()));
  UMA_TRY(for_each_graph(
      graph, [&](onnx::GraphProto& g) { return check_op_versions(g, converters(), opset); }));
  UMA_TRY(for_each_graph(
      graph, [&](onnx::GraphProto& g) { return inline_attribute_tensors(g, model_dir); }));
  UMA_TRY(onnx_import::fuse_qdq_convolutions(graph, data, model_dir));
  auto module = std::make_unique<Module>(context, graph.name().empty() ? "model" : graph.name());
  UMA_TRY_ASSIGN(Function * main, module->add_function("main"));
  UMA_TRY(GraphImporter(*main, model_dir, data, opset, options).run(graph));
  // Initializers only read at import (a Reshape's shape) and nodes no output needs go in
  // either case; canonicalization also turns what exporters emit into the ops backends
  // look for.
  PassManager cleanup;
  if (options.canonicalize)
    cleanup = create_canonicalize_pipeline();
  else
    cleanup.add(create_dce_pass());
  UMA_TRY_ASSIGN(bool changed, cleanup.run(*module));
  (void)changed;
  return module;
}

}  // namespace

std::vector<std::string> supported_onnx_ops() { return converters().op_types(); }

std::string onnx_op_family(std::string_view op_type) {
  const onnx_import::ConverterEntry* entry = converters().find(op_type);
  return entry == nullptr ? "" : entry->family;
}

Expected<std::unique_ptr<Module>> import_onnx_bytes(Context& context, std::string_view bytes,
                                                    std::string_view name,
                                                    const std::string& model_dir,
                                                    const OnnxImportOptions& options) {
  if (static_cast<std::int64_t>(bytes.size()) > kMaxProtoBytes)
    return make_error(
        "{}: the model is {} bytes; protobuf cannot parse 2 GB or more, so a model "
        "this large must keep its tensors in external data files",
        name, bytes.size());
  onnx::ModelProto model;
  InitializerData data;
  if (!onnx_import::parse_model(bytes, model, data))
    return make_error("{}: not an ONNX model (the protobuf does not parse)", name);
  auto module = import_model(context, model, data, model_dir, options);
  if (!module) return module.error().with_context(name);
  return module;
}

Expected<std::unique_ptr<Module>> import_onnx_file(Context& context, const std::string& path,
                                                   const OnnxImportOptions& options) {
  UMA_TRY_ASSIGN(RegularFile file, open_regular_file(path));
  if (file.size() > static_cast<std::uint64_t>(kMaxProtoBytes))
    return make_error(
        "{}: the file is {} bytes; protobuf cannot parse 2 GB or more, so a model "
        "this large must keep its tensors in external data files",
        path, file.size());
  // Parsed from one mapping, from which the initializers' bytes are copied once, straight
  // into their tensors.
  UMA_TRY_ASSIGN(MappedFile mapped, map_file(file, path));
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return import_onnx_bytes(context, mapped.bytes(), path, dir.empty() ? "." : dir.string(),
                           options);
}

}  // namespace uma
