// What converters see of an ONNX node (NodeContext), and the table of converters.
#include "converter.h"

#include <fmt/format.h>

#include <set>

#include "uma/frontend/onnx/tensor_proto.h"

namespace uma::onnx_import {
namespace {

using onnx::AttributeProto;

// Whether the attribute holds the type a getter wants. Very old models leave `type` unset;
// the field that is present says it then.
bool has_type(const AttributeProto& attr, AttributeProto::AttributeType type) {
  if (attr.type() == type) return true;
  if (attr.type() != AttributeProto::UNDEFINED) return false;
  switch (type) {
    case AttributeProto::INT:
      return attr.has_i();
    case AttributeProto::FLOAT:
      return attr.has_f();
    case AttributeProto::STRING:
      return attr.has_s();
    case AttributeProto::TENSOR:
      return attr.has_t();
    case AttributeProto::INTS:
      return attr.ints_size() > 0;
    case AttributeProto::FLOATS:
      return attr.floats_size() > 0;
    case AttributeProto::GRAPH:
      return attr.has_g();
    default:
      return false;
  }
}

Error wrong_type(const AttributeProto& attr, AttributeProto::AttributeType expected) {
  auto name = [](AttributeProto::AttributeType type) {
    return AttributeProto::AttributeType_IsValid(type) ? AttributeProto::AttributeType_Name(type)
                                                       : fmt::format("{}", static_cast<int>(type));
  };
  return make_error("attribute '{}' has type {}, expected {}", attr.name(), name(attr.type()),
                    name(expected));
}

Error missing(std::string_view name) { return make_error("attribute '{}' is required", name); }

}  // namespace

TensorPtr constant_tensor(const Value* value) {
  if (value == nullptr || value->producer() == nullptr || !value->producer()->is_op("constant"))
    return nullptr;
  const TensorPtr& tensor = value->producer()->attrs().get_tensor("value");
  return tensor != nullptr && tensor->has_data() ? tensor : nullptr;
}

namespace {

// The model's inputs (parameters) that `value` is computed from, depth first in operand
// order; at most `limit` of them.
std::vector<std::string> inputs_behind(const Value* value, std::size_t limit) {
  std::vector<std::string> names;
  std::vector<const Value*> work{value};
  std::set<const Value*> seen{value};
  while (!work.empty() && names.size() < limit) {
    const Value* next = work.back();
    work.pop_back();
    if (next->is_param()) {
      names.push_back(next->name());
      continue;
    }
    const std::vector<Value*>& operands = next->producer()->operands();
    for (auto operand = operands.rbegin(); operand != operands.rend(); ++operand)
      if (seen.insert(*operand).second) work.push_back(*operand);
  }
  return names;
}

}  // namespace

Expected<TensorPtr> NodeContext::require_constant_input(std::size_t i, std::string_view what,
                                                        std::string_view why) const {
  if (!has_input(i)) return make_error("input {} ('{}') is missing", i, what);
  if (TensorPtr tensor = constant_input(i)) return tensor;
  const Value* value = input(i);
  // A run's own value of the model's input (uma run --input): the node is built for it.
  if (value->is_param() && run_inputs_ != nullptr)
    if (auto given = run_inputs_->find(value->name()); given != run_inputs_->end()) {
      if (!(Type(given->second->type()) == value->type()))
        return make_error(
            "input {} ('{}'): the value given for the model's input '{}' is {}, "
            "but the input is {}",
            i, what, value->name(), to_string(Type(given->second->type())),
            to_string(value->type()));
      return given->second;
    }
  std::string reason = why.empty() ? "uma needs its value at build time" : std::string(why);
  if (value->is_param())
    return make_error(
        "input {} ('{}') must be a constant: {}; it is the model's input '{}', so give its "
        "value with --bind {}=FILE",
        i, what, reason, value->name(), value->name());
  std::vector<std::string> inputs = inputs_behind(value, 4);
  if (inputs.empty())
    return make_error("input {} ('{}') must be a constant: {}, but it is computed at run time", i,
                      what, reason);
  return make_error(
      "input {} ('{}') must be a constant: {}, but it is computed at run time from the model's "
      "input(s) '{}'; give their values with --bind NAME=FILE",
      i, what, reason, fmt::join(inputs, "', '"));
}

Expected<TensorPtr> NodeContext::require_shaping_input(std::size_t i, std::string_view what) const {
  return require_constant_input(i, what,
                                "the node's output shape depends on its values, and uma's shapes "
                                "are static");
}

const AttributeProto* NodeContext::find_attr(std::string_view name) const {
  for (const AttributeProto& attr : node_.attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

bool NodeContext::has_attr(std::string_view name) const { return find_attr(name) != nullptr; }

Expected<std::int64_t> NodeContext::attr_int(std::string_view name,
                                             std::optional<std::int64_t> fallback) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr) return fallback ? Expected<std::int64_t>(*fallback) : missing(name);
  if (!has_type(*attr, AttributeProto::INT)) return wrong_type(*attr, AttributeProto::INT);
  return static_cast<std::int64_t>(attr->i());
}

Expected<double> NodeContext::attr_float(std::string_view name,
                                         std::optional<double> fallback) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr) return fallback ? Expected<double>(*fallback) : missing(name);
  // Some exporters write whole-number floats as ints; the value is the same.
  if (has_type(*attr, AttributeProto::INT)) return static_cast<double>(attr->i());
  if (!has_type(*attr, AttributeProto::FLOAT)) return wrong_type(*attr, AttributeProto::FLOAT);
  return static_cast<double>(attr->f());
}

