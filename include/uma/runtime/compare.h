// Comparing a computed tensor with an expected one, as numpy.testing.assert_allclose does:
// |actual - expected| <= atol + rtol * |expected| elementwise, NaN equal to NaN.
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
  bool ok() const { return same_type && mismatches == 0; }
};

TensorComparison compare_tensors(const Tensor& actual, const Tensor& expected, double rtol,
                                 double atol);

}  // namespace uma
