// Helpers shared by the data-movement and reduction op families.
#include "transform_util.h"

#include <cmath>
#include <cstring>

#include "elementwise_util.h"
#include "uma/op/shape_util.h"

namespace uma {

Expected<std::size_t> axis_attr(const AttrMap& attrs, const char* name, std::size_t rank) {
  std::int64_t axis = attrs.get_int(name);
  std::optional<std::size_t> normalized = normalize_axis(axis, rank);
  if (!normalized) return make_error("attribute '{}' is {}, but {}", name, axis, valid_axes(rank));
  return *normalized;
}

Expected<std::vector<std::size_t>> axes_attr(const AttrMap& attrs, const char* name,
                                             std::size_t rank) {
  const std::vector<std::int64_t>& axes = attrs.get_ints(name);
  std::vector<std::size_t> normalized;
  std::vector<bool> seen(rank, false);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::optional<std::size_t> axis = normalize_axis(axes[i], rank);
    if (!axis)
      return make_error("attribute '{}' has {} at index {}, but {}", name, axes[i], i,
                        valid_axes(rank));
    if (seen[*axis])
      return make_error("attribute '{}' {} names axis {} twice", name, format_ints(axes), *axis);
    seen[*axis] = true;
    normalized.push_back(*axis);
  }
  return normalized;
}

Status check_dims_attr(const AttrMap& attrs, const char* name) {
  const std::vector<std::int64_t>& dims = attrs.get_ints(name);
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0)
      return make_error("attribute '{}' has {} at index {}; a dimension must not be negative", name,
                        dims[i], i);
  return Status::success();
}

Expected<bool> flag_attr(const AttrMap& attrs, const char* name) {
  std::int64_t value = attrs.get_int(name);
  if (value != 0 && value != 1)
    return make_error("attribute '{}' must be 0 or 1, got {}", name, value);
  return value == 1;
}

void copy_elements(const Tensor& from, std::int64_t from_offset, Tensor& to, std::int64_t to_offset,
                   std::int64_t count) {
  auto size = static_cast<std::int64_t>(dtype_size(from.dtype()));
  std::memcpy(to.bytes().data() + to_offset * size, from.bytes().data() + from_offset * size,
              static_cast<std::size_t>(count * size));
}

Status check_representable(double value, DType dtype, std::string_view what) {
  if (!is_integer(dtype)) return Status::success();
  // The range is [lowest, limit). As doubles these are exact, except that i64's greatest
  // rounds up to 2^63, which is its limit anyway. u64's greatest reads as -1 in int64.
  double lowest = static_cast<double>(elementwise::int_min(dtype));
  double limit =
      dtype == DType::u64 ? 0x1p64 : static_cast<double>(elementwise::int_max(dtype)) + 1.0;
  if (std::trunc(value) != value || value < lowest || value >= limit)
    return make_error("{} is {}, which is not a value of {}", what, value, dtype_name(dtype));
  return Status::success();
}

}  // namespace uma
