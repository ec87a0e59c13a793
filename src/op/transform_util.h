// Helpers shared by the data-movement and reduction op families (private to src/op):
// axis attributes, byte copies that work for every dtype, and dtype range checks. Exact
// integer element access is elementwise_util.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/tensor.h"
#include "uma/support/error.h"

namespace uma {

// The int attribute `name` as an axis of a tensor of rank `rank`, made non-negative.
Expected<std::size_t> axis_attr(const AttrMap& attrs, const char* name, std::size_t rank);

// The ints attribute `name` as distinct axes of a tensor of rank `rank`, made non-negative,
// in the order given.
Expected<std::vector<std::size_t>> axes_attr(const AttrMap& attrs, const char* name,
                                             std::size_t rank);

// The ints attribute `name` as dimensions: an error names the first negative one.
Status check_dims_attr(const AttrMap& attrs, const char* name);

// A 0/1 flag attribute; any other value is an error naming it.
Expected<bool> flag_attr(const AttrMap& attrs, const char* name);

// Copies `count` elements from element `from_offset` of `from` to element `to_offset` of `to`.
void copy_elements(const Tensor& from, std::int64_t from_offset, Tensor& to, std::int64_t to_offset,
                   std::int64_t count);

// `value` is a value of `dtype`: any number for floating-point types, an integer within
// range for integer types, anything for bool (nonzero is true). `what` names it in the
// error: "attribute 'value' is 0.5, which is not a value of i32".
Status check_representable(double value, DType dtype, std::string_view what);

}  // namespace uma
