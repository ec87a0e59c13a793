// Integer expressions seen as sums: sum(coefficient * term) + constant, the simplifier's
// canonical form of i32 and i64 index arithmetic.
#pragma once

#include <optional>
#include <vector>

#include "uma/tir/interval.h"

namespace uma::tir {

struct LinearTerm {
  Expr term;  // anything but a sum, a difference or a product by a constant
  std::int64_t coeff;
};

struct LinearForm {
  DataType type;
  std::vector<LinearTerm> terms;  // structurally distinct, nonzero coefficients
  std::int64_t constant = 0;

  bool is_constant() const { return terms.empty(); }
  // this += coeff * term, merging with an equal term. False when a coefficient overflows.
  bool add(const Expr& term, std::int64_t coeff);
  // this += scale * other. False on overflow.
  bool add(const LinearForm& other, std::int64_t scale);
};

// `e` (a scalar i32 or i64 expression) as a linear form, looking through +, - and products
// by constants; nullopt when a coefficient or the constant overflows int64.
std::optional<LinearForm> to_linear(const Expr& e);

// The canonical expression of a form: terms by decreasing magnitude of their coefficient
// (a flattened index reads n*3072 + c*64 + h*8 + w), then by a structural order of the
// terms, then in the order they were added; a positive term first when there is one, the
// constant last (`5 - i` when all terms are negative). Nullopt when a coefficient or the
// constant does not fit the type.
std::optional<Expr> from_linear(const LinearForm& form);

// The values of the form when its variables lie in `known`.
Interval bounds_of(const LinearForm& form, const Bounds& known);

// A total order on expressions by structure (kinds, types, names, values); distinct
// variables of one name compare equal. Returns <0, 0 or >0.
int compare_structure(const Expr& a, const Expr& b);

}  // namespace uma::tir
