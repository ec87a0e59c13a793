// The graph IR verifier: the IR's rules, checked in time linear in the module's size.
//
// Rules beyond those listed in verifier.h:
// - A function without outputs has no nodes either. Ops have no side effects, so nodes
//   whose values cannot leave the function are a pass that forgot to return them (an
//   outlining, a partitioning), caught here where it happens. An empty function
//   (`func @f() -> () { return }`, which the text format allows) is a harmless stub.
// - A node's stored attributes are normalized: every attribute of the op's schema is
//   present (defaults filled in) with exactly its schema kind, as the Builder and the
//   parser leave them, so kernels and lowering may read them without checks.
#include "uma/graph/verifier.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "uma/graph/builder.h"
#include "uma/support/printable.h"

namespace uma {
namespace {

class FunctionVerifier {
 public:
  explicit FunctionVerifier(const Function& function) : function_(function) {}

  Status run() {
    places_.reserve(function_.num_nodes());
    std::size_t slots = 0;
    for (const auto& node : function_.nodes()) {
      places_.emplace(node.get(), Place{places_.size(), slots});
      slots += node->num_operands();
    }
    first_output_slot_ = slots;
    recorded_.assign(slots + function_.outputs().size(), false);

    for (Value* param : function_.params()) UMA_TRY(check_use_list(param));
    for (const auto& node : function_.nodes())
      for (std::size_t i = 0; i < node->num_results(); ++i)
        UMA_TRY(check_use_list(node->result(i)));
    std::size_t position = 0;
    for (const auto& node : function_.nodes()) UMA_TRY(check_node(node.get(), position++));
    UMA_TRY(check_outputs());
    return check_function_attrs();
  }

 private:
  Error error(std::string_view message) const {
    return make_error("function @{}: {}", function_.name(), message);
  }
  Error error(const Node& node, std::string_view message) const {
    return make_error("function @{}: {}: {}", function_.name(), where(node), message);
  }

  // Node::location() without the function, which every message here names already.
  std::string where(const Node& node) const {
    if (!node.name().empty()) return node.location();
    auto it = places_.find(&node);
    if (it == places_.end()) return node.location();
    return fmt::format("node #{} ({})", it->second.position, node.op_name());
  }

  std::string describe(const Value& value) const {
    if (value.is_param()) return fmt::format("parameter {}", value.index());
    return fmt::format("result {} of {}", value.index(), where(*value.producer()));
  }

  // Only for uses whose user is known to be in the function.
  std::string describe(const Use& use) const {
    if (use.user == nullptr) return fmt::format("output {}", use.index);
    return fmt::format("operand {} of {}", use.index, where(*use.user));
  }

  // Each recorded use must point back at the value, and appear once; check_node and
  // check_outputs then find every actual use among the recorded ones.
  Status check_use_list(const Value* value) {
    for (const Use& use : value->uses()) {
      bool points_back;
      if (use.user == nullptr) {
        const auto& outputs = function_.outputs();
        points_back = use.index < outputs.size() && outputs[use.index] == value;
      } else {
        if (!places_.count(use.user))
          return error(fmt::format(
              "use lists out of sync: {} records a use by a node that is not in the function",
              describe(*value)));
        points_back = use.index < use.user->num_operands() && use.user->operand(use.index) == value;
      }
      if (!points_back)
        return error(fmt::format("use lists out of sync: {} records a use as {}, which is not it",
                                 describe(*value), describe(use)));
      std::size_t slot = slot_of(use);
      if (recorded_[slot])
        return error(fmt::format("use lists out of sync: {} records its use as {} twice",
                                 describe(*value), describe(use)));
      recorded_[slot] = true;
    }
    return Status::success();
  }

  // Where a use is marked in recorded_: operand slots node by node, then the outputs.
  // Only for uses that exist (check_use_list has checked them).
  std::size_t slot_of(const Use& use) const {
    if (use.user == nullptr) return first_output_slot_ + use.index;
    return places_.at(use.user).first_slot + use.index;
  }

  Status check_recorded(const Value* value, const Use& use) const {
    if (recorded_[slot_of(use)]) return Status::success();
    return error(fmt::format("use lists out of sync: {} is missing from the use list of {}",
                             describe(use), describe(*value)));
  }

  Status check_node(Node* user, std::size_t position) {
    const Node& node = *user;
    std::vector<Type> operand_types;
    operand_types.reserve(node.num_operands());
    for (std::size_t i = 0; i < node.num_operands(); ++i) {
      const Value* operand = node.operand(i);
      if (!operand->is_param()) {
        auto it = places_.find(operand->producer());
        if (it == places_.end() || it->second.position >= position)
          return error(node, fmt::format("operand {} is {}, which does not come before it", i,
                                         describe(*operand)));
      }
      UMA_TRY(check_recorded(operand, Use{user, static_cast<std::uint32_t>(i)}));
      operand_types.push_back(operand->type());
    }
    Status arity = node.op().check_arity(node.num_operands());
    if (!arity) return error(node, arity.error().message());
    UMA_TRY(check_attrs(node));
    UMA_TRY_ASSIGN(std::vector<Type> inferred, infer(node, operand_types));
    if (inferred.size() != node.num_results())
      return error(node, fmt::format("has {} result(s), inference gives {}", node.num_results(),
                                     inferred.size()));
    for (std::size_t i = 0; i < inferred.size(); ++i)
      if (!(node.result(i)->type() == inferred[i]))
        return error(node, fmt::format("result {} has type {}, inference gives {}", i,
                                       to_string(node.result(i)->type()), to_string(inferred[i])));
    return Status::success();
  }

