// The arithmetic simplifier of the loop IR: constant folding, canonical index arithmetic,
// and rewrites decided by what is known of the variables' ranges.
#pragma once

#include "uma/tir/interval.h"
#include "uma/tir/ir.h"

namespace uma::tir {

// An expression equal to `e` for every value of its variables within `known`, simpler:
// - immediates fold for every type (const_fold.h: nothing whose result the target could
//   compute differently; no float identity that is not exact: x * 1.0 and x - 0.0 go, but
//   not x * 0.0 nor x + 0.0);
// - i32 and i64 sums become canonical linear forms (coefficient * term + constant, terms by
//   decreasing coefficient), so that x - x is 0 and (i + 1) * 4 - 4 is i * 4;
// - floor division and modulo by a constant split off the multiples of the divisor and use
//   bounds: (i * 4 + j) / 4 is i and (i * 4 + j) % 4 is j when 0 <= j < 4;
// - min, max and comparisons decided by bounds fold; others keep their terms on the left
//   and the constant on the right (i + 1 < n becomes i < n - 1);
// - `select` and logical operators with a constant operand fold; vectors of broadcasts
//   and ramps combine.
// i32 and i64 arithmetic is assumed not to overflow, as in the generated C.
Expr simplify(const Expr& e, const Bounds& known = {});

// `s` with every expression simplified, knowing each loop variable lies in
// [min, min + extent) below its loop and what an `if` condition on a variable says in
// its branches; loops of extent 1 become their body with the variable replaced by its
// min, loops of no iterations and `if (false)` without else vanish, `if (true)` becomes
// its body, and lets of constants or variables are substituted.
Stmt simplify(const Stmt& s, const Bounds& known = {});

}  // namespace uma::tir
