// Outlining: moving a set of a function's nodes into a new function of the module and calling
// it in their place. What partition-graph does with each region and fuse-ops with each group.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "uma/graph/ir.h"

namespace uma {

struct OutlineOptions {
  // Whether a constant node the nodes read (and that is not one of them) is cloned into the
  // new function (true) or passed to it as an argument (false, also when unset). A constant
  // the host no longer reads is then erased.
  std::function<bool(const Node& constant)> bind_constant;
  // The call's name (its location); empty by default.
  std::string call_name;
};

struct Outlined {
  Function* callee = nullptr;
  Node* call = nullptr;
};

// Moves `nodes` (nodes of `host`, in function order) into a new function of the host's module,
// named by `make_name` (called only when there is a function to make), and calls it where
// the first of them was:
// - its parameters are the values the nodes read from outside, without duplicates, in order
//   of first use (bound constants aside);
// - its outputs are the nodes' results read outside them (by other nodes or as the host's
//   outputs), in node order; the call has one result per output, named like the value it
//   replaces, and values keep their names inside;
// - the nodes are erased from the host.
// Returns a null callee, and changes nothing, when nothing outside reads the nodes. The host
// may then be out of topological order (a node computing an argument can come after the
// call): run restore_topological_order once all sets are outlined.
Expected<Outlined> outline(Function& host, std::span<Node* const> nodes,
                           const std::function<std::string()>& make_name,
                           const OutlineOptions& options = {});

// Moves nodes so that each comes after the nodes computing its operands. A node moves up only
// when an earlier node needs it, so the order stays the one the function had wherever it can.
// Errors when the nodes depend on one another in a cycle (outlined sets whose nodes reach one
// another through nodes outside them), naming a call of a Primitive function on it.
Status restore_topological_order(Function& function);

}  // namespace uma
