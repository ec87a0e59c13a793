// The graph IR's data structures and their use-list bookkeeping.
#include "uma/graph/ir.h"

#include <algorithm>

#include "uma/support/printable.h"

namespace uma {

// ---- Value ----

void Value::remove_use(Use use) {
  auto it = std::find(uses_.begin(), uses_.end(), use);
  UMA_CHECK(it != uses_.end(), "use list out of sync");
  *it = uses_.back();
  uses_.pop_back();
}

void Value::replace_all_uses_with(Value* other) {
  UMA_CHECK(other != nullptr && other->function_ == function_, "replacement from another function");
  if (other == this) return;
  std::vector<Use> uses = std::move(uses_);
  uses_.clear();
  for (const Use& use : uses) {
    if (use.user == nullptr)
      function_->outputs_[use.index] = other;
    else
      use.user->operands_[use.index] = other;
    other->add_use(use);
  }
}

// ---- Node ----

Node::~Node() = default;

void Node::set_operand(std::size_t i, Value* value) {
  UMA_CHECK(i < operands_.size());
  UMA_CHECK(value != nullptr && value->function_ == function_, "operand from another function");
  Use use{this, static_cast<std::uint32_t>(i)};
  operands_[i]->remove_use(use);
  operands_[i] = value;
  value->add_use(use);
}

std::vector<Value*> Node::results() const {
  std::vector<Value*> out;
  out.reserve(results_.size());
  for (const auto& r : results_) out.push_back(r.get());
  return out;
}

std::string Node::location() const {
  if (!name_.empty()) return location(0);  // a name needs no position
  std::size_t position = 0;
  for (const auto& node : function_->nodes()) {
    if (node.get() == this) break;
    ++position;
  }
  return location(position);
}

std::string Node::location(std::size_t position) const {
  // Names come from the model: escaped, so that a message cannot carry terminal controls.
  if (!name_.empty()) return fmt::format("node '{}' ({})", printable(name_), op_->name);
  // Unnamed nodes are named by their position, which is what a reader of the text sees.
  return fmt::format("node #{} ({}) in function @{}", position, op_->name,
                     printable(function_->name()));
}

// ---- Function ----

Function::~Function() {
  // Drop every use first so that values can be destroyed in any order.
  for (auto& node : nodes_) node->operands_.clear();
}

Value* Function::add_param(Type type, std::string name) {
  auto value = std::unique_ptr<Value>(
      new Value(std::move(type), this, nullptr, static_cast<std::uint32_t>(params_.size())));
  value->set_name(std::move(name));
  params_.push_back(std::move(value));
  return params_.back().get();
}

std::vector<Value*> Function::params() const {
  std::vector<Value*> out;
  out.reserve(params_.size());
  for (const auto& p : params_) out.push_back(p.get());
  return out;
}

void Function::erase_param(std::size_t i) {
  UMA_CHECK(i < params_.size() && !params_[i]->has_uses(), "erasing a parameter in use");
  params_.erase(params_.begin() + static_cast<std::ptrdiff_t>(i));
  for (std::size_t j = i; j < params_.size(); ++j)
    params_[j]->index_ = static_cast<std::uint32_t>(j);
}

void Function::set_outputs(std::vector<Value*> outputs) {
  for (std::size_t i = 0; i < outputs_.size(); ++i)
    outputs_[i]->remove_use(Use{nullptr, static_cast<std::uint32_t>(i)});
  outputs_ = std::move(outputs);
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    UMA_CHECK(outputs_[i] != nullptr && outputs_[i]->function_ == this,
              "output from another function");
    outputs_[i]->add_use(Use{nullptr, static_cast<std::uint32_t>(i)});
  }
}

void Function::set_output(std::size_t i, Value* value) {
  UMA_CHECK(i < outputs_.size() && value != nullptr && value->function_ == this);
  Use use{nullptr, static_cast<std::uint32_t>(i)};
  outputs_[i]->remove_use(use);
  outputs_[i] = value;
  value->add_use(use);
}

std::vector<Type> Function::output_types() const {
  std::vector<Type> out;
  out.reserve(outputs_.size());
  for (const Value* v : outputs_) out.push_back(v->type());
  return out;
}

std::vector<Node*> Function::node_list() const {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

Node* Function::node_after(const Node* node) const {
  auto it = std::next(node->position_);
  return it == nodes_.end() ? nullptr : it->get();
}

Node* Function::node_before(const Node* node) const {
  auto it = node->position_;
  return it == nodes_.begin() ? nullptr : std::prev(it)->get();
}

Node* Function::insert_node(Node* before, const OpDef* op, std::vector<Value*> operands,
                            AttrMap attrs, std::vector<Type> result_types) {
  UMA_CHECK(op != nullptr);
  UMA_CHECK(before == nullptr || before->function_ == this, "insertion point in another function");
  auto node = std::unique_ptr<Node>(new Node(op, this));
  Node* raw = node.get();
  raw->attrs_ = std::move(attrs);
  raw->operands_ = std::move(operands);
  for (std::size_t i = 0; i < raw->operands_.size(); ++i) {
    Value* v = raw->operands_[i];
    UMA_CHECK(v != nullptr && v->function_ == this, "operand from another function");
    v->add_use(Use{raw, static_cast<std::uint32_t>(i)});
  }
  for (std::size_t i = 0; i < result_types.size(); ++i)
    raw->results_.push_back(std::unique_ptr<Value>(
        new Value(std::move(result_types[i]), this, raw, static_cast<std::uint32_t>(i))));
  auto where = before == nullptr ? nodes_.end() : before->position_;
  raw->position_ = nodes_.insert(where, std::move(node));
  return raw;
}

void Function::erase_node(Node* node) {
  UMA_CHECK(node != nullptr && node->function_ == this);
  for (const auto& r : node->results_)
    UMA_CHECK(!r->has_uses(), "erasing {} whose result is still used", node->location());
  for (std::size_t i = 0; i < node->operands_.size(); ++i)
    node->operands_[i]->remove_use(Use{node, static_cast<std::uint32_t>(i)});
  node->operands_.clear();
  nodes_.erase(node->position_);
}

void Function::move_node(Node* node, Node* before) {
  UMA_CHECK(node != nullptr && node->function_ == this);
  UMA_CHECK(before == nullptr || before->function_ == this);
  if (node == before) return;
  auto where = before == nullptr ? nodes_.end() : before->position_;
  nodes_.splice(where, nodes_, node->position_);
}

// ---- Module ----

Module::Module(Context& context, std::string name) : context_(&context), name_(std::move(name)) {}

Module::~Module() = default;

Expected<Function*> Module::add_function(std::string name) {
  if (find_function(name) != nullptr) return make_error("function @{} is defined twice", name);
  functions_.push_back(std::unique_ptr<Function>(new Function(name, this)));
  by_name_.emplace(std::move(name), functions_.back().get());
  return functions_.back().get();
}

Function* Module::find_function(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

void Module::erase_function(Function* function) {
  for (const auto& f : functions_)
    for (const auto& n : f->nodes())
      UMA_CHECK(n->callee() != function || f.get() == function, "erasing @{} which is still called",
                function->name());
  auto it = std::find_if(functions_.begin(), functions_.end(),
                         [&](const auto& f) { return f.get() == function; });
  UMA_CHECK(it != functions_.end());
  by_name_.erase(by_name_.find(function->name()));
  functions_.erase(it);
}

std::vector<Function*> Module::functions() const {
  std::vector<Function*> out;
  out.reserve(functions_.size());
  for (const auto& f : functions_) out.push_back(f.get());
  return out;
}

}  // namespace uma
