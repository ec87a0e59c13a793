// Tensor and tuple types.
#include "uma/graph/type.h"

#include <limits>

namespace uma {

Expected<std::int64_t> TensorType::checked_num_elements() const {
  // The product of the nonzero dimensions must fit even when a zero makes the count 0:
  // code that multiplies a subset of the dimensions (a reshape, a reduction's outer size)
  // must never overflow on a valid type.
  std::int64_t product = 1;
  bool empty = false;
  for (std::int64_t dim : shape) {
    if (dim < 0) return make_error("negative dimension {} in shape {}", dim, uma::to_string(shape));
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (product > std::numeric_limits<std::int64_t>::max() / dim)
      return make_error("shape {} has more elements than fit in 64 bits", uma::to_string(shape));
    product *= dim;
  }
  // Bytes must fit too, so that every size computed from a valid type is safe.
  if (product > std::numeric_limits<std::int64_t>::max() / 8)
    return make_error("shape {} is too large", uma::to_string(shape));
  return empty ? 0 : product;
}

std::int64_t TensorType::num_elements() const {
  std::int64_t count = 1;
  for (std::int64_t dim : shape) count *= dim;
  return count;
}

bool TupleType::operator==(const TupleType& other) const { return fields == other.fields; }

std::string to_string(const Shape& shape) {
  std::string out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

std::string to_string(const Type& type) {
  if (type.is_tensor()) {
    const TensorType& t = type.tensor();
    std::string shape = to_string(t.shape);
    return fmt::format("tensor<{}{}{}>", shape, shape.empty() ? "" : "x", dtype_name(t.dtype));
  }
  std::string out = "tuple<";
  const auto& fields = type.tuple().fields;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += to_string(fields[i]);
  }
  return out + ">";
}

}  // namespace uma
