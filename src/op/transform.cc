// Data-movement ops that rearrange whole tensors: split, reshape, concatenate, transpose,
// squeeze, expand_dims and layout_transform. Negative axes count from the end. The kernels move
// elements as bytes, so they work for every dtype.
#include <algorithm>
#include <memory>

#include "transform_util.h"
#include "uma/op/layout.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

// ---- split ----

// `sections` and `sizes` default to 0 and [], which mean "not given": the schema has no
// optional attributes without defaults, and this way the printer leaves them out.
Expected<std::vector<Type>> infer_split(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::size_t axis, axis_attr(attrs, "axis", input.rank()));
  std::int64_t dim = input.shape[axis];
  std::int64_t sections = attrs.get_int("sections");
  const Ints& sizes = attrs.get_ints("sizes");
  if (sections != 0 && !sizes.empty())
    return make_error("attributes 'sections' and 'sizes' exclude each other; give one");
  if (sections == 0 && sizes.empty())
    return make_error(
        "give attribute 'sections' (a number of equal parts) or 'sizes' (the size of each part)");

  Ints parts;
  if (sections != 0) {
    if (sections < 0) return make_error("attribute 'sections' must be positive, got {}", sections);
    // Bounds the number of results, so a hostile model cannot ask for billions of them.
    if (sections > std::max<std::int64_t>(dim, 1))
      return make_error("attribute 'sections' is {}, but dimension {} has only {} element(s)",
                        sections, axis, dim);
    if (dim % sections != 0)
      return make_error(
          "attribute 'sections' is {}, but dimension {} (size {}) is not divisible by it", sections,
          axis, dim);
    parts.assign(static_cast<std::size_t>(sections), dim / sections);
  } else {
    std::optional<std::int64_t> total = 0;
    for (std::int64_t size : sizes) {
      if (size < 0)
        return make_error("attribute 'sizes' must not be negative, got {}", format_ints(sizes));
      if (total) total = checked_add(*total, size);
    }
    if (total != dim)
      return make_error("attribute 'sizes' {} does not add up to dimension {} (size {})",
                        format_ints(sizes), axis, dim);
    parts = sizes;
  }
  std::vector<Type> results;
  for (std::int64_t size : parts) {
    TensorType part = input;
    part.shape[axis] = size;
    results.push_back(part);
  }
  return results;
}

Expected<std::vector<TensorPtr>> split_kernel(const std::vector<TensorPtr>& inputs,
                                              const AttrMap& attrs,
                                              const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  const Shape& shape = input.shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  // The input is `outer` blocks of shape[axis] rows of `inner` elements; each part takes
  // its rows from every block.
  std::int64_t outer = product(shape, 0, axis);
  std::int64_t inner = product(shape, axis + 1, shape.size());
  std::vector<TensorPtr> results;
  std::int64_t first_row = 0;
  for (const Type& type : result_types) {
    auto part = std::make_shared<Tensor>(type.tensor());
    std::int64_t rows = type.tensor().shape[axis];
    for (std::int64_t o = 0; o < outer; ++o)
      copy_elements(input, (o * shape[axis] + first_row) * inner, *part, o * rows * inner,
                    rows * inner);
    first_row += rows;
    results.push_back(std::move(part));
  }
  return results;
}

// ---- reshape ----

// ONNX Reshape: one -1 takes whatever size makes the element counts agree; 0 copies the
// input's dimension at the same index, or, with allowzero = 1, is a dimension of size 0.
Expected<std::vector<Type>> infer_reshape(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  const Ints& newshape = attrs.get_ints("newshape");
  UMA_TRY_ASSIGN(bool allow_zero, flag_attr(attrs, "allowzero"));
  Shape shape(newshape.size());
  std::optional<std::size_t> inferred;
  std::optional<std::int64_t> known = 1;
  for (std::size_t i = 0; i < newshape.size(); ++i) {
    std::int64_t dim = newshape[i];
    if (dim == -1) {
      if (inferred)
        return make_error("attribute 'newshape' {} has more than one -1", format_ints(newshape));
      inferred = i;
      continue;
    }
    if (dim < -1)
      return make_error(
          "attribute 'newshape' has {} at index {}; a dimension is positive, 0 (copy the input's) "
          "or -1 (inferred)",
          dim, i);
    if (dim == 0 && !allow_zero) {
      if (i >= input.rank())
        return make_error("attribute 'newshape' has 0 at index {}, but the input has rank {}", i,
                          input.rank());
      dim = input.shape[i];
    }
    shape[i] = dim;
    if (known) known = checked_mul(*known, dim);
  }
  if (!known)
    return make_error("attribute 'newshape' {} has more elements than fit in 64 bits",
                      format_ints(newshape));
  std::int64_t count = input.num_elements();
  if (inferred) {
    if (*known == 0)
      return make_error(
          "attribute 'newshape' {} has a -1 beside a dimension of size 0, so its size is ambiguous",
          format_ints(newshape));
    if (count % *known != 0)
      return make_error("cannot reshape {} ({} elements) to {}: {} is not divisible by {}",
                        to_string(inputs[0]), count, format_ints(newshape), count, *known);
    shape[*inferred] = count / *known;
  } else if (*known != count) {
    return make_error("cannot reshape {} ({} elements) to {} ({} elements)", to_string(inputs[0]),
                      count, format_ints(shape), *known);
  }
  return std::vector<Type>{TensorType{input.dtype, std::move(shape)}};
}