Expected<std::string> NodeContext::attr_string(std::string_view name,
                                               std::optional<std::string> fallback) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr) return fallback ? Expected<std::string>(*fallback) : missing(name);
  if (!has_type(*attr, AttributeProto::STRING)) return wrong_type(*attr, AttributeProto::STRING);
  return attr->s();
}

Expected<std::vector<std::int64_t>> NodeContext::attr_ints(
    std::string_view name, std::optional<std::vector<std::int64_t>> fallback) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr)
    return fallback ? Expected<std::vector<std::int64_t>>(*fallback) : missing(name);
  if (!has_type(*attr, AttributeProto::INTS)) return wrong_type(*attr, AttributeProto::INTS);
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

Expected<std::vector<double>> NodeContext::attr_floats(
    std::string_view name, std::optional<std::vector<double>> fallback) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr) return fallback ? Expected<std::vector<double>>(*fallback) : missing(name);
  if (!has_type(*attr, AttributeProto::FLOATS)) return wrong_type(*attr, AttributeProto::FLOATS);
  return std::vector<double>(attr->floats().begin(), attr->floats().end());
}

Expected<TensorPtr> NodeContext::attr_tensor(std::string_view name) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr) return missing(name);
  if (!has_type(*attr, AttributeProto::TENSOR)) return wrong_type(*attr, AttributeProto::TENSOR);
  // The importer has already read external data of attribute tensors into the node.
  UMA_TRY_ASSIGN(auto tensor, tensor_from_onnx(attr->t(), fmt::format("attribute '{}'", name), ""));
  return TensorPtr(std::move(tensor));
}

Expected<const onnx::GraphProto*> NodeContext::attr_graph(std::string_view name) const {
  const AttributeProto* attr = find_attr(name);
  if (attr == nullptr) return missing(name);
  if (!has_type(*attr, AttributeProto::GRAPH)) return wrong_type(*attr, AttributeProto::GRAPH);
  return &attr->g();
}

Expected<SubgraphImporter*> NodeContext::subgraphs() const {
  if (subgraphs_ == nullptr)
    return make_error("{} has a subgraph, but this context imports none (a bug in uma)",
                      node_.op_type());
  return subgraphs_;
}

Expected<Node*> NodeContext::emit(std::string_view op, std::vector<Value*> operands,
                                  AttrMap attrs) {
  // Unnamed, so that errors read "<op>: ..." under the importer's "node 'n' (OpType): ".
  UMA_TRY_ASSIGN(Node * node, builder_.try_create(op, std::move(operands), std::move(attrs)));
  node->set_name(node_.name());
  return node;
}

Expected<Value*> NodeContext::emit_value(std::string_view op, std::vector<Value*> operands,
                                         AttrMap attrs) {
  UMA_TRY_ASSIGN(Node * node, emit(op, std::move(operands), std::move(attrs)));
  if (node->num_results() != 1)
    return make_error("{} has {} results where one was expected (a bug in uma's converter)", op,
                      node->num_results());
  return node->result();
}

Value* NodeContext::constant(TensorPtr tensor) {
  Value* value = builder_.constant(std::move(tensor));
  value->producer()->set_name(node_.name());
  return value;
}

void ConverterTable::add(std::string op_type, std::int64_t since, Converter converter) {
  bool added =
      converters_.emplace(op_type, ConverterEntry{since, std::move(converter), family_}).second;
  UMA_CHECK(added, "two converters for ONNX op {}", op_type);
}

const ConverterEntry* ConverterTable::find(std::string_view op_type) const {
  auto it = converters_.find(op_type);
  return it == converters_.end() ? nullptr : &it->second;
}

std::vector<std::string> ConverterTable::op_types() const {
  std::vector<std::string> names;
  names.reserve(converters_.size());
  for (const auto& entry : converters_) names.push_back(entry.first);
  return names;
}

}  // namespace uma::onnx_import
