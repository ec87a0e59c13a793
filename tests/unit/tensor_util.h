// Helpers for unit tests that build tensors and attributes and read results back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/tensor.h"

namespace uma::test {

// Every dtype, in the order of UMA_FOR_EACH_DTYPE.
inline constexpr DType kAllDTypes[] = {
#define UMA_DTYPE_LISTED(e, name, type, bytes, kind) DType::e,
    UMA_FOR_EACH_DTYPE(UMA_DTYPE_LISTED)
#undef UMA_DTYPE_LISTED
};

// A tensor of `shape` holding `values` in row-major order (converted to the dtype).
inline std::shared_ptr<Tensor> make_tensor(DType dtype, Shape shape,
                                           const std::vector<double>& values) {
  auto tensor = std::make_shared<Tensor>(TensorType{dtype, std::move(shape)});
  UMA_CHECK(static_cast<std::int64_t>(values.size()) == tensor->num_elements(),
            "{} values for {} elements", values.size(), tensor->num_elements());
  for (std::size_t i = 0; i < values.size(); ++i)
    tensor->set(static_cast<std::int64_t>(i), values[i]);
  return tensor;
}

inline std::shared_ptr<Tensor> f32(Shape shape, const std::vector<double>& values) {
  return make_tensor(DType::f32, std::move(shape), values);
}

// Every element, converted to double.
inline std::vector<double> values_of(const Tensor& tensor) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < tensor.num_elements(); ++i) out.push_back(tensor.get(i));
  return out;
}

// Same length and every element within `tolerance` of the expected one.
inline void expect_near(const std::vector<double>& actual, const std::vector<double>& expected,
                        double tolerance = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

// A tensor of values in [-1, 1) from `seed` (the same on every platform).
inline TensorPtr random_tensor(Shape shape, unsigned seed, DType dtype = DType::f32) {
  auto t = std::make_shared<Tensor>(TensorType{dtype, std::move(shape)});
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t i = 0; i < t->num_elements(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    t->set(i, static_cast<double>((state >> 33) % 2000) / 1000.0 - 1.0);
  }
  return t;
}

inline AttrMap make_attrs(std::initializer_list<std::pair<std::string, Attribute>> entries) {
  AttrMap attrs;
  for (const auto& [name, value] : entries) attrs.set(name, value);
  return attrs;
}

}  // namespace uma::test
