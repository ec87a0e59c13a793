// The index ops' arithmetic shared with their compute rules in src/lower (private to src/op):
// which elements strided_slice keeps, how gather_nd and scatter_nd read their indices, and
// the reductions of the scatters.
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

// How gather_nd and scatter_nd read their indices: after `batch` dimensions that data and
// indices share, each row of indices' last dimension holds `depth` indices into data's next
// dimensions.
struct NdIndexing {
  std::size_t batch = 0;
  std::size_t depth = 0;
};

// Checks indices (integers, rank >= 1) and batch_dims against data's shape; errors name the
// attribute or the dimension at fault.
Expected<NdIndexing> nd_indexing(const Shape& data, const TensorType& indices,
                                 std::int64_t batch_dims);

// How a scatter combines an update with the element it lands on (ONNX's `reduction`).
enum class ScatterReduction : std::uint8_t { kNone, kAdd, kMul, kMax, kMin };

// The attribute `reduction`; an unknown value is an error naming it.
Expected<ScatterReduction> scatter_reduction(const AttrMap& attrs);

}  // namespace uma
