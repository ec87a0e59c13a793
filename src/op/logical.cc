// Comparisons and logic, all with numpy broadcasting and bool results: equal, less,
// less_equal, greater, greater_equal, logical_and, logical_or, logical_xor, logical_not, the
// float classifications isnan and isinf (with detect_positive and detect_negative, as ONNX's
// IsInf), and the selection where(condition, x, y).
//
// Comparisons take two operands of one dtype; equal also takes bool. Floats compare as IEEE
// numbers (NaN is unequal to everything, -0 equals 0); integers compare exactly.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "elementwise_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using namespace elementwise;

// The relation as "a op b" on doubles and on int64 order keys (bools read as 0 and 1).
struct Comparison {
  const char* name;
  Accepts accepts;
  bool (*on_float)(double, double);
  bool (*on_int)(std::int64_t, std::int64_t);
};

template <typename Relation>
bool holds(auto a, auto b) {
  return Relation{}(a, b);
}

const Comparison kComparisons[] = {
    {"equal", Accepts::Any, holds<std::equal_to<>>, holds<std::equal_to<>>},
    {"less", Accepts::Numbers, holds<std::less<>>, holds<std::less<>>},
    {"less_equal", Accepts::Numbers, holds<std::less_equal<>>, holds<std::less_equal<>>},
    {"greater", Accepts::Numbers, holds<std::greater<>>, holds<std::greater<>>},
    {"greater_equal", Accepts::Numbers, holds<std::greater_equal<>>, holds<std::greater_equal<>>},
    {"logical_and", Accepts::Bools, nullptr,
     [](std::int64_t a, std::int64_t b) { return a != 0 && b != 0; }},
    {"logical_or", Accepts::Bools, nullptr,
     [](std::int64_t a, std::int64_t b) { return a != 0 || b != 0; }},
    {"logical_xor", Accepts::Bools, nullptr,
     [](std::int64_t a, std::int64_t b) { return (a != 0) != (b != 0); }},
};

