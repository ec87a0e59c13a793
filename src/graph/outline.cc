// Outlining a set of nodes into a function, and restoring topological order after it.
#include "uma/graph/outline.h"

#include <unordered_map>
#include <unordered_set>

#include "uma/graph/rewriter.h"

namespace uma {

Expected<Outlined> outline(Function& host, std::span<Node* const> nodes,
                           const std::function<std::string()>& make_name,
                           const OutlineOptions& options) {
  std::unordered_set<const Node*> members(nodes.begin(), nodes.end());
  auto inside = [&](const Node* node) { return node != nullptr && members.count(node) != 0; };
  std::vector<Value*> inputs;
  std::vector<Node*> constants;  // bound into the function
  std::unordered_set<const Value*> seen;
  for (const Node* node : nodes)
    for (Value* operand : node->operands()) {
      Node* producer = operand->producer();
      if (inside(producer) || !seen.insert(operand).second) continue;
      if (producer != nullptr && producer->is_op("constant") && options.bind_constant &&
          options.bind_constant(*producer))
        constants.push_back(producer);
      else
        inputs.push_back(operand);
    }
  std::vector<Value*> outputs;
  for (const Node* node : nodes)
    for (std::size_t i = 0; i < node->num_results(); ++i)
      for (const Use& use : node->result(i)->uses())
        if (use.user == nullptr || !inside(use.user)) {
          outputs.push_back(node->result(i));
          break;
        }
  if (outputs.empty()) return Outlined{};

  Module& module = *host.module();
  UMA_TRY_ASSIGN(Function * callee, module.add_function(make_name()));
  ValueMap mapping;
  for (Value* input : inputs) mapping[input] = callee->add_param(input->type(), input->name());
  Rewriter body(*callee);
  body.clone(constants, mapping);
  body.clone(nodes, mapping);
  std::vector<Value*> returned;
  for (Value* output : outputs) returned.push_back(mapping.at(output));
  callee->set_outputs(std::move(returned));

  Rewriter rewriter(host);
  rewriter.set_insertion_point(nodes.front());
  UMA_TRY_ASSIGN(Node * call, rewriter.try_call(callee, inputs, options.call_name));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    call->result(i)->set_name(outputs[i]->name());
    rewriter.replace_all_uses(outputs[i], call->result(i));
  }
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) rewriter.erase(*it);
  for (Node* constant : constants)
    if (!constant->result()->has_uses()) rewriter.erase(constant);
  return Outlined{callee, call};
}

Status restore_topological_order(Function& function) {
  std::vector<Node*> nodes = function.node_list();
  enum class State : std::uint8_t { kNew, kOnPath, kPlaced };
  std::unordered_map<const Node*, State> state;
  state.reserve(nodes.size());
  std::vector<Node*> order;
  order.reserve(nodes.size());
  struct Frame {
    Node* node;
    std::size_t next_operand;
  };
  std::vector<Frame> path;
  for (Node* root : nodes) {
    if (state[root] != State::kNew) continue;
    state[root] = State::kOnPath;
    path.push_back({root, 0});
    while (!path.empty()) {
      Frame& frame = path.back();
      if (frame.next_operand == frame.node->num_operands()) {
        state[frame.node] = State::kPlaced;
        order.push_back(frame.node);
        path.pop_back();
        continue;
      }
      Node* producer = frame.node->operand(frame.next_operand++)->producer();
      if (producer == nullptr) continue;
      State& seen = state[producer];
      if (seen == State::kNew) {
        seen = State::kOnPath;
        path.push_back({producer, 0});
      } else if (seen == State::kOnPath) {
        // The cycle is the part of the path from `producer` on.
        std::string culprit = producer->location();
        bool on_cycle = false;
        for (const Frame& f : path) {
          on_cycle |= f.node == producer;
          if (on_cycle && f.node->callee() != nullptr && f.node->callee()->attrs().has("Primitive"))
            culprit = "@" + f.node->callee()->name();
        }
        return make_error(
            "function @{}: outlining its regions creates a cycle through {}: a region's nodes "
            "reach one another through nodes outside it",
            function.name(), culprit);
      }
    }
  }
  if (order != nodes)
    for (Node* node : order) function.move_node(node, nullptr);
  return Status::success();
}

}  // namespace uma
