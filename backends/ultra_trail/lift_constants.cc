// ultra-trail-lift-constants (POST_PARTITIONING_1): the weights and biases of the functions
// partitioned for ultra_trail become their parameters (see passes.h for why).
//
// Assumes: such a function calls its composites, and the host functions call it.
// Guarantees: neither those functions nor their composites hold a constant; each constant
// is a parameter after the function's own (in node order, named like the constant), and
// every caller passes it from a constant node of its own, placed before the call. The
// values the module computes are unchanged.
#include <unordered_map>

#include "passes.h"
#include "uma/graph/rewriter.h"
#include "uma/partition/partition.h"

namespace uma::backends::ultra_trail {
namespace {

using CallMap = std::unordered_map<Function*, std::vector<Node*>>;

// The calls in `function`, by callee.
void collect_calls(const Function& function, CallMap& calls) {
  for (const auto& node : function.nodes())
    if (node->is_op("call")) calls[node->callee()].push_back(node.get());
}

// Makes each constant node of `callee` a new parameter and passes the constant from each of
// `calls` instead; a call gets the extra arguments by being built again. Whether there was a
// constant.
Expected<bool> lift(Function& callee, const std::vector<Node*>& calls) {
  std::vector<Value*> lifted;  // the parameters
  std::vector<TensorPtr> tensors;
  for (Node* node : callee.node_list()) {
    if (!node->is_op("constant")) continue;
    Value* constant = node->result();
    Value* param = callee.add_param(constant->type(), constant->name());
    constant->replace_all_uses_with(param);
    lifted.push_back(param);
    tensors.push_back(node->attrs().get_tensor("value"));
    callee.erase_node(node);
  }
  if (lifted.empty()) return false;
  for (Node* call : calls) {
    Rewriter rewriter(*call->function());
    rewriter.set_insertion_point(call);
    std::vector<Value*> arguments = call->operands();
    for (std::size_t i = 0; i < lifted.size(); ++i) {
      Value* constant = rewriter.constant(tensors[i]);
      constant->set_name(lifted[i]->name());
      arguments.push_back(constant);
    }
    UMA_TRY_ASSIGN(Node * fresh, rewriter.try_call(&callee, std::move(arguments), call->name()));
    for (std::size_t r = 0; r < call->num_results(); ++r)
      fresh->result(r)->set_name(call->result(r)->name());
    rewriter.replace_node(call, fresh->results());
  }
  return true;
}

}  // namespace

Expected<bool> lift_constants(Module& module, const Target&) {
  std::vector<Function*> functions = partitioned_functions(module);
  // Who calls them: the host's functions, walked once.
  CallMap host_calls;
  for (Function* caller : module.functions())
    if (!caller->attrs().has(kCompositeAttr) && !caller->attrs().has(kCompilerAttr))
      collect_calls(*caller, host_calls);
  bool changed = false;
  for (Function* function : functions) {
    // Each composite's constants into the function first, then all of them out of it.
    CallMap composite_calls;
    collect_calls(*function, composite_calls);
    for (auto& [composite, calls] : composite_calls) {
      UMA_TRY_ASSIGN(bool lifted, lift(*composite, calls));
      changed |= lifted;
    }
    UMA_TRY_ASSIGN(bool lifted, lift(*function, host_calls[function]));
    changed |= lifted;
  }
  return changed;
}

}  // namespace uma::backends::ultra_trail
