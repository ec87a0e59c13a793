// The reference interpreter: runs a graph function node by node with each op's reference
// kernel. It is the yardstick every backend is compared against, so it favours obvious
// correctness over speed.
#pragma once

#include <cstdint>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/graph/tensor.h"

namespace uma {

// Runs `function` on `arguments` and returns its outputs.
//
// Tuples are flattened at the boundary: a tuple-typed parameter takes its fields as
// consecutive arguments, and a tuple-typed output is returned as its fields, depth-first,
// in place. A function of tensors only therefore takes one argument per parameter and
// returns one tensor per output.
//
// Errors: a wrong argument count, type or a tensor without data; a node whose op has no
// reference kernel, or whose kernel fails (named by the node's location); a recursive call.
// Each intermediate tensor is released as soon as its last user has run.
Expected<std::vector<TensorPtr>> interpret(const Function& function,
                                           const std::vector<TensorPtr>& arguments);

// Runs the module's @main.
Expected<std::vector<TensorPtr>> interpret(const Module& module,
                                           const std::vector<TensorPtr>& arguments);

// Deterministic inputs for `function`, flattened like interpret's arguments: floats uniform
// in [-1, 1), signed integers in [-5, 5], unsigned integers in [0, 10], bool 0 or 1. The same
// seed gives the same tensors on every platform (std::mt19937_64 is fully specified; no std
// distributions, whose output differs between standard libraries).
std::vector<TensorPtr> random_inputs(const Function& function, std::uint64_t seed);

}  // namespace uma
