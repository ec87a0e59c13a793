// Shape arithmetic shared by the op families.
#include "uma/op/shape_util.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

namespace uma {

Status check_tensor_operands(const std::vector<Type>& operands) {
  for (std::size_t i = 0; i < operands.size(); ++i)
    if (!operands[i].is_tensor())
      return make_error("operand {} is {}, not a tensor", i, to_string(operands[i]));
  return Status::success();
}

Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    // Dimension i of the output is dimension i - (rank - size) of each operand, if any.
    std::int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    std::int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      return make_error("operands have incompatible shapes {} and {} (dimension {}: {} vs {})",
                        to_string(a), to_string(b), i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::optional<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank) {
  auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

std::string valid_axes(std::size_t rank) {
  if (rank == 0) return "a scalar has no axes";
  return fmt::format("the valid range for rank {} is [-{}, {}]", rank, rank, rank - 1);
}

std::vector<std::int64_t> row_major_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

std::vector<std::int64_t> broadcast_strides(const Shape& from, const Shape& to) {
  UMA_CHECK(from.size() <= to.size());
  std::vector<std::int64_t> own = row_major_strides(from);
  std::vector<std::int64_t> strides(to.size(), 0);
  std::size_t lead = to.size() - from.size();
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1) strides[lead + i] = own[i];
  return strides;
}

std::int64_t strided_offset(std::int64_t linear, const Shape& shape,
                            const std::vector<std::int64_t>& strides) {
  std::int64_t offset = 0;
  for (std::size_t i = shape.size(); i-- > 0;) {
    offset += (linear % shape[i]) * strides[i];
    linear /= shape[i];
  }
  return offset;
}

bool one_per_element_of(const Shape& operand, const Shape& out, std::size_t axis) {
  if (operand.size() > out.size() || axis >= out.size()) return false;
  std::size_t offset = out.size() - operand.size();
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != 1 && !(offset + i == axis && operand[i] == out[axis])) return false;
    elements *= operand[i];
  }
  return elements == out[axis];
}

std::int64_t product(const Shape& shape, std::size_t begin, std::size_t end) {
  std::int64_t result = 1;
  for (std::size_t i = begin; i < end; ++i) result *= shape[i];
  return result;
}

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
  return result;
}

std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
  return result;
}

Status check_result_type(const TensorType& result) {
  Expected<std::int64_t> count = result.checked_num_elements();
  if (!count) return count.error().with_context("result");
  return Status::success();
}

std::string format_ints(const std::vector<std::int64_t>& values) {
  return fmt::format("[{}]", fmt::join(values, ", "));
}

}  // namespace uma
