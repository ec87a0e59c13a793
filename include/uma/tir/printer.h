// The loop IR's text form (docs/loop-ir.md): C-like, one statement per line, stable so
// that golden tests can compare it exactly.
#pragma once

#include <ostream>
#include <string>

#include "uma/tir/ir.h"

namespace uma::tir {

// Variables and buffers print under their own names, made C identifiers and numbered
// (i, i_1, ...) when two distinct ones share a name; the numbering is per call, in the
// order the names are first printed.
std::string to_string(const Expr& e);
std::string to_string(const Stmt& s);  // every line ends with '\n'
void print(std::ostream& os, const PrimFunc& func);
std::string to_string(const PrimFunc& func);

}  // namespace uma::tir
