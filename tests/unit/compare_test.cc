// The tolerance rules outputs are compared by: numpy's allclose, and the scaled rule compiled
// builds and real models are checked by.
#include <gtest/gtest.h>

#include <limits>

#include "tensor_util.h"
#include "uma/runtime/compare.h"

namespace uma {
namespace {

using test::f32;

TEST(CompareTensors, IsNumpysAllclose) {
  auto expected = f32({3}, {1.0, -2.0, 0.0});
  TensorComparison close = compare_tensors(*f32({3}, {1.0005, -2.0, 1e-7}), *expected, 1e-3, 1e-6);
  EXPECT_TRUE(close.ok());
  EXPECT_DOUBLE_EQ(close.max_expected, 2.0);
  TensorComparison far = compare_tensors(*f32({3}, {1.0, -2.0, 1e-5}), *expected, 1e-3, 1e-6);
  EXPECT_FALSE(far.ok());
  EXPECT_EQ(far.mismatches, 1);
  EXPECT_EQ(far.first_mismatch, 2);
}

// An element near zero by cancellation errs like its neighbours: it is held to 1e-5 of the
// output's largest magnitude, and a large element to 1e-4 of itself.
TEST(CompareScaled, BoundsEachElementByItsValueAndTheOutputsScale) {
  auto expected = f32({3}, {1000.0, 1.5, 0.0});
  EXPECT_TRUE(compare_scaled(*f32({3}, {1000.09, 1.5003, -0.009}), *expected).ok());
  TensorComparison small = compare_scaled(*f32({3}, {1000.0, 1.5, 0.0105}), *expected);
  EXPECT_EQ(small.mismatches, 1);
  EXPECT_EQ(small.first_mismatch, 2);
  TensorComparison large = compare_scaled(*f32({3}, {1000.2, 1.5, 0.0}), *expected);
  EXPECT_EQ(large.first_mismatch, 0);
  EXPECT_DOUBLE_EQ(large.max_expected, 1000.0);
}

TEST(CompareScaled, IgnoresInfinitiesInTheScaleAndWantsThemEqual) {
  const double inf = std::numeric_limits<double>::infinity();
  auto expected = f32({2}, {inf, 2.0});
  EXPECT_TRUE(compare_scaled(*f32({2}, {inf, 2.0}), *expected).ok());
  EXPECT_FALSE(compare_scaled(*f32({2}, {-inf, 2.0}), *expected).ok());
  EXPECT_FALSE(compare_scaled(*f32({2}, {inf, 2.001}), *expected).ok());
}

TEST(CompareScaled, RefusesAnotherShape) {
  EXPECT_FALSE(compare_scaled(*f32({2}, {1, 2}), *f32({1, 2}, {1, 2})).same_type);
}

}  // namespace
}  // namespace uma
