// Creating nodes with checked attributes and inferred types.
#include "uma/graph/builder.h"

// The op registry, reached through the module's context.
#include "uma/uma/context.h"

namespace uma {

Expected<std::vector<Type>> infer_node_types(const OpDef& op, const std::vector<Type>& operands,
                                             AttrMap& attrs) {
  UMA_TRY(op.check_arity(operands.size()));
  UMA_TRY(op.normalize_attrs(attrs));
  UMA_CHECK(op.infer != nullptr, "op {} has no inference rule", op.name);
  return op.infer(operands, attrs);
}

Expected<std::vector<Type>> infer_call_types(const Function& callee,
                                             const std::vector<Type>& arguments) {
  if (arguments.size() != callee.num_params())
    return make_error("call to @{} passes {} argument(s), the function takes {}", callee.name(),
                      arguments.size(), callee.num_params());
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (!(arguments[i] == callee.param(i)->type()))
      return make_error("call to @{}: argument {} is {}, the parameter is {}", callee.name(), i,
                        to_string(arguments[i]), to_string(callee.param(i)->type()));
  return callee.output_types();
}

namespace {

std::vector<Type> types_of(const std::vector<Value*>& values) {
  std::vector<Type> out;
  out.reserve(values.size());
  for (const Value* v : values) out.push_back(v->type());
  return out;
}

}  // namespace

Expected<Node*> Builder::try_create(std::string_view op_name, std::vector<Value*> operands,
                                    AttrMap attrs, std::string name) {
  const OpDef* op = function_->module()->context().ops().find(op_name);
  std::string where =
      name.empty() ? fmt::format("{}", op_name) : fmt::format("node '{}' ({})", name, op_name);
  if (op == nullptr) return make_error("{}: unknown op {}", where, op_name);
  if (op_name == "call") return make_error("{}: use call() to create calls", where);
  auto types = infer_node_types(*op, types_of(operands), attrs);
  if (!types) return types.error().with_context(where);
  Node* node = function_->insert_node(before_, op, std::move(operands), std::move(attrs),
                                      std::move(types.value()));
  node->set_name(std::move(name));
  return node;
}

Expected<Node*> Builder::try_call(Function* callee, std::vector<Value*> arguments,
                                  std::string name) {
  UMA_CHECK(callee != nullptr && callee->module() == function_->module());
  auto types = infer_call_types(*callee, types_of(arguments));
  if (!types) return types.error();
  const OpDef* op = function_->module()->context().ops().find("call");
  Node* node =
      function_->insert_node(before_, op, std::move(arguments), {}, std::move(types.value()));
  node->set_callee(callee);
  node->set_name(std::move(name));
  return node;
}

Node* Builder::create(std::string_view op, std::vector<Value*> operands, AttrMap attrs,
                      std::string name) {
  auto node = try_create(op, std::move(operands), std::move(attrs), std::move(name));
  UMA_CHECK(node.ok(), "{}", node.error().message());
  return node.value();
}

Value* Builder::value(std::string_view op, std::vector<Value*> operands, AttrMap attrs) {
  Node* node = create(op, std::move(operands), std::move(attrs));
  UMA_CHECK(node->num_results() == 1, "op {} has {} results", op, node->num_results());
  return node->result();
}

Value* Builder::constant(TensorPtr tensor) {
  AttrMap attrs;
  attrs.set("value", std::move(tensor));
  return value("constant", {}, std::move(attrs));
}

Value* Builder::tuple(std::vector<Value*> fields) { return value("tuple", std::move(fields)); }

Value* Builder::get_item(Value* tuple, std::int64_t index) {
  AttrMap attrs;
  attrs.set("index", index);
  return value("get_item", {tuple}, std::move(attrs));
}

Node* Builder::call(Function* callee, std::vector<Value*> arguments) {
  auto node = try_call(callee, std::move(arguments));
  UMA_CHECK(node.ok(), "{}", node.error().message());
  return node.value();
}

}  // namespace uma
