// The graph IR: a Module of Functions, each a list of Nodes in topological order that
// produce typed SSA Values. Mutable, with use lists; passes change it through the
// Builder and Rewriter (builder.h, rewriter.h).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/type.h"
#include "uma/op/op_registry.h"
#include "uma/support/liveness.h"

namespace uma {

class Context;
class Function;
class Module;
class Node;

// One use of a value: operand `index` of `user`, or (user == nullptr) output `index`
// of the function.
struct Use {
  Node* user;
  std::uint32_t index;
  bool operator==(const Use&) const = default;
};

// A function parameter or a node's result.
class Value {
 public:
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const Type& type() const { return type_; }
  void set_type(Type type) { type_ = std::move(type); }
  // The tensor type; the value must not be a tuple.
  const TensorType& tensor_type() const { return type_.tensor(); }

  // The name from the model or the text; may be empty, and need not be unique.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  bool is_param() const { return producer_ == nullptr; }
  Node* producer() const { return producer_; }    // nullptr for parameters
  std::uint32_t index() const { return index_; }  // result or parameter index
  Function* function() const { return function_; }

  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  // Redirects every use of this value (operands and function outputs) to `other`.
  void replace_all_uses_with(Value* other);

  // Expires when the value is destroyed (with its node or function).
  const Liveness& liveness() const { return liveness_; }

 private:
  friend class Function;
  friend class Node;
  Value(Type type, Function* function, Node* producer, std::uint32_t index)
      : type_(std::move(type)), function_(function), producer_(producer), index_(index) {}
  void add_use(Use use) { uses_.push_back(use); }
  void remove_use(Use use);

  Type type_;
  std::string name_;
  Function* function_;
  Node* producer_;
  std::uint32_t index_;
  std::vector<Use> uses_;
  Liveness liveness_;
};

// One application of an op. `call` nodes also name their callee function.
class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();

  const OpDef& op() const { return *op_; }
  const std::string& op_name() const { return op_->name; }
  bool is_op(std::string_view name) const { return op_->name == name; }

  const std::vector<Value*>& operands() const { return operands_; }
  Value* operand(std::size_t i) const { return operands_[i]; }
  std::size_t num_operands() const { return operands_.size(); }
  void set_operand(std::size_t i, Value* value);

  std::size_t num_results() const { return results_.size(); }
  Value* result(std::size_t i = 0) const { return results_[i].get(); }
  std::vector<Value*> results() const;

  const AttrMap& attrs() const { return attrs_; }
  AttrMap& mutable_attrs() { return attrs_; }

  Function* callee() const { return callee_; }  // set for `call` nodes only
  void set_callee(Function* callee) { callee_ = callee; }

  // The node's name in the model (an ONNX node name); kept as its location.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // How diagnostics name this node: "node 'conv1' (nn.conv2d)" or "node #3 (nn.conv2d)".
  // An unnamed node is named by its position, which this finds by walking the function.
  std::string location() const;
  // The same, for a caller that knows the node's position in its function (a pass naming
  // many nodes, where a walk for each would be quadratic).
  std::string location(std::size_t position) const;

  Function* function() const { return function_; }
  // Expires when the node is erased or its function destroyed.
  const Liveness& liveness() const { return liveness_; }

 private:
  friend class Function;
  friend class Value;
  Node(const OpDef* op, Function* function) : op_(op), function_(function) {}

  const OpDef* op_;
  Function* function_;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  AttrMap attrs_;
  Function* callee_ = nullptr;
  std::string name_;
  std::list<std::unique_ptr<Node>>::iterator position_;
  Liveness liveness_;
};

// A function: parameters, nodes in topological order, and outputs.
class Function {
 public:
  using NodeList = std::list<std::unique_ptr<Node>>;

  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;
  ~Function();

  const std::string& name() const { return name_; }
  Module* module() const { return module_; }
  // Expires when the function is erased or its module destroyed.
  const Liveness& liveness() const { return liveness_; }

  // Function attributes: "Composite", "Compiler", "global_symbol", ...
  const AttrMap& attrs() const { return attrs_; }
  AttrMap& mutable_attrs() { return attrs_; }

  Value* add_param(Type type, std::string name = "");
  std::size_t num_params() const { return params_.size(); }
  Value* param(std::size_t i) const { return params_[i].get(); }
  std::vector<Value*> params() const;
  // Removes a parameter that has no uses; later parameters shift down.
  void erase_param(std::size_t i);

  const std::vector<Value*>& outputs() const { return outputs_; }
  void set_outputs(std::vector<Value*> outputs);
  void set_output(std::size_t i, Value* value);
  std::vector<Type> output_types() const;

  // Nodes in order. Iterating yields std::unique_ptr<Node>&; erasing the node an
  // iterator points at invalidates only that iterator.
  const NodeList& nodes() const { return nodes_; }
  std::size_t num_nodes() const { return nodes_.size(); }
  // A snapshot of the node order, safe to hold while the function changes.
  std::vector<Node*> node_list() const;
  // The node after / before `node`, or nullptr at the end / start.
  Node* node_after(const Node* node) const;
  Node* node_before(const Node* node) const;

  // Low-level creation: no inference, no checks; use Builder in passes.
  // Inserts before `before`, or at the end when it is nullptr.
  Node* insert_node(Node* before, const OpDef* op, std::vector<Value*> operands, AttrMap attrs,
                    std::vector<Type> result_types);
  // Erases a node whose results have no uses.
  void erase_node(Node* node);
  // Moves `node` to just before `before` (nullptr: the end).
  void move_node(Node* node, Node* before);

 private:
  friend class Module;
  friend class Value;
  Function(std::string name, Module* module) : name_(std::move(name)), module_(module) {}

  std::string name_;
  Module* module_;
  AttrMap attrs_;
  std::vector<std::unique_ptr<Value>> params_;
  NodeList nodes_;
  std::vector<Value*> outputs_;
  Liveness liveness_;
};

// A module: named functions in a fixed order. The entry function is "main" by convention.
class Module {
 public:
  explicit Module(Context& context, std::string name = "module");
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  Context& context() const { return *context_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Expires when the module is destroyed.
  const Liveness& liveness() const { return liveness_; }

  // Errors when a function of that name exists.
  Expected<Function*> add_function(std::string name);
  Function* find_function(std::string_view name) const;
  // Removes a function that no call refers to.
  void erase_function(Function* function);
  std::vector<Function*> functions() const;
  std::size_t num_functions() const { return functions_.size(); }

 private:
  Context* context_;
  std::string name_;
  std::vector<std::unique_ptr<Function>> functions_;
  std::map<std::string, Function*, std::less<>> by_name_;
  Liveness liveness_;
};

}  // namespace uma
