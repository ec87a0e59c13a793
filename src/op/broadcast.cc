// Ops whose output repeats elements of their input: broadcast_to (numpy's), tile and nn.pad.
// The kernels move elements as bytes, so they work for every dtype.
#include <memory>

#include "transform_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

// Steps a row-major multi-index of `shape` to the next element.
void advance(std::vector<std::int64_t>& index, const Shape& shape) {
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (++index[d] < shape[d]) return;
    index[d] = 0;
  }
}

// ---- broadcast_to ----

// numpy.broadcast_to: the result has exactly `shape`; the operand's dimensions align at the
// last one and each must be 1 or equal to the target's. (ONNX Expand, which broadcasts both
// ways, becomes this with the two shapes broadcast at import.)
Expected<std::vector<Type>> infer_broadcast_to(const std::vector<Type>& inputs,
                                               const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  const Ints& shape = attrs.get_ints("shape");
  UMA_TRY(check_dims_attr(attrs, "shape"));
  if (input.rank() > shape.size())
    return make_error("cannot broadcast {} to {}: the target has fewer dimensions",
                      to_string(inputs[0]), format_ints(shape));
  std::size_t lead = shape.size() - input.rank();
  for (std::size_t d = 0; d < input.rank(); ++d)
    if (input.shape[d] != 1 && input.shape[d] != shape[lead + d])
      return make_error(
          "cannot broadcast {} to {}: operand dimension {} has size {}, which is neither 1 nor {}",
          to_string(inputs[0]), format_ints(shape), d, input.shape[d], shape[lead + d]);
  TensorType result{input.dtype, shape};
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> broadcast_to_kernel(const std::vector<TensorPtr>& inputs,
                                                     const AttrMap&,
                                                     const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  std::vector<std::int64_t> strides = broadcast_strides(input.shape(), out->shape());
  for (std::int64_t i = 0; i < out->num_elements(); ++i)
    copy_elements(input, strided_offset(i, out->shape(), strides), *out, i, 1);
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- tile ----

// numpy.tile: the operand repeated reps[d] times along each axis d. When `reps` and the
// operand's rank differ, the shorter one is padded with leading 1s.
struct TileShapes {
  Shape input;  // the operand's shape padded to the result's rank
  Shape result;
};

Expected<TileShapes> tile_shapes(const Shape& input, const AttrMap& attrs) {
  const Ints& reps = attrs.get_ints("reps");
  for (std::size_t i = 0; i < reps.size(); ++i)
    if (reps[i] < 0)
      return make_error(
          "attribute 'reps' has {} at index {}; a repetition count must not be "
          "negative",
          reps[i], i);
  std::size_t rank = std::max(input.size(), reps.size());
  TileShapes shapes{Shape(rank - input.size(), 1), Shape(rank)};
  shapes.input.insert(shapes.input.end(), input.begin(), input.end());
  Ints padded_reps(rank - reps.size(), 1);
  padded_reps.insert(padded_reps.end(), reps.begin(), reps.end());
  for (std::size_t d = 0; d < rank; ++d) {
    std::optional<std::int64_t> dim = checked_mul(shapes.input[d], padded_reps[d]);
    if (!dim)
      return make_error("tiling dimension {} (size {}) {} times overflows int64", d,
                        shapes.input[d], padded_reps[d]);
    shapes.result[d] = *dim;
  }
  return shapes;
}

Expected<std::vector<Type>> infer_tile(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY_ASSIGN(TileShapes shapes, tile_shapes(input.shape, attrs));
  TensorType result{input.dtype, shapes.result};
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> tile_kernel(const std::vector<TensorPtr>& inputs,
                                             const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  UMA_TRY_ASSIGN(TileShapes shapes, tile_shapes(input.shape(), attrs));
  // Output index j along an axis reads input index j mod (the input's size there).
  std::vector<std::int64_t> strides = row_major_strides(shapes.input);
  std::vector<std::int64_t> index(shapes.result.size(), 0);
  for (std::int64_t i = 0; i < out->num_elements(); ++i, advance(index, shapes.result)) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d)
      offset += index[d] % shapes.input[d] * strides[d];
    copy_elements(input, offset, *out, i, 1);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- nn.pad ----

// `pad_width` holds the padding before every axis, then after every axis (ONNX's `pads`); a
// negative width removes elements. Padding reads outside the operand: "constant" gives
// pad_value, "edge" the nearest edge element, "reflect" the element mirrored about the edge
// (without repeating it, as numpy.pad's "reflect").
enum class PadMode { Constant, Reflect, Edge };

Expected<PadMode> pad_mode(const AttrMap& attrs) {
  const std::string& mode = attrs.get_string("mode");
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "edge") return PadMode::Edge;
  return make_error("attribute 'mode' is '{}'; expected 'constant', 'reflect' or 'edge'", mode);
}

Expected<std::vector<Type>> infer_pad(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  const Ints& widths = attrs.get_ints("pad_width");
  std::size_t rank = input.rank();
  if (widths.size() != 2 * rank)
    return make_error(
        "attribute 'pad_width' has {} values, but the operand has rank {}, so it needs {} (the "
        "padding before every axis, then after every axis)",
        widths.size(), rank, 2 * rank);
  UMA_TRY_ASSIGN(PadMode mode, pad_mode(attrs));
  if (mode == PadMode::Constant)
    UMA_TRY(
        check_representable(attrs.get_float("pad_value"), input.dtype, "attribute 'pad_value'"));
  TensorType result = input;
  for (std::size_t d = 0; d < rank; ++d) {
    std::int64_t dim = input.shape[d], before = widths[d], after = widths[rank + d];
    std::optional<std::int64_t> size = checked_add(dim, before);
    if (size) size = checked_add(*size, after);
    if (!size)
      return make_error("padding dimension {} (size {}) by {} and {} overflows int64", d, dim,
                        before, after);
    if (*size < 0)
      return make_error("padding dimension {} (size {}) by {} and {} would leave {} elements", d,
                        dim, before, after, *size);
    std::int64_t widest = std::max(before, after);
    if (mode == PadMode::Reflect && widest > dim - 1)
      return make_error(
          "mode 'reflect' pads dimension {} (size {}) by {}, but can add at most {} on each side "
          "(one less than the size)",
          d, dim, widest, std::max<std::int64_t>(dim - 1, 0));
    if (mode == PadMode::Edge && widest > 0 && dim == 0)
      return make_error("mode 'edge' cannot pad dimension {}, which has no elements", d);
    result.shape[d] = *size;
  }
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> pad_kernel(const std::vector<TensorPtr>& inputs,
                                            const AttrMap& attrs,
                                            const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  UMA_TRY_ASSIGN(PadMode mode, pad_mode(attrs));
  const Ints& widths = attrs.get_ints("pad_width");
  const Shape& shape = input.shape();
  std::size_t rank = shape.size();
  Tensor fill(TensorType{input.dtype(), {}});
  if (mode == PadMode::Constant) fill.set(0, attrs.get_float("pad_value"));
  std::vector<std::int64_t> strides = row_major_strides(shape);
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t i = 0; i < out->num_elements(); ++i, advance(index, out->shape())) {
    std::int64_t offset = 0;
    bool outside = false;
    for (std::size_t d = 0; d < rank; ++d) {
      std::int64_t from = index[d] - widths[d];  // the input index this element shows
      if (from < 0 || from >= shape[d]) {
        if (mode == PadMode::Constant) outside = true;
        if (mode == PadMode::Edge) from = from < 0 ? 0 : shape[d] - 1;
        if (mode == PadMode::Reflect) from = from < 0 ? -from : 2 * (shape[d] - 1) - from;
      }
      offset += from * strides[d];
    }
    if (outside)
      copy_elements(fill, 0, *out, i, 1);
    else
      copy_elements(input, offset, *out, i, 1);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_broadcast_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "broadcast_to",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"shape", AttrKind::Ints, std::nullopt}},
       .infer = infer_broadcast_to,
       .kernel = broadcast_to_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "tile",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"reps", AttrKind::Ints, std::nullopt}},
       .infer = infer_tile,
       .kernel = tile_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "nn.pad",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"pad_width", AttrKind::Ints, std::nullopt},
                 {"mode", AttrKind::String, std::string("constant")},
                 {"pad_value", AttrKind::Float, 0.0}},
       .infer = infer_pad,
       .kernel = pad_kernel,
       .fusion = FusionCategory::kInjective},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