  // Exactly the normalized form (see the file comment); normalize_attrs would accept
  // more, because it converts and fills in.
  Status check_attrs(const Node& node) const {
    const OpDef& op = node.op();
    for (const auto& [name, value] : node.attrs()) {
      if (is_discardable_attr(name)) continue;
      const AttrDef* def = op.find_attr(name);
      if (def == nullptr) return error(node, fmt::format("unknown attribute '{}'", name));
      if (attr_kind(value) != def->kind)
        return error(node,
                     fmt::format("attribute '{}' is {}, the op's schema says {}", name,
                                 attr_kind_name(attr_kind(value)), attr_kind_name(def->kind)));
    }
    for (const AttrDef& def : op.attrs)
      if (!node.attrs().has(def.name))
        return error(node, fmt::format("attribute '{}' is missing", def.name));
    return Status::success();
  }

  Expected<std::vector<Type>> infer(const Node& node,
                                    const std::vector<Type>& operand_types) const {
    if (node.is_op("call")) {
      const Function* callee = node.callee();
      if (callee == nullptr) return error(node, "a call without a callee");
      if (callee->module() != function_.module())
        return error(node, fmt::format("calls @{}, a function of another module", callee->name()));
      auto types = infer_call_types(*callee, operand_types);
      if (!types) return error(node, types.error().message());
      return types;
    }
    if (node.callee() != nullptr)
      return error(node, fmt::format("names callee @{}, but only call nodes have one",
                                     node.callee()->name()));
    AttrMap attrs = node.attrs();  // inference normalizes its attributes in place
    auto types = infer_node_types(node.op(), operand_types, attrs);
    if (!types) return error(node, types.error().message());
    return types;
  }

  Status check_outputs() const {
    const auto& outputs = function_.outputs();
    if (outputs.empty() && function_.num_nodes() > 0)
      return error(
          "has nodes but no outputs (ops have no side effects, so they compute nothing anyone "
          "can see)");
    for (std::size_t i = 0; i < outputs.size(); ++i)
      UMA_TRY(check_recorded(outputs[i], Use{nullptr, static_cast<std::uint32_t>(i)}));
    return Status::success();
  }

  Status check_function_attrs() const {
    for (std::string_view name : {"Composite", "Compiler", "global_symbol"}) {
      const Attribute* value = function_.attrs().find(name);
      if (value != nullptr && attr_kind(*value) != AttrKind::String)
        return error(fmt::format("attribute '{}' is {}, it must be a string", name,
                                 attr_kind_name(attr_kind(*value))));
    }
    return Status::success();
  }

  struct Place {
    std::size_t position;
    std::size_t first_slot;  // of its first operand in recorded_
  };

  const Function& function_;
  std::unordered_map<const Node*, Place> places_;
  // One flag per operand and output: whether a use list records it. Every recorded use
  // must point back and be recorded once, and every slot must end up set.
  std::vector<bool> recorded_;
  std::size_t first_output_slot_ = 0;
};

// Depth-first search over the call graph; a callee met again while still on the path
// closes a cycle, which is reported as the path that forms it. A function's depth (1, plus
// its deepest callee's) is known when it leaves the path.
Status check_call_graph(const Module& module) {
  std::unordered_map<const Function*, std::vector<const Function*>> callees;
  for (const Function* function : module.functions()) {
    auto& out = callees[function];
    for (const auto& node : function->nodes())
      if (node->callee() != nullptr) out.push_back(node->callee());
  }
  enum class State { kOnPath, kDone };
  std::unordered_map<const Function*, State> state;
  std::unordered_map<const Function*, std::size_t> depth;
  struct Frame {
    const Function* function;
    std::size_t next;
  };
  for (const Function* root : module.functions()) {
    if (state.count(root)) continue;
    std::vector<Frame> path = {{root, 0}};
    state[root] = State::kOnPath;
    while (!path.empty()) {
      Frame& frame = path.back();
      const auto& out = callees[frame.function];
      if (frame.next == out.size()) {
        std::size_t deepest = 0;
        const Function* through = nullptr;
        for (const Function* callee : out)
          if (depth[callee] > deepest)
            std::tie(deepest, through) = std::pair(depth[callee], callee);
        if (deepest + 1 > kMaxCallDepth)
          return make_error(
              "function @{}: calls nest more than {} functions deep (through @{}); the "
              "interpreter follows calls on its stack, so a deeper chain is refused",
              printable(frame.function->name()), kMaxCallDepth, printable(through->name()));
        depth[frame.function] = deepest + 1;
        state[frame.function] = State::kDone;
        path.pop_back();
        continue;
      }
      const Function* callee = out[frame.next++];
      auto it = state.find(callee);
      if (it == state.end()) {
        state[callee] = State::kOnPath;
        path.push_back({callee, 0});
      } else if (it->second == State::kOnPath) {
        std::string cycle;
        bool in_cycle = false;
        for (const Frame& f : path) {
          in_cycle |= f.function == callee;
          if (in_cycle) cycle += fmt::format("@{} -> ", f.function->name());
        }
        return make_error("function @{}: recursive calls {}@{} (recursion is not allowed)",
                          callee->name(), cycle, callee->name());
      }
    }
  }
  return Status::success();
}

}  // namespace

Status verify(const Function& function) { return FunctionVerifier(function).run(); }

Status verify(const Module& module) {
  for (const Function* function : module.functions()) UMA_TRY(verify(*function));
  return check_call_graph(module);
}

}  // namespace uma
