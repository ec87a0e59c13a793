// Shape arithmetic shared by the op families: operand checks, broadcasting, axes, strides,
// and int64 arithmetic that reports overflow instead of wrapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "uma/graph/type.h"
#include "uma/support/error.h"

namespace uma {

// Every operand is a tensor; the error names the first that is a tuple.
Status check_tensor_operands(const std::vector<Type>& operands);

// numpy broadcasting: shapes align at their last dimension, and each pair of dimensions
// must be equal or contain a 1. Errors name the first (output) dimension that clashes.
Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// `axis` in [-rank, rank) made non-negative; nullopt when out of range.
std::optional<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank);
// The valid axes for an error message: "the valid range for rank 4 is [-4, 3]".
std::string valid_axes(std::size_t rank);

// Row-major strides, in elements.
std::vector<std::int64_t> row_major_strides(const Shape& shape);
// Strides that read a tensor of shape `from` as if broadcast to shape `to`: one per
// dimension of `to`, 0 where `from` is broadcast.
std::vector<std::int64_t> broadcast_strides(const Shape& from, const Shape& to);
// The offset, under `strides`, of the element at row-major position `linear` of `shape`.
std::int64_t strided_offset(std::int64_t linear, const Shape& shape,
                            const std::vector<std::int64_t>& strides);

// Whether `operand`, broadcast against `out` (aligned at the right, numpy's way), holds one
// value per element of `out`'s dimension `axis`, in order, and is constant along the others:
// a bias of one value per channel.
bool one_per_element_of(const Shape& operand, const Shape& out, std::size_t axis);

// The product of shape[begin, end); the shape must be valid, so it cannot overflow.
std::int64_t product(const Shape& shape, std::size_t begin, std::size_t end);

// nullopt when the result does not fit in int64.
std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b);

// The result type's element and byte counts fit in int64; the error says "result ...".
Status check_result_type(const TensorType& result);

// "[1, 2, 3]", for messages that quote an ints attribute.
std::string format_ints(const std::vector<std::int64_t>& values);

}  // namespace uma
