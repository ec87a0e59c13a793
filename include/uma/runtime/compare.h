// Comparing a computed tensor with an expected one, as numpy.testing.assert_allclose does:
// |actual - expected| <= atol + rtol * |expected| elementwise, NaN equal to NaN; and the rule
// compiled code is checked by, whose absolute term follows the output's scale.
#pragma once

#include <cstdint>

#include "uma/graph/tensor.h"

namespace uma {

struct TensorComparison {
  bool same_type = false;       // dtype and shape agree; nothing else is meaningful if not
  std::int64_t mismatches = 0;  // elements outside the tolerance
  std::int64_t first_mismatch = -1;
  double max_abs_error = 0;  // over finite pairs
  double max_rel_error = 0;  // |a - e| / |e| over finite pairs with e != 0
  double max_expected = 0;   // the largest |e| over finite pairs
  bool ok() const { return same_type && mismatches == 0; }
};

TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, double rtol,
                                 double atol);

// The rule compiled outputs are held to (uma run --check, the real models' tests in
// tests/models/check_models.py): numpy's with the absolute term scaled by the largest finite
// magnitude of `expected`, |actual - expected| <= rtol * |expected| + atol * max|expected|.
// Code that sums in f32 in another order than the reference errs by the magnitude of the
// terms, not of the result, so an element near zero by cancellation cannot meet a relative
// bound alone; the defaults hold every exported model with a margin of 20x.
inline constexpr double kCheckRtol = 1e-4;
inline constexpr double kCheckAtol = 1e-5;  // times max|expected|
TensorComparison compare_scaled(const Tensor& actual, const Tensor& expected,
                                double rtol = kCheckRtol, double atol = kCheckAtol);

// A tolerance by compare_scaled's rule; what a backend declares for its results of a dtype
// (Backend::set_tolerance).
struct Tolerance {
  double rtol = kCheckRtol;
  double atol = kCheckAtol;  // times max|expected|
};
// Without a declaration: kCheckRtol and kCheckAtol, but 1e-2 for both in f16 and bf16, which
// round each result to 11 and 8 bits.
Tolerance default_tolerance(DType dtype);
// The looser of the two in each term.
Tolerance loosest(const Tolerance& a, const Tolerance& b);

}  // namespace uma
