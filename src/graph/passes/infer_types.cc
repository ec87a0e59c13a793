// infer-types: recomputes every node's result types from its operands.
//
// Assumes: nodes are in topological order, attributes fit their op's schema, and the call
// graph has no cycle (a cycle is reported as an error). Parameter types are the given
// truth; everything else follows from them.
// Guarantees: every node's result types are the inferred ones, callees are processed
// before their callers (so a call sees its callee's updated outputs wherever the callee is
// defined), and the pass reports a change exactly when some type changed. A node whose
// types cannot be inferred, or whose result count would change, fails the pass with a
// message naming the node.
#include <unordered_map>

#include "uma/graph/builder.h"
#include "uma/graph/ir.h"
#include "uma/graph/pass.h"

namespace uma {
namespace {

// Functions with every callee before its callers (a post-order of the call graph).
Expected<std::vector<Function*>> callees_first(const Module& module) {
  enum class State { kOnPath, kDone };
  std::unordered_map<const Function*, State> state;
  std::vector<Function*> order;
  struct Frame {
    Function* function;
    std::vector<Node*> calls;
    std::size_t next = 0;
  };
  auto calls_of = [](const Function* function) {
    std::vector<Node*> calls;
    for (const auto& node : function->nodes())
      if (node->callee() != nullptr) calls.push_back(node.get());
    return calls;
  };
  for (Function* root : module.functions()) {
    if (state.count(root)) continue;
    std::vector<Frame> path;
    path.push_back({root, calls_of(root)});
    state[root] = State::kOnPath;
    while (!path.empty()) {
      Frame& frame = path.back();
      if (frame.next == frame.calls.size()) {
        state[frame.function] = State::kDone;
        order.push_back(frame.function);
        path.pop_back();
        continue;
      }
      Node* call = frame.calls[frame.next++];
      Function* callee = call->callee();
      if (callee->module() != &module)
        return make_error("{}: calls @{}, a function of another module", call->location(),
                          callee->name());
      auto it = state.find(callee);
      if (it == state.end()) {
        state[callee] = State::kOnPath;
        path.push_back({callee, calls_of(callee)});
      } else if (it->second == State::kOnPath) {
        return make_error("{}: calls @{} recursively (recursion is not allowed)", call->location(),
                          callee->name());
      }
    }
  }
  return order;
}

Expected<std::vector<Type>> infer(const Node& node) {
  std::vector<Type> operands;
  operands.reserve(node.num_operands());
  for (const Value* v : node.operands()) operands.push_back(v->type());
  if (node.is_op("call")) {
    if (node.callee() == nullptr) return make_error("a call without a callee");
    return infer_call_types(*node.callee(), operands);
  }
  AttrMap attrs = node.attrs();  // inference normalizes its attributes in place
  return infer_node_types(node.op(), operands, attrs);
}

Expected<bool> infer_function(Function& function) {
  bool changed = false;
  for (const auto& node : function.nodes()) {
    auto types = infer(*node);
    if (!types) return types.error().with_context(node->location());
    if (types->size() != node->num_results())
      return make_error("{}: has {} result(s), inference gives {}", node->location(),
                        node->num_results(), types->size());
    for (std::size_t i = 0; i < types->size(); ++i) {
      Value* result = node->result(i);
      if (result->type() == (*types)[i]) continue;
      result->set_type(std::move((*types)[i]));
      changed = true;
    }
  }
  return changed;
}

class InferTypesPass final : public Pass {
 public:
  std::string_view name() const override { return "infer-types"; }

  Expected<bool> run(Module& module) override {
    UMA_TRY_ASSIGN(std::vector<Function*> order, callees_first(module));
    bool changed = false;
    for (Function* function : order) {
      UMA_TRY_ASSIGN(bool function_changed, infer_function(*function));
      changed |= function_changed;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_infer_types_pass() { return std::make_unique<InferTypesPass>(); }

}  // namespace uma
