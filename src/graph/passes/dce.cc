// dce: erases nodes whose results nothing uses, and functions the entry cannot reach.
//
// Assumes: a verified module. Every op is pure (calls included, since functions are made
// of ops), so a node is dead exactly when none of its results is used.
// Guarantees, in one run:
// - No node in any function has all of its results unused. Nodes are visited last to
//   first, so a chain of dead nodes dies at once, its users before it.
// - When the module has a function `main`, every function `main` cannot reach through
//   calls is erased. `main` is the entry a user runs, so nothing else can ever call them;
//   attributes such as `global_symbol` do not keep a function alive, because they name
//   functions for code generation, not extra entries. A module without `main` is a
//   library of functions with no known entry, so no function is erased.
// - Parameters are never removed: they are a function's signature, which callers and
//   users of the compiled model rely on.
#include <unordered_set>

#include "uma/graph/ir.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

bool is_dead(const Node& node) {
  for (std::size_t i = 0; i < node.num_results(); ++i)
    if (node.result(i)->has_uses()) return false;
  return true;
}

bool erase_dead_nodes(Function& function) {
  Rewriter rewriter(function);
  for (Node* node = function.nodes().empty() ? nullptr : function.nodes().back().get();
       node != nullptr;) {
    Node* previous = function.node_before(node);
    if (is_dead(*node)) rewriter.erase(node);
    node = previous;
  }
  return rewriter.changed();
}

std::unordered_set<const Function*> reachable_from(Function* entry) {
  std::unordered_set<const Function*> reached = {entry};
  std::vector<const Function*> work = {entry};
  while (!work.empty()) {
    const Function* function = work.back();
    work.pop_back();
    for (const auto& node : function->nodes()) {
      const Function* callee = node->callee();
      if (callee != nullptr && reached.insert(callee).second) work.push_back(callee);
    }
  }
  return reached;
}

// Unreachable functions may call one another; emptying them all first lets them be
// erased in any order.
void erase_functions(Module& module, const std::vector<Function*>& functions) {
  for (Function* function : functions) {
    function->set_outputs({});
    erase_dead_nodes(*function);
  }
  for (Function* function : functions) module.erase_function(function);
}

class DcePass final : public Pass {
 public:
  std::string_view name() const override { return "dce"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    // Nodes first: erasing a dead call can leave its callee unreachable.
    for (Function* function : module.functions()) changed |= erase_dead_nodes(*function);
    Function* entry = module.find_function("main");
    if (entry == nullptr) return changed;
    std::unordered_set<const Function*> reached = reachable_from(entry);
    std::vector<Function*> unreached;
    for (Function* function : module.functions())
      if (!reached.count(function)) unreached.push_back(function);
    erase_functions(module, unreached);
    return changed || !unreached.empty();
  }
};

}  // namespace

std::unique_ptr<Pass> create_dce_pass() { return std::make_unique<DcePass>(); }

}  // namespace uma
