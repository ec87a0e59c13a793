// Ops that pick or place elements by index: strided_slice (ONNX Slice), take (ONNX Gather),
// gather_elements, gather_nd, scatter_elements and scatter_nd (ONNX's of those names).
// The kernels move elements as bytes, so they work for every dtype.
#include <algorithm>
#include <cmath>
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

// Element i of `indices` as an index along `axis` of `dim` elements, a negative one counted
// from the end; an error when it is out of range.
Expected<std::int64_t> index_at(const Tensor& indices, std::int64_t i, std::size_t axis,
                                std::int64_t dim) {
  std::int64_t index = elementwise::get_int(indices, i);
  // A u64 index from 2^63 on reads as negative, but is far beyond the end.
  bool huge = indices.dtype() == DType::u64 && index < 0;
  if (huge || index < -dim || index >= dim)
    return make_error(
        "index {} (element {} of indices) is out of range for axis {} of size {}",
        huge ? fmt::format("{}", static_cast<std::uint64_t>(index)) : fmt::format("{}", index), i,
        axis, dim);
  return index < 0 ? index + dim : index;
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
    UMA_TRY_ASSIGN(rows[static_cast<std::size_t>(j)], index_at(indices, j, axis, dim));
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
    UMA_TRY_ASSIGN(std::int64_t index, index_at(indices, i, axis, dim));
    // The offset in data of output element i, its axis coordinate replaced.
    std::int64_t offset = 0, rest = i;
    for (std::size_t d = shape.size(); d-- > 0;) {
      std::int64_t coordinate = rest % shape[d];
      rest /= shape[d];
      if (d == axis) coordinate = index;
      offset += coordinate * strides[d];
    }
    copy_elements(data, offset, *out, i, 1);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- gather_nd ----

// gather_nd(data, indices) as ONNX GatherND: each row of the last dimension of indices (k
// values) picks a slice of data at its first k dimensions after the first batch_dims, which
// data and indices share.
Expected<std::vector<Type>> infer_gather_nd(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& indices = inputs[1].tensor();
  UMA_TRY_ASSIGN(NdIndexing nd, nd_indexing(data.shape, indices, attrs.get_int("batch_dims")));
  TensorType result{data.dtype, Shape(indices.shape.begin(), indices.shape.end() - 1)};
  result.shape.insert(result.shape.end(), data.shape.begin() + nd.batch + nd.depth,
                      data.shape.end());
  return std::vector<Type>{result};
}

// The offset in data (strides `strides`) that row `row` of indices (k = nd.depth values)
// picks after the batch's offset; an error names an index out of range.
Expected<std::int64_t> nd_offset(const Tensor& indices, std::int64_t row, const NdIndexing& nd,
                                 const Shape& data_shape,
                                 const std::vector<std::int64_t>& strides) {
  std::int64_t offset = 0;
  for (std::size_t j = 0; j < nd.depth; ++j) {
    std::size_t axis = nd.batch + j;
    std::int64_t element = row * static_cast<std::int64_t>(nd.depth) + static_cast<std::int64_t>(j);
    UMA_TRY_ASSIGN(std::int64_t index, index_at(indices, element, axis, data_shape[axis]));
    offset += index * strides[axis];
  }
  return offset;
}

Expected<std::vector<TensorPtr>> gather_nd_kernel(const std::vector<TensorPtr>& inputs,
                                                  const AttrMap& attrs,
                                                  const std::vector<Type>& result_types) {
  const Tensor& data = *inputs[0];
  const Tensor& indices = *inputs[1];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = data.shape();
  NdIndexing nd = *nd_indexing(shape, indices.type(), attrs.get_int("batch_dims"));
  std::vector<std::int64_t> strides = row_major_strides(shape);
  // Rows of indices come `per_batch` to a batch; each copies a slice of `slice` elements.
  std::int64_t rows = product(indices.shape(), 0, indices.shape().size() - 1);
  std::int64_t per_batch = product(indices.shape(), nd.batch, indices.shape().size() - 1);
  std::int64_t slice = product(shape, nd.batch + nd.depth, shape.size());
  std::int64_t batch_size = product(shape, nd.batch, shape.size());
  for (std::int64_t row = 0; row < rows; ++row) {
    UMA_TRY_ASSIGN(std::int64_t offset, nd_offset(indices, row, nd, shape, strides));
    copy_elements(data, row / per_batch * batch_size + offset, *out, row * slice, slice);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- scatter_elements, scatter_nd ----

// Stores update j of `updates` into element i of `out`, combined with what is there.
void scatter_one(Tensor& out, std::int64_t i, const Tensor& updates, std::int64_t j,
                 ScatterReduction reduction) {
  using namespace elementwise;
  DType dtype = out.dtype();
  if (reduction == ScatterReduction::kNone) {
    copy_elements(updates, j, out, i, 1);
  } else if (is_float(dtype)) {
    double a = out.get(i), b = updates.get(j);
    switch (reduction) {
      case ScatterReduction::kAdd:
        out.set(i, a + b);
        break;
      case ScatterReduction::kMul:
        out.set(i, a * b);
        break;
      case ScatterReduction::kMax:
        out.set(i, std::isnan(a) || a >= b ? a : b);
        break;
      case ScatterReduction::kMin:
        out.set(i, std::isnan(a) || a <= b ? a : b);
        break;
      case ScatterReduction::kNone:
        break;
    }
  } else {
    std::int64_t a = get_int(out, i), b = get_int(updates, j);
    switch (reduction) {
      case ScatterReduction::kAdd:
        set_int(out, i, int_add(a, b));
        break;
      case ScatterReduction::kMul:
        set_int(out, i, int_multiply(a, b));
        break;
      case ScatterReduction::kMax:
        set_int(out, i, int_less(dtype, a, b) ? b : a);
        break;
      case ScatterReduction::kMin:
        set_int(out, i, int_less(dtype, b, a) ? b : a);
        break;
      case ScatterReduction::kNone:
        break;
    }
  }
}

std::shared_ptr<Tensor> copy_of(const Tensor& tensor) {
  auto copy = std::make_shared<Tensor>(tensor.type());
  copy_elements(tensor, 0, *copy, 0, tensor.num_elements());
  return copy;
}

// Updates of data's dtype, and a reduction that applies to it.
Status check_updates(const TensorType& data, const TensorType& updates, const Shape& expected,
                     const AttrMap& attrs) {
  if (updates.dtype != data.dtype)
    return make_error("updates are {}, but data is {}", dtype_name(updates.dtype),
                      dtype_name(data.dtype));
  if (updates.shape != expected)
    return make_error("updates have shape {}, but must have shape {}", to_string(updates.shape),
                      to_string(expected));
  UMA_TRY_ASSIGN(ScatterReduction reduction, scatter_reduction(attrs));
  if (reduction != ScatterReduction::kNone && data.dtype == DType::boolean)
    return make_error("attribute 'reduction' is '{}', which bool data does not support",
                      attrs.get_string("reduction"));
  return Status::success();
}

// scatter_elements(data, indices, updates) as ONNX ScatterElements: data with element i of
// updates stored at i with i[axis] replaced by indices[i], combined by `reduction`.
Expected<std::vector<Type>> infer_scatter_elements(const std::vector<Type>& inputs,
                                                   const AttrMap& attrs) {
  UMA_TRY_ASSIGN(std::vector<Type> gathered, infer_gather_elements({inputs[0], inputs[1]}, attrs));
  const TensorType& data = inputs[0].tensor();
  UMA_TRY(check_tensor_operands(inputs));
  UMA_TRY(check_updates(data, inputs[2].tensor(), inputs[1].tensor().shape, attrs));
  return std::vector<Type>{data};
}

Expected<std::vector<TensorPtr>> scatter_elements_kernel(const std::vector<TensorPtr>& inputs,
                                                         const AttrMap& attrs,
                                                         const std::vector<Type>&) {
  const Tensor& indices = *inputs[1];
  const Tensor& updates = *inputs[2];
  auto out = copy_of(*inputs[0]);
  ScatterReduction reduction = *scatter_reduction(attrs);
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), out->shape().size());
  std::int64_t dim = out->shape()[axis];
  std::vector<std::int64_t> strides = row_major_strides(out->shape());
  const Shape& shape = indices.shape();
  for (std::int64_t j = 0; j < indices.num_elements(); ++j) {
    UMA_TRY_ASSIGN(std::int64_t index, index_at(indices, j, axis, dim));
    std::int64_t offset = 0, rest = j;
    for (std::size_t d = shape.size(); d-- > 0;) {
      std::int64_t coordinate = rest % shape[d];
      rest /= shape[d];
      offset += (d == axis ? index : coordinate) * strides[d];
    }
    scatter_one(*out, offset, updates, j, reduction);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// scatter_nd(data, indices, updates) as ONNX ScatterND: each row of the last dimension of
// indices (k values) names a slice of data at its first k dimensions, where the matching
// slice of updates is stored, combined by `reduction`.
Expected<std::vector<Type>> infer_scatter_nd(const std::vector<Type>& inputs,
                                             const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& indices = inputs[1].tensor();
  UMA_TRY_ASSIGN(NdIndexing nd, nd_indexing(data.shape, indices, 0));
  Shape expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + nd.depth, data.shape.end());
  UMA_TRY(check_updates(data, inputs[2].tensor(), expected, attrs));
  return std::vector<Type>{data};
}

Expected<std::vector<TensorPtr>> scatter_nd_kernel(const std::vector<TensorPtr>& inputs,
                                                   const AttrMap& attrs, const std::vector<Type>&) {
  const Tensor& indices = *inputs[1];
  const Tensor& updates = *inputs[2];
  auto out = copy_of(*inputs[0]);
  ScatterReduction reduction = *scatter_reduction(attrs);
  const Shape& shape = out->shape();
  NdIndexing nd = *nd_indexing(shape, indices.type(), 0);
  std::vector<std::int64_t> strides = row_major_strides(shape);
  std::int64_t rows = product(indices.shape(), 0, indices.shape().size() - 1);
  std::int64_t slice = product(shape, nd.depth, shape.size());
  for (std::int64_t row = 0; row < rows; ++row) {
    UMA_TRY_ASSIGN(std::int64_t offset, nd_offset(indices, row, nd, shape, strides));
    for (std::int64_t e = 0; e < slice; ++e)
      scatter_one(*out, offset + e, updates, row * slice + e, reduction);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

Expected<NdIndexing> nd_indexing(const Shape& data, const TensorType& indices,
                                 std::int64_t batch_dims) {
  if (!is_integer(indices.dtype))
    return make_error("indices are {}, but must be integers", dtype_name(indices.dtype));
  if (indices.rank() == 0) return make_error("indices are a scalar, but must have rank 1 or more");
  std::size_t rank = std::min(data.size(), indices.rank());
  if (batch_dims < 0 || static_cast<std::size_t>(batch_dims) >= rank)
    return make_error(
        "attribute 'batch_dims' is {}, but must be in [0, {}) for data of rank {} "
        "and indices of rank {}",
        batch_dims, rank, data.size(), indices.rank());
  NdIndexing nd{.batch = static_cast<std::size_t>(batch_dims)};
  for (std::size_t d = 0; d < nd.batch; ++d)
    if (indices.shape[d] != data[d])
      return make_error("indices have {} elements along batch axis {}, but data {}",
                        indices.shape[d], d, data[d]);
  std::int64_t depth = indices.shape.back();
  if (depth < 1 || static_cast<std::size_t>(depth) > data.size() - nd.batch)
    return make_error(
        "indices have rows of {} indices, but data takes 1 to {} after {} batch "
        "dimension(s)",
        depth, data.size() - nd.batch, nd.batch);
  nd.depth = static_cast<std::size_t>(depth);
  return nd;
}

Expected<ScatterReduction> scatter_reduction(const AttrMap& attrs) {
  const std::string& name = attrs.get_string("reduction");
  if (name == "none") return ScatterReduction::kNone;
  if (name == "add") return ScatterReduction::kAdd;
  if (name == "mul") return ScatterReduction::kMul;
  if (name == "max") return ScatterReduction::kMax;
  if (name == "min") return ScatterReduction::kMin;
  return make_error("attribute 'reduction' is '{}'; expected 'none', 'add', 'mul', 'max' or 'min'",
                    name);
}

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
      {.name = "gather_nd",
       .min_inputs = 2,
       .max_inputs = 2,
       .attrs = {{"batch_dims", AttrKind::Int, std::int64_t{0}}},
       .infer = infer_gather_nd,
       .kernel = gather_nd_kernel,
       .fusion = FusionCategory::kInjective},
      // A scatter's output element folds every update aimed at it: a reduction.
      {.name = "scatter_elements",
       .min_inputs = 3,
       .max_inputs = 3,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{0}},
                 {"reduction", AttrKind::String, std::string("none")}},
       .infer = infer_scatter_elements,
       .kernel = scatter_elements_kernel,
       .fusion = FusionCategory::kAnchor},
      {.name = "scatter_nd",
       .min_inputs = 3,
       .max_inputs = 3,
       .attrs = {{"reduction", AttrKind::String, std::string("none")}},
       .infer = infer_scatter_nd,
       .kernel = scatter_nd_kernel,
       .fusion = FusionCategory::kAnchor},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