Expected<std::vector<TensorPtr>> run_comparison(const Comparison& op,
                                                const std::vector<TensorPtr>& inputs,
                                                const std::vector<Type>& result_types) {
  const Tensor& a = *inputs[0];
  const Tensor& b = *inputs[1];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = out->shape();
  std::vector<std::int64_t> a_strides = broadcast_strides(a.shape(), shape);
  std::vector<std::int64_t> b_strides = broadcast_strides(b.shape(), shape);
  DType dtype = a.dtype();
  bool floats = is_float(dtype);
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    std::int64_t ia = strided_offset(i, shape, a_strides);
    std::int64_t ib = strided_offset(i, shape, b_strides);
    bool result = floats ? op.on_float(a.get(ia), b.get(ib))
                         : op.on_int(int_order_key(dtype, get_int(a, ia)),
                                     int_order_key(dtype, get_int(b, ib)));
    set_int(*out, i, result ? 1 : 0);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- where ----

Expected<std::vector<Type>> infer_where(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& condition = inputs[0].tensor();
  const TensorType& x = inputs[1].tensor();
  const TensorType& y = inputs[2].tensor();
  UMA_TRY(check_dtype(condition.dtype, Accepts::Bools, "condition is"));
  if (x.dtype != y.dtype)
    return make_error("x and y have different dtypes {} and {}", dtype_name(x.dtype),
                      dtype_name(y.dtype));
  Expected<Shape> shape = broadcast_shapes(condition.shape, x.shape);
  if (shape) shape = broadcast_shapes(*shape, y.shape);
  if (!shape)
    return make_error(
        "condition, x and y have shapes {}, {} and {}, which do not broadcast together",
        to_string(condition.shape), to_string(x.shape), to_string(y.shape));
  TensorType result{x.dtype, std::move(*shape)};
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// Copies whole elements as bytes, so it works for every dtype and keeps NaN payloads and i64
// values exact.
Expected<std::vector<TensorPtr>> where_kernel(const std::vector<TensorPtr>& inputs, const AttrMap&,
                                              const std::vector<Type>& result_types) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = out->shape();
  std::vector<std::int64_t> strides[3];
  for (int k = 0; k < 3; ++k) strides[k] = broadcast_strides(inputs[k]->shape(), shape);
  auto size = static_cast<std::int64_t>(dtype_size(out->dtype()));
  for (std::int64_t i = 0; i < out->num_elements(); ++i) {
    bool take_x = get_int(*inputs[0], strided_offset(i, shape, strides[0])) != 0;
    int from = take_x ? 1 : 2;
    std::int64_t offset = strided_offset(i, shape, strides[from]);
    std::copy_n(inputs[from]->bytes().data() + offset * size, size, out->bytes().data() + i * size);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- isnan, isinf ----

Expected<std::vector<Type>> infer_classification(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  UMA_TRY(check_dtype(inputs[0].tensor().dtype, Accepts::Floats, "operand is"));
  return std::vector<Type>{TensorType{DType::boolean, inputs[0].tensor().shape}};
}

Expected<std::vector<TensorPtr>> classify(const std::vector<TensorPtr>& inputs,
                                          const std::vector<Type>& result_types,
                                          const std::function<bool(double)>& holds) {
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  for (std::int64_t i = 0; i < out->num_elements(); ++i)
    set_int(*out, i, holds(inputs[0]->get(i)) ? 1 : 0);
  return std::vector<TensorPtr>{std::move(out)};
}

Expected<std::vector<TensorPtr>> isinf_kernel(const std::vector<TensorPtr>& inputs,
                                              const AttrMap& attrs,
                                              const std::vector<Type>& result_types) {
  bool positive = attrs.get_int("detect_positive") != 0;
  bool negative = attrs.get_int("detect_negative") != 0;
  return classify(inputs, result_types, [positive, negative](double x) {
    return std::isinf(x) && (x > 0 ? positive : negative);
  });
}

}  // namespace

void register_logical_ops(OpRegistry& registry) {
  for (const Comparison& op : kComparisons) {
    OpDef def{.name = op.name,
              .min_inputs = 2,
              .max_inputs = 2,
              .infer = [&op](const std::vector<Type>& inputs,
                             const AttrMap&) -> Expected<std::vector<Type>> {
                UMA_TRY_ASSIGN(TensorType result, infer_broadcast(inputs, op.accepts));
                result.dtype = DType::boolean;
                return std::vector<Type>{result};
              },
              .kernel =
                  [&op](const std::vector<TensorPtr>& inputs, const AttrMap&,
                        const std::vector<Type>& result_types) {
                    return run_comparison(op, inputs, result_types);
                  },
              .fusion = FusionCategory::kElementwise};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", op.name);
  }
  const std::vector<OpDef> ops = {
      {.name = "logical_not",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = [](const std::vector<Type>& inputs, const AttrMap&) -> Expected<std::vector<Type>> {
         UMA_TRY(check_tensor_operands(inputs));
         UMA_TRY(check_dtype(inputs[0].tensor().dtype, Accepts::Bools, "operand is"));
         return std::vector<Type>{inputs[0]};
       },
       .kernel = [](const std::vector<TensorPtr>& inputs, const AttrMap&,
                    const std::vector<Type>& result_types) -> Expected<std::vector<TensorPtr>> {
         auto out = std::make_shared<Tensor>(result_types[0].tensor());
         for (std::int64_t i = 0; i < out->num_elements(); ++i)
           set_int(*out, i, get_int(*inputs[0], i) == 0 ? 1 : 0);
         return std::vector<TensorPtr>{std::move(out)};
       },
       .fusion = FusionCategory::kElementwise},
      {.name = "isnan",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = infer_classification,
       .kernel =
           [](const std::vector<TensorPtr>& inputs, const AttrMap&,
              const std::vector<Type>& result_types) {
             return classify(inputs, result_types, [](double x) { return std::isnan(x); });
           },
       .fusion = FusionCategory::kElementwise},
      {.name = "isinf",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"detect_positive", AttrKind::Int, std::int64_t{1}},
                 {"detect_negative", AttrKind::Int, std::int64_t{1}}},
       .infer = infer_classification,
       .kernel = isinf_kernel,
       .fusion = FusionCategory::kElementwise},
      {.name = "where",
       .min_inputs = 3,
       .max_inputs = 3,
       .infer = infer_where,
       .kernel = where_kernel,
       .fusion = FusionCategory::kElementwise},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
