// The memory a run may take: a model whose values would not fit is refused before anything
// is allocated for it, naming the node, instead of dying in the allocator.
#pragma once

#include <cstdint>

#include "uma/graph/ir.h"

namespace uma::runtime {

// The machine's physical memory, in bytes (what a run can use at best).
std::uint64_t default_memory_budget();

// Checks every value of the module (parameters, node results, tuple fields) against
// `budget` bytes: the reference interpreter and the executor hold each of them whole. An
// error names the first value's node (or parameter), its type and bytes, and the budget.
Status check_memory_budget(const Module& module, std::uint64_t budget);

}  // namespace uma::runtime
