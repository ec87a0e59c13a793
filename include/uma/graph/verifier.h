// The graph IR's rules, written down as code.
#pragma once

#include <cstddef>

#include "uma/graph/ir.h"

namespace uma {

// The longest chain of calls a module may hold (@main counts as one): far beyond what a
// model's partitioning makes, and shallow enough for the interpreter's stack.
inline constexpr std::size_t kMaxCallDepth = 256;

// Checks: every operand is defined earlier in the same function (SSA, hence no cycles);
// use lists agree with operands; each node's attributes fit its op's schema and its
// result types are the inferred ones; calls name a function of the module, match its
// signature, and the call graph has no cycle and no path of more than kMaxCallDepth
// functions; function attributes have the expected kinds. Returns the first violation,
// naming the function and node.
Status verify(const Module& module);
Status verify(const Function& function);

}  // namespace uma
