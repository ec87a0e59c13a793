// Ops that pick elements by index: strided_slice (ONNX Slice), take (ONNX Gather) and
// gather_elements (ONNX GatherElements).
// The kernels move elements as bytes, so they work for every dtype.
#include <algorithm>
#include <memory>

#include "elementwise_util.h"
#include "index_util.h"
#include "transform_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

// ---- strided_slice ----

// ONNX Slice's arithmetic: a negative begin or end counts from the end once, then both are
// clamped into the axis — to [0, dim] going forward, and going backward to [0, dim - 1] for
// begin and [-1, dim - 1] for end (-1: up to and including index 0). So INT64_MAX and
// INT64_MIN are "to the end" and "to the start", and no arithmetic here can overflow.
AxisSlice slice_axis(std::int64_t dim, std::int64_t begin, std::int64_t end, std::int64_t step) {
  if (begin < 0) begin += dim;
  if (end < 0) end += dim;
  AxisSlice slice{.step = step};
  if (dim == 0) return slice;
  if (step > 0) {
    slice.begin = std::clamp<std::int64_t>(begin, 0, dim);
    end = std::clamp<std::int64_t>(end, 0, dim);
    if (end > slice.begin) slice.count = 1 + (end - slice.begin - 1) / step;
  } else {
    slice.begin = std::clamp<std::int64_t>(begin, 0, dim - 1);
    end = std::clamp<std::int64_t>(end, -1, dim - 1);
    // (distance - 1) / step truncates toward zero, which for a negative step is minus the
    // floor of (distance - 1) / |step|; |step| itself would overflow for INT64_MIN.
    if (slice.begin > end) slice.count = 1 - (slice.begin - end - 1) / step;
  }
  if (slice.count <= 1) slice.step = 1;  // a step never taken; keeps offsets small
  return slice;
}

}  // namespace

Expected<std::vector<AxisSlice>> resolve_slices(const AttrMap& attrs, const Shape& shape) {
  const Ints& begin = attrs.get_ints("begin");
  const Ints& end = attrs.get_ints("end");
  const Ints& strides = attrs.get_ints("strides");
  if (begin.size() != end.size())
    return make_error(
        "attributes 'begin' and 'end' have {} and {} values; they need one per sliced axis",
        begin.size(), end.size());
  if (!strides.empty() && strides.size() != begin.size())
    return make_error("attribute 'strides' has {} values, but 'begin' has {}", strides.size(),
                      begin.size());
  std::vector<std::size_t> axes;
  if (attrs.get_ints("axes").empty()) {
    if (begin.size() > shape.size())
      return make_error("attribute 'begin' has {} values, but the operand has rank {}",
                        begin.size(), shape.size());
    for (std::size_t i = 0; i < begin.size(); ++i) axes.push_back(i);
  } else {
    UMA_TRY_ASSIGN(axes, axes_attr(attrs, "axes", shape.size()));
    if (axes.size() != begin.size())
      return make_error("attribute 'axes' has {} values, but 'begin' has {}", axes.size(),
                        begin.size());
  }
  std::vector<AxisSlice> slices;
  for (std::int64_t dim : shape) slices.push_back({.begin = 0, .step = 1, .count = dim});
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::int64_t step = strides.empty() ? 1 : strides[i];
    if (step == 0) return make_error("attribute 'strides' has 0 at index {}", i);
    slices[axes[i]] = slice_axis(shape[axes[i]], begin[i], end[i], step);
  }
  return slices;
}

