// Folding operations on immediates with the loop IR's semantics for each type; used by the
// simplifier.
#pragma once

#include <optional>

#include "uma/tir/ir.h"

namespace uma::tir {

// An immediate of `type` (integer, bool or float) holding `value`.
Expr make_const(DataType type, std::int64_t value);

// The immediate `a op b` for immediates `a` and `b` of one scalar type, or nullopt when the
// result is not certain at compile time:
// - i32 and i64 overflow is undefined in the generated C: not folded; smaller signed and all
//   unsigned types wrap around; Div and Mod are floor operations, never folded by zero;
// - floats are computed in their own precision (f16 and bf16 through f32, rounded back) so
//   the result is exactly IEEE's; float Mod is not folded, nor float Min/Max of a NaN or of
//   zeros of different signs (C's fmin and a select disagree there).
std::optional<Expr> fold_binary(ExprKind kind, const Expr& a, const Expr& b);
// The immediate cast of an immediate to a scalar `type`, or nullopt (a float out of the
// integer type's range, or NaN, converts to an undefined value in C).
std::optional<Expr> fold_cast(DataType type, const Expr& value);

}  // namespace uma::tir
