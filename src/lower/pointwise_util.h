// Helpers of the pointwise compute rules (private to src/lower/): values bound once,
// immediates holding exactly what the reference kernels would store, and conversions with
// the reference kernels' semantics.
#pragma once

#include <functional>
#include <string_view>

#include "uma/lower/compute.h"

namespace uma::lower {

// body(v), where v stands for `value`: a `let` when `value` is more than an immediate, a
// variable or a load, so that it is computed once however often `body` reads it.
tir::Expr bind(const tir::Expr& value, std::string_view name,
               const std::function<tir::Expr(const tir::Expr&)>& body);

// `value` as a tensor of `dtype` stores it (Tensor::set: floats rounded once to the dtype,
// integers truncated and wrapped), as an immediate of `dtype`.
tir::Expr stored_constant(DType dtype, double value);

// `x` converted to `dtype` as the cast op's reference kernel converts it: floats to
// integers truncate toward zero, saturate at the integer type's range and map NaN to 0
// (where C's conversion is undefined); everything else is C's conversion (integers wrap,
// floats round to nearest even, anything to bool is != 0).
tir::Expr convert(DType dtype, const tir::Expr& x);

// The result of a rule for a one-result pointwise op: the stage named after the op, of the
// node's result type.
std::vector<Stage> pointwise_result(const Node& node,
                                    std::function<tir::Expr(const Indices&)> element,
                                    bool injective = false);

}  // namespace uma::lower
