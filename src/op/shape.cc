// Ops that make tensors from shapes and numbers rather than from data: shape_of, full and
// arange (ONNX Shape, ConstantOfShape and Range).
#include <cmath>
#include <memory>

#include "transform_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

// The attribute `name` (a dtype's text name) as a DType.
Expected<DType> dtype_attr(const AttrMap& attrs, const char* name) {
  const std::string& text = attrs.get_string(name);
  std::optional<DType> dtype = parse_dtype(text);
  if (!dtype)
    return make_error("attribute '{}' is '{}', which is not a dtype ({})", name, text,
                      dtype_names());
  return *dtype;
}

// ---- shape_of ----

// The operand's shape as a 1-D i64 tensor. Only the operand's type matters, never its data.
Expected<std::vector<Type>> infer_shape_of(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  auto rank = static_cast<std::int64_t>(inputs[0].tensor().rank());
  return std::vector<Type>{TensorType{DType::i64, {rank}}};
}

Expected<std::vector<TensorPtr>> shape_of_kernel(const std::vector<TensorPtr>& inputs,
                                                 const AttrMap&,
                                                 const std::vector<Type>& result_types) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = inputs[0]->shape();
  for (std::size_t d = 0; d < shape.size(); ++d) out->data<std::int64_t>()[d] = shape[d];
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- full ----

// A tensor of `shape` and `dtype` with every element `value`.
Expected<std::vector<Type>> infer_full(const std::vector<Type>&, const AttrMap& attrs) {
  UMA_TRY(check_dims_attr(attrs, "shape"));
  UMA_TRY_ASSIGN(DType dtype, dtype_attr(attrs, "dtype"));
  UMA_TRY(check_representable(attrs.get_float("value"), dtype, "attribute 'value'"));
  TensorType result{dtype, attrs.get_ints("shape")};
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> full_kernel(const std::vector<TensorPtr>&, const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  double value = attrs.get_float("value");
  for (std::int64_t i = 0; i < out->num_elements(); ++i) out->set(i, value);
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- arange ----

// start, start + step, ... while short of stop (ONNX Range): max(ceil((stop - start) / step),
// 0) elements, element i being start + i * step computed in double and rounded to the dtype.
Expected<std::int64_t> arange_count(const AttrMap& attrs) {
  double start = attrs.get_float("start"), stop = attrs.get_float("stop");
  double step = attrs.get_float("step");
  if (step == 0) return make_error("attribute 'step' must not be zero");
  double count = std::ceil((stop - start) / step);
  if (std::isnan(count))
    return make_error("arange from {} to {} by {} has no defined element count", start, stop, step);
  // 2^62 leaves room for any dtype size, and check_result_type has the final word.
  if (count > 0x1p62)
    return make_error("arange from {} to {} by {} has more elements than fit in 64 bits", start,
                      stop, step);
  return count > 0 ? static_cast<std::int64_t>(count) : 0;
}

Expected<std::vector<Type>> infer_arange(const std::vector<Type>&, const AttrMap& attrs) {
  UMA_TRY_ASSIGN(DType dtype, dtype_attr(attrs, "dtype"));
  if (dtype == DType::boolean) return make_error("attribute 'dtype' is bool, which cannot count");
  double start = attrs.get_float("start"), step = attrs.get_float("step");
  UMA_TRY(check_representable(start, dtype, "attribute 'start'"));
  UMA_TRY(check_representable(step, dtype, "attribute 'step'"));
  UMA_TRY_ASSIGN(std::int64_t count, arange_count(attrs));
  TensorType result{dtype, {count}};
  UMA_TRY(check_result_type(result));
  // The elements lie between start and the last one, so those two fitting is enough.
  if (count > 0)
    UMA_TRY(check_representable(start + static_cast<double>(count - 1) * step, dtype,
                                "the last element"));
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> arange_kernel(const std::vector<TensorPtr>&, const AttrMap& attrs,
                                               const std::vector<Type>& result_types) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  double start = attrs.get_float("start"), step = attrs.get_float("step");
  for (std::int64_t i = 0; i < out->num_elements(); ++i)
    out->set(i, start + static_cast<double>(i) * step);
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_shape_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "shape_of",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = infer_shape_of,
       .kernel = shape_of_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "full",
       .attrs = {{"shape", AttrKind::Ints, std::nullopt},
                 {"value", AttrKind::Float, 0.0},
                 {"dtype", AttrKind::String, std::string("f32")}},
       .infer = infer_full,
       .kernel = full_kernel,
       .fusion = FusionCategory::kInjective},
      {.name = "arange",
       .attrs = {{"start", AttrKind::Float, 0.0},
                 {"stop", AttrKind::Float, std::nullopt},
                 {"step", AttrKind::Float, 1.0},
                 {"dtype", AttrKind::String, std::string("f32")}},
       .infer = infer_arange,
       .kernel = arange_kernel,
       .fusion = FusionCategory::kInjective},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
