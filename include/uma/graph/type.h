// Types of graph values: tensors with a static shape, and tuples of types.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "uma/graph/dtype.h"
#include "uma/support/error.h"

namespace uma {

using Shape = std::vector<std::int64_t>;

struct TensorType {
  DType dtype = DType::f32;
  Shape shape;

  std::size_t rank() const { return shape.size(); }
  // Element count; an Error when a dimension is negative or the product overflows.
  Expected<std::int64_t> checked_num_elements() const;
  // Element count of a type already known to be valid (checked on construction paths).
  std::int64_t num_elements() const;
  std::int64_t num_bytes() const {
    return num_elements() * static_cast<std::int64_t>(dtype_size(dtype));
  }
  bool operator==(const TensorType&) const = default;
};

class Type;

struct TupleType {
  std::vector<Type> fields;
  bool operator==(const TupleType& other) const;
};

// A tensor type or a tuple type.
class Type {
 public:
  Type(TensorType tensor) : v_(std::move(tensor)) {}  // NOLINT: implicit by design
  Type(TupleType tuple) : v_(std::move(tuple)) {}     // NOLINT: implicit by design

  bool is_tensor() const { return v_.index() == 0; }
  bool is_tuple() const { return v_.index() == 1; }
  const TensorType& tensor() const { return std::get<0>(v_); }
  const TupleType& tuple() const { return std::get<1>(v_); }

  bool operator==(const Type& other) const { return v_ == other.v_; }

 private:
  std::variant<TensorType, TupleType> v_;
};

// "tensor<1x3x224x224xf32>", "tensor<f32>", "tuple<tensor<2xf32>, tensor<i64>>"
std::string to_string(const Type& type);
std::string to_string(const Shape& shape);  // "1x3x224x224"

}  // namespace uma
