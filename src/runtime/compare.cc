// Tolerance comparison of tensors (numpy.testing.assert_allclose's rule, and its absolute
// term scaled by the output's magnitude).
#include "uma/runtime/compare.h"

#include <algorithm>
#include <cmath>

namespace uma {

TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, double rtol,
                                 double atol) {
  TensorComparison result;
  if (!(actual.type() == expected.type())) return result;
  result.same_type = true;
  for (std::int64_t i = 0; i < actual.num_elements(); ++i) {
    double a = actual.get(i), e = expected.get(i);
    bool close;
    if (std::isnan(a) || std::isnan(e)) {
      close = std::isnan(a) && std::isnan(e);
    } else if (std::isinf(a) || std::isinf(e)) {
      close = a == e;
    } else {
      double error = std::abs(a - e);
      result.max_expected = std::max(result.max_expected, std::abs(e));
      result.max_abs_error = std::max(result.max_abs_error, error);
      if (e != 0) result.max_rel_error = std::max(result.max_rel_error, error / std::abs(e));
      close = error <= atol + rtol * std::abs(e);
    }
    if (!close) {
      if (result.mismatches == 0) result.first_mismatch = i;
      ++result.mismatches;
    }
  }
  return result;
}

TensorComparison compare_scaled(const Tensor& actual, const Tensor& expected, double rtol,
                                double atol) {
  double scale = 0;
  for (std::int64_t i = 0; i < expected.num_elements(); ++i)
    if (double e = expected.get(i); std::isfinite(e)) scale = std::max(scale, std::abs(e));
  return compare_tensors(actual, expected, rtol, atol * scale);
}

Tolerance default_tolerance(DType dtype) {
  if (dtype == DType::f16 || dtype == DType::bf16) return {.rtol = 1e-2, .atol = 1e-2};
  return {};
}

Tolerance loosest(const Tolerance& a, const Tolerance& b) {
  return {.rtol = std::max(a.rtol, b.rtol), .atol = std::max(a.atol, b.atol)};
}

}  // namespace uma