namespace {

Expected<std::vector<Type>> infer_strided_slice(const std::vector<Type>& inputs,
                                                const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::vector<AxisSlice> slices, resolve_slices(attrs, input.shape));
  TensorType result{input.dtype, {}};
  for (const AxisSlice& slice : slices) result.shape.push_back(slice.count);
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> strided_slice_kernel(const std::vector<TensorPtr>& inputs,
                                                      const AttrMap& attrs,
                                                      const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  UMA_TRY_ASSIGN(std::vector<AxisSlice> slices, resolve_slices(attrs, input.shape()));
  // Output index j along an axis reads input index begin + j * step: the output walks the
  // input from the first kept element with strides scaled by the steps.
  std::vector<std::int64_t> input_strides = row_major_strides(input.shape());
  std::vector<std::int64_t> strides(slices.size());
  std::int64_t first = 0;
  for (std::size_t d = 0; d < slices.size(); ++d) {
    first += slices[d].begin * input_strides[d];
    strides[d] = slices[d].step * input_strides[d];
  }
  for (std::int64_t i = 0; i < out->num_elements(); ++i)
    copy_elements(input, first + strided_offset(i, out->shape(), strides), *out, i, 1);
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- take ----

// take(data, indices): the slices of data along `axis` at the given indices, as numpy's
// take or ONNX Gather. A negative index counts from the end.
Expected<std::vector<Type>> infer_take(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& indices = inputs[1].tensor();
  UMA_TRY_ASSIGN(std::size_t axis, axis_attr(attrs, "axis", data.rank()));
  if (!is_integer(indices.dtype))
    return make_error("indices are {}, but must be integers", dtype_name(indices.dtype));
  TensorType result{data.dtype, Shape(data.shape.begin(), data.shape.begin() + axis)};
  result.shape.insert(result.shape.end(), indices.shape.begin(), indices.shape.end());
  result.shape.insert(result.shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> take_kernel(const std::vector<TensorPtr>& inputs,
                                             const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  const Tensor& data = *inputs[0];
  const Tensor& indices = *inputs[1];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), data.shape().size());
  // data is `outer` blocks of `dim` rows of `inner` elements; the output is `outer` blocks
  // of one row per index.
  std::int64_t dim = data.shape()[axis];
  std::int64_t outer = product(data.shape(), 0, axis);
  std::int64_t inner = product(data.shape(), axis + 1, data.shape().size());
  std::int64_t count = indices.num_elements();
  std::vector<std::int64_t> rows(static_cast<std::size_t>(count));
  for (std::int64_t j = 0; j < count; ++j) {
    std::int64_t index = elementwise::get_int(indices, j);
    // A u64 index from 2^63 on reads as negative, but is far beyond the end.
    bool huge = indices.dtype() == DType::u64 && index < 0;
    if (huge || index < -dim || index >= dim)
      return make_error(
          "index {} (element {} of indices) is out of range for axis {} of size {}",
          huge ? fmt::format("{}", static_cast<std::uint64_t>(index)) : fmt::format("{}", index), j,
          axis, dim);
    rows[static_cast<std::size_t>(j)] = index < 0 ? index + dim : index;
  }
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < count; ++j)
      copy_elements(data, (o * dim + rows[static_cast<std::size_t>(j)]) * inner, *out,
                    (o * count + j) * inner, inner);
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- gather_elements ----

// out[i] = data[i with i[axis] replaced by indices[i]], as numpy's take_along_axis or ONNX
// GatherElements: indices have data's rank, and no more elements than data along the other
// axes. A negative index counts from the end.
Expected<std::vector<Type>> infer_gather_elements(const std::vector<Type>& inputs,
                                                  const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& indices = inputs[1].tensor();
  UMA_TRY_ASSIGN(std::size_t axis, axis_attr(attrs, "axis", data.rank()));
  if (!is_integer(indices.dtype))
    return make_error("indices are {}, but must be integers", dtype_name(indices.dtype));
  if (indices.rank() != data.rank())
    return make_error("indices have rank {}, but data has rank {}", indices.rank(), data.rank());
  for (std::size_t d = 0; d < data.rank(); ++d)
    if (d != axis && indices.shape[d] > data.shape[d])
      return make_error("indices have {} elements along axis {}, but data only {}",
                        indices.shape[d], d, data.shape[d]);
  return std::vector<Type>{TensorType{data.dtype, indices.shape}};
}

Expected<std::vector<TensorPtr>> gather_elements_kernel(const std::vector<TensorPtr>& inputs,
                                                        const AttrMap& attrs,
                                                        const std::vector<Type>& result_types) {
  const Tensor& data = *inputs[0];
  const Tensor& indices = *inputs[1];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), data.shape().size());
  std::int64_t dim = data.shape()[axis];
  std::vector<std::int64_t> strides = row_major_strides(data.shape());
  const Shape& shape = out->shape();
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    std::int64_t index = elementwise::get_int(indices, i);
    bool huge = indices.dtype() == DType::u64 && index < 0;
    if (huge || index < -dim || index >= dim)
      return make_error(
          "index {} (element {} of indices) is out of range for axis {} of size {}",
          huge ? fmt::format("{}", static_cast<std::uint64_t>(index)) : fmt::format("{}", index), i,
          axis, dim);
    // The offset in data of output element i, its axis coordinate replaced.
    std::int64_t offset = 0, rest = i;
    for (std::size_t d = shape.size(); d-- > 0;) {
      std::int64_t coordinate = rest % shape[d];
      rest /= shape[d];
      if (d == axis) coordinate = index < 0 ? index + dim : index;
      offset += coordinate * strides[d];
    }
    copy_elements(data, offset, *out, i, 1);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_index_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "strided_slice",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"begin", AttrKind::Ints, std::nullopt},
                 {"end", AttrKind::Ints, std::nullopt},
                 {"strides", AttrKind::Ints, Ints{}},
                 {"axes", AttrKind::Ints, Ints{}}},
       .infer = infer_strided_slice,
       .kernel = strided_slice_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "take",
       .min_inputs = 2,
       .max_inputs = 2,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{0}}},
       .infer = infer_take,
       .kernel = take_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "gather_elements",
       .min_inputs = 2,
       .max_inputs = 2,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{0}}},
       .infer = infer_gather_elements,
       .kernel = gather_elements_kernel,
       .fusion = FusionCategory::kInjective},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
