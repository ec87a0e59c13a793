// An array that an extern call takes as one argument: a kernel's list of inputs (the operands
// of a concatenation, say), whose number the kernel's signature cannot fix.
#pragma once

#include <string_view>
#include <vector>

#include "uma/tir/ir.h"

namespace uma::tir {

// The intrinsic call "array" of the elements, all of one type (addresses, or scalars of one
// dtype); its type is a pointer. The C code generator prints it as a compound literal,
// `(void*[]){a, b}` or `(int64_t[]){2, 3}`, which lives until the end of the enclosing block:
// for the whole call that takes it.
inline constexpr std::string_view kArrayIntrinsic = "array";
Expr make_array(std::vector<Expr> elements);

}  // namespace uma::tir