// Also the kernel of squeeze and expand_dims: the elements stay in order.
Expected<std::vector<TensorPtr>> reshape_kernel(const std::vector<TensorPtr>& inputs,
                                                const AttrMap&,
                                                const std::vector<Type>& result_types) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  copy_elements(*inputs[0], 0, *out, 0, out->num_elements());
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- concatenate ----

Expected<std::vector<Type>> infer_concatenate(const std::vector<Type>& inputs,
                                              const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  TensorType result = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::size_t axis, axis_attr(attrs, "axis", result.rank()));
  const Shape& first = inputs[0].tensor().shape;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const TensorType& t = inputs[i].tensor();
    if (t.dtype != result.dtype)
      return make_error("operand {} is {}, but operand 0 is {}", i, dtype_name(t.dtype),
                        dtype_name(result.dtype));
    if (t.rank() != result.rank())
      return make_error("operand {} has rank {}, but operand 0 has rank {}", i, t.rank(),
                        result.rank());
    for (std::size_t d = 0; d < t.rank(); ++d)
      if (d != axis && t.shape[d] != first[d])
        return make_error(
            "operand {} has shape {} and operand 0 has {}: they differ in dimension {}, but may "
            "differ only in the concatenation axis {}",
            i, to_string(t.shape), to_string(first), d, axis);
    std::optional<std::int64_t> sum = checked_add(result.shape[axis], t.shape[axis]);
    if (!sum) return make_error("the concatenated dimension {} overflows int64", axis);
    result.shape[axis] = *sum;
  }
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> concatenate_kernel(const std::vector<TensorPtr>& inputs,
                                                    const AttrMap& attrs,
                                                    const std::vector<Type>& result_types) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = out->shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  // The mirror image of split: each operand fills its rows of every outer block.
  std::int64_t outer = product(shape, 0, axis);
  std::int64_t inner = product(shape, axis + 1, shape.size());
  std::int64_t first_row = 0;
  for (const TensorPtr& input : inputs) {
    std::int64_t rows = input->shape()[axis];
    for (std::int64_t o = 0; o < outer; ++o)
      copy_elements(*input, o * rows * inner, *out, (o * shape[axis] + first_row) * inner,
                    rows * inner);
    first_row += rows;
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- transpose ----

// Output dimension i is input dimension axes[i]; no axes means reversing them all.
Expected<std::vector<std::size_t>> transpose_axes(const AttrMap& attrs, std::size_t rank) {
  const Ints& axes = attrs.get_ints("axes");
  std::vector<std::size_t> permutation(rank);
  if (axes.empty()) {
    for (std::size_t i = 0; i < rank; ++i) permutation[i] = rank - 1 - i;
    return permutation;
  }
  if (axes.size() != rank)
    return make_error("attribute 'axes' has {} values, but the operand has rank {}", axes.size(),
                      rank);
  std::vector<bool> seen(rank, false);
  for (std::size_t i = 0; i < rank; ++i) {
    std::optional<std::size_t> axis = normalize_axis(axes[i], rank);
    if (!axis)
      return make_error("attribute 'axes' has {} at index {}, but {}", axes[i], i,
                        valid_axes(rank));
    if (seen[*axis])
      return make_error("attribute 'axes' {} is not a permutation: axis {} appears twice",
                        format_ints(axes), *axis);
    seen[*axis] = true;
    permutation[i] = *axis;
  }
  return permutation;
}

Expected<std::vector<Type>> infer_transpose(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::vector<std::size_t> permutation, transpose_axes(attrs, input.rank()));
  TensorType result{input.dtype, Shape(input.rank())};
  for (std::size_t i = 0; i < permutation.size(); ++i)
    result.shape[i] = input.shape[permutation[i]];
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> transpose_kernel(const std::vector<TensorPtr>& inputs,
                                                  const AttrMap& attrs,
                                                  const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  UMA_TRY_ASSIGN(std::vector<std::size_t> permutation, transpose_axes(attrs, input.shape().size()));
  // Walking the output in order, output dimension i steps through the input with the
  // stride of input dimension permutation[i].
  std::vector<std::int64_t> input_strides = row_major_strides(input.shape());
  std::vector<std::int64_t> strides(permutation.size());
  for (std::size_t i = 0; i < permutation.size(); ++i) strides[i] = input_strides[permutation[i]];
  for (std::int64_t i = 0; i < out->num_elements(); ++i)
    copy_elements(input, strided_offset(i, out->shape(), strides), *out, i, 1);
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- squeeze and expand_dims ----

// Removes the listed axes, which must have size 1; no axes means every axis of size 1.
Expected<std::vector<Type>> infer_squeeze(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY_ASSIGN(std::vector<std::size_t> axes, axes_attr(attrs, "axes", input.rank()));
  std::vector<bool> removed(input.rank(), axes.empty());
  for (std::size_t axis : axes) {
    if (input.shape[axis] != 1)
      return make_error(
          "attribute 'axes' names axis {} of size {}, but only axes of size 1 can be squeezed",
          axis, input.shape[axis]);
    removed[axis] = true;
  }
  TensorType result{input.dtype, {}};
  for (std::size_t d = 0; d < input.rank(); ++d)
    if (!(removed[d] && input.shape[d] == 1)) result.shape.push_back(input.shape[d]);
  return std::vector<Type>{result};
}

// Inserts axes of size 1; `axes` index the result, whose rank is the operand's plus their
// number (ONNX Unsqueeze).
Expected<std::vector<Type>> infer_expand_dims(const std::vector<Type>& inputs,
                                              const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  std::size_t rank = input.rank() + attrs.get_ints("axes").size();
  auto axes = axes_attr(attrs, "axes", rank);
  if (!axes) return axes.error().with_context(fmt::format("the result has rank {}", rank));
  if (axes->empty()) return make_error("attribute 'axes' is empty; name the axes to insert");
  std::vector<bool> inserted(rank, false);
  for (std::size_t axis : *axes) inserted[axis] = true;
  TensorType result{input.dtype, Shape(rank, 1)};
  std::size_t next = 0;
  for (std::size_t d = 0; d < rank; ++d)
    if (!inserted[d]) result.shape[d] = input.shape[next++];
  return std::vector<Type>{result};
}

// ---- layout_transform ----

Expected<LayoutTransform> layout_transform_of(const AttrMap& attrs) {
  return LayoutTransform::make(attrs.get_string("src_layout"), attrs.get_string("dst_layout"));
}

Expected<std::vector<Type>> infer_layout_transform(const std::vector<Type>& inputs,
                                                   const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  UMA_TRY_ASSIGN(LayoutTransform transform, layout_transform_of(attrs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY_ASSIGN(Shape shape, transform.result_shape(input.shape));
  return std::vector<Type>{TensorType{input.dtype, std::move(shape)}};
}

Expected<std::vector<TensorPtr>> layout_transform_kernel(const std::vector<TensorPtr>& inputs,
                                                         const AttrMap& attrs,
                                                         const std::vector<Type>&) {
  UMA_TRY_ASSIGN(LayoutTransform transform, layout_transform_of(attrs));
  UMA_TRY_ASSIGN(TensorPtr out, relayout(*inputs[0], transform));
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_transform_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "split",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{0}},
                 {"sections", AttrKind::Int, std::int64_t{0}},
                 {"sizes", AttrKind::Ints, Ints{}}},
       .infer = infer_split,
       .kernel = split_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "reshape",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"newshape", AttrKind::Ints, std::nullopt},
                 {"allowzero", AttrKind::Int, std::int64_t{0}}},
       .infer = infer_reshape,
       .kernel = reshape_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "concatenate",
       .min_inputs = 1,
       .max_inputs = OpDef::kVariadic,
       .attrs = {{"axis", AttrKind::Int, std::int64_t{0}}},
       .infer = infer_concatenate,
       .kernel = concatenate_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "transpose",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"axes", AttrKind::Ints, Ints{}}},
       .infer = infer_transpose,
       .kernel = transpose_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "squeeze",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"axes", AttrKind::Ints, Ints{}}},
       .infer = infer_squeeze,
       .kernel = reshape_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "expand_dims",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"axes", AttrKind::Ints, std::nullopt}},
       .infer = infer_expand_dims,
       .kernel = reshape_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "layout_transform",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"src_layout", AttrKind::String, std::nullopt},
                 {"dst_layout", AttrKind::String, std::nullopt}},
       .infer = infer_layout_transform,
       .kernel = layout_transform_kernel,
       .fusion = FusionCategory::kInjective},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
