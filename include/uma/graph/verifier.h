// The graph IR's rules, written down as code.
#pragma once

#include "uma/graph/ir.h"

namespace uma {

// Checks: every operand is defined earlier in the same function (SSA, hence no cycles);
// use lists agree with operands; each node's attributes fit its op's schema and its
// result types are the inferred ones; calls name a function of the module, match its
// signature, and the call graph has no cycle; function attributes have the expected
// kinds. Returns the first violation, naming the function and node.
Status verify(const Module& module);
Status verify(const Function& function);

}  // namespace uma
