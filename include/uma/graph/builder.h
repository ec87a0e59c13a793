// Creating nodes with their result types inferred and their attributes checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/ir.h"

namespace uma {

class Builder {
 public:
  // Inserts at the end of `function` until told otherwise.
  explicit Builder(Function& function) : function_(&function) {}

  Function& function() const { return *function_; }
  // New nodes go before `before`; nullptr means at the end.
  void set_insertion_point(Node* before) { before_ = before; }
  Node* insertion_point() const { return before_; }

  // Checks the operand count and attributes against the op's schema, fills in default
  // attributes and infers the result types. Errors name the op and the node.
  Expected<Node*> try_create(std::string_view op, std::vector<Value*> operands, AttrMap attrs = {},
                             std::string name = "");
  Expected<Node*> try_call(Function* callee, std::vector<Value*> arguments, std::string name = "");

  // The same for inputs the caller knows are valid: a failure is a bug in the caller.
  Node* create(std::string_view op, std::vector<Value*> operands, AttrMap attrs = {},
               std::string name = "");
  // Shorthand for a single-result op.
  Value* value(std::string_view op, std::vector<Value*> operands, AttrMap attrs = {});
  Value* constant(TensorPtr tensor);
  Value* tuple(std::vector<Value*> fields);
  Value* get_item(Value* tuple, std::int64_t index);
  Node* call(Function* callee, std::vector<Value*> arguments);

 private:
  Function* function_;
  Node* before_ = nullptr;
};

// Result types of `op` applied to `operands` with `attrs` (normalized in place).
Expected<std::vector<Type>> infer_node_types(const OpDef& op, const std::vector<Type>& operands,
                                             AttrMap& attrs);

// Types of a call's results, after checking the arguments against the callee's parameters.
Expected<std::vector<Type>> infer_call_types(const Function& callee,
                                             const std::vector<Type>& arguments);

}  // namespace uma
