// strided_slice's arithmetic (private to src/op, and read by its compute rule in
// src/lower): which elements each axis keeps.
#pragma once

#include <cstdint>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/type.h"
#include "uma/support/error.h"

namespace uma {

// The elements one axis keeps: `count` of them, from index `begin` in steps of `step`.
struct AxisSlice {
  std::int64_t begin = 0;
  std::int64_t step = 1;
  std::int64_t count = 0;
};

// One AxisSlice per axis of `shape` from strided_slice's attributes; axes the attributes leave
// out keep every element. `axes` defaults to the first begin.size() axes and `strides` to
// all ones. Errors name the attribute at fault.
Expected<std::vector<AxisSlice>> resolve_slices(const AttrMap& attrs, const Shape& shape);

}  // namespace uma
