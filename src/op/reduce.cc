// Reductions: sum, mean, max, min and prod over a set of axes, argmax and argmin along one
// axis, the k largest or smallest elements along one axis (topk), and the running sum cumsum
// along one axis.
//
// Semantics of the reference kernels:
// - Floating-point dtypes accumulate in double and round once to the result dtype; max and
//   min propagate NaN, as numpy does.
// - Integers accumulate in int64 (u64 as uint64) and wrap modulo 2^bits like elementwise
//   arithmetic; mean divides the sum by the count, truncating toward zero.
// - Over zero elements, sum is 0, prod 1, a float mean is NaN (0/0), max is -inf (the
//   dtype's least value for integers) and min +inf (the greatest): ONNX's rule since opset
//   18.
// - argmax gives the index of the first largest element (the last with select_last_index),
//   argmin of the first smallest; NaN beats every number in both, as in numpy.
// - topk orders as argmax compares (NaN above every number), equal elements by position.
// - cumsum sums each element with those before it along the axis (after it with reverse;
//   without itself with exclusive), accumulating like sum.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "elementwise_util.h"
#include "transform_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

enum class Reduction { Sum, Mean, Max, Min, Prod };

struct ReductionOp {
  const char* name;
  Reduction kind;
};

const ReductionOp kReductions[] = {
    {"sum", Reduction::Sum}, {"mean", Reduction::Mean}, {"max", Reduction::Max},
    {"min", Reduction::Min}, {"prod", Reduction::Prod},
};

Status check_numbers(const TensorType& input) {
  if (input.dtype == DType::boolean)
    return make_error("operand is bool, but only numbers are supported");
  return Status::success();
}

// Which axes a reduction removes, and what is left.
struct ReductionShape {
  std::vector<bool> reduced;  // per operand axis
  Shape kept;                 // the operand's shape with reduced axes set to 1
  Shape result;               // `kept`, or without the reduced axes unless keepdims
  std::int64_t count = 1;     // operand elements per result element
};

// `axes` lists the axes to reduce; none means all of them.
Expected<ReductionShape> reduction_shape(const TensorType& input, const AttrMap& attrs) {
  UMA_TRY_ASSIGN(std::vector<std::size_t> axes, axes_attr(attrs, "axes", input.rank()));
  UMA_TRY_ASSIGN(bool keepdims, flag_attr(attrs, "keepdims"));
  ReductionShape shape{std::vector<bool>(input.rank(), axes.empty()), input.shape, {}};
  for (std::size_t axis : axes) shape.reduced[axis] = true;
  for (std::size_t d = 0; d < input.rank(); ++d) {
    if (!shape.reduced[d]) {
      shape.result.push_back(input.shape[d]);
      continue;
    }
    shape.count *= input.shape[d];
    shape.kept[d] = 1;
    if (keepdims) shape.result.push_back(1);
  }
  return shape;
}

Expected<std::vector<Type>> infer_reduction(Reduction kind, const std::vector<Type>& inputs,
                                            const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY(check_numbers(input));
  UMA_TRY_ASSIGN(ReductionShape shape, reduction_shape(input, attrs));
  if (kind == Reduction::Mean && shape.count == 0 && is_integer(input.dtype))
    return make_error("the mean of zero elements is undefined for {}", dtype_name(input.dtype));
  return std::vector<Type>{TensorType{input.dtype, shape.result}};
}

double float_start(Reduction kind) {
  if (kind == Reduction::Max) return -std::numeric_limits<double>::infinity();
  if (kind == Reduction::Min) return std::numeric_limits<double>::infinity();
  return kind == Reduction::Prod ? 1 : 0;
}

double float_step(Reduction kind, double acc, double x) {
  if (kind == Reduction::Sum || kind == Reduction::Mean) return acc + x;
  if (kind == Reduction::Prod) return acc * x;
  if (std::isnan(acc) || std::isnan(x)) return std::nan("");
  if (kind == Reduction::Max) return x > acc ? x : acc;
  return x < acc ? x : acc;
}

std::int64_t int_start(Reduction kind, DType dtype) {
  if (kind == Reduction::Max) return elementwise::int_min(dtype);
  if (kind == Reduction::Min) return elementwise::int_max(dtype);
  return kind == Reduction::Prod ? 1 : 0;
}

std::int64_t int_step(Reduction kind, DType dtype, std::int64_t acc, std::int64_t x) {
  if (kind == Reduction::Sum || kind == Reduction::Mean) return elementwise::int_add(acc, x);
  if (kind == Reduction::Prod) return elementwise::int_multiply(acc, x);
  if (kind == Reduction::Max) return elementwise::int_less(dtype, acc, x) ? x : acc;
  return elementwise::int_less(dtype, x, acc) ? x : acc;
}

Expected<std::vector<TensorPtr>> run_reduction(Reduction kind, const std::vector<TensorPtr>& inputs,
                                               const AttrMap& attrs,
                                               const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  UMA_TRY_ASSIGN(ReductionShape shape, reduction_shape(input.type(), attrs));
  // Input element i adds to the result element at its own index with the reduced axes
  // zeroed: the result, laid out with keepdims' shape, read with stride 0 on those axes.
  std::vector<std::int64_t> strides = row_major_strides(shape.kept);
  for (std::size_t d = 0; d < strides.size(); ++d)
    if (shape.reduced[d]) strides[d] = 0;
  std::size_t size = static_cast<std::size_t>(out->num_elements());
  bool floats = is_float(input.dtype());
  std::vector<double> float_acc(size, float_start(kind));
  std::vector<std::int64_t> int_acc(size, floats ? 0 : int_start(kind, input.dtype()));
  for (std::int64_t i = 0; i < input.num_elements(); ++i) {
    auto o = static_cast<std::size_t>(strided_offset(i, input.shape(), strides));
    if (floats)
      float_acc[o] = float_step(kind, float_acc[o], input.get(i));
    else
      int_acc[o] = int_step(kind, input.dtype(), int_acc[o], elementwise::get_int(input, i));
  }
  for (std::size_t o = 0; o < size; ++o) {
    auto index = static_cast<std::int64_t>(o);
    bool mean = kind == Reduction::Mean;
    if (floats)
      out->set(index, mean ? float_acc[o] / static_cast<double>(shape.count) : float_acc[o]);
    else
      elementwise::set_int(
          *out, index,
          mean ? elementwise::int_divide(input.dtype(), int_acc[o], shape.count) : int_acc[o]);
  }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- argmax, argmin ----

Expected<std::vector<Type>> infer_arg_reduction(const std::vector<Type>& inputs,
                                                const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY(check_numbers(input));
  UMA_TRY_ASSIGN(std::size_t axis, axis_attr(attrs, "axis", input.rank()));
  UMA_TRY_ASSIGN(bool keepdims, flag_attr(attrs, "keepdims"));
  if (auto flag = flag_attr(attrs, "select_last_index"); !flag) return flag.error();
  if (input.shape[axis] == 0)
    return make_error("attribute 'axis' is {}, but dimension {} has no elements to compare",
                      attrs.get_int("axis"), axis);
  TensorType result{DType::i64, input.shape};
  if (keepdims)
    result.shape[axis] = 1;
  else
    result.shape.erase(result.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  return std::vector<Type>{result};
}

// Element a of `t` beats element b: larger (smaller for argmin), with NaN beating every
// number.
bool beats(const Tensor& t, std::int64_t a, std::int64_t b, bool min) {
  if (!is_float(t.dtype())) {
    std::int64_t x = elementwise::get_int(t, a), y = elementwise::get_int(t, b);
    return min ? elementwise::int_less(t.dtype(), x, y) : elementwise::int_less(t.dtype(), y, x);
  }
  double x = t.get(a), y = t.get(b);
  if (std::isnan(y)) return false;
  return std::isnan(x) || (min ? x < y : x > y);
}

Expected<std::vector<TensorPtr>> arg_reduction_kernel(bool min,
                                                      const std::vector<TensorPtr>& inputs,
                                                      const AttrMap& attrs,
                                                      const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = input.shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  bool last = attrs.get_int("select_last_index") == 1;
  // The operand is `outer` blocks of `dim` rows of `inner` elements; each result element
  // compares one column of a block.
  std::int64_t dim = shape[axis];
  std::int64_t outer = product(shape, 0, axis);
  std::int64_t inner = product(shape, axis + 1, shape.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      auto element = [&](std::int64_t k) { return (o * dim + k) * inner + c; };
      std::int64_t best = 0;
      for (std::int64_t k = 1; k < dim; ++k) {
        // With select_last_index an equal element (neither beats the other) wins.
        bool better = last ? !beats(input, element(best), element(k), min)
                           : beats(input, element(k), element(best), min);
        if (better) best = k;
      }
      out->data<std::int64_t>()[o * inner + c] = best;
    }
  return std::vector<TensorPtr>{std::move(out)};
}

// ---- topk ----

// topk(x) as ONNX TopK: the k largest (smallest) elements along the axis, in order, and
// their positions (i64); equal elements keep their order, and NaN is larger than every
// number, as in argmax. `sorted` = 0 allows any order; the kernel sorts anyway.
Expected<std::vector<Type>> infer_topk(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY(check_numbers(input));
  UMA_TRY_ASSIGN(std::size_t axis, axis_attr(attrs, "axis", input.rank()));
  for (const char* flag : {"largest", "sorted"})
    if (auto valid = flag_attr(attrs, flag); !valid) return valid.error();
  std::int64_t k = attrs.get_int("k");
  if (k < 0 || k > input.shape[axis])
    return make_error("attribute 'k' is {}, but must be in [0, {}] (dimension {})", k,
                      input.shape[axis], axis);
  TensorType values{input.dtype, input.shape};
  values.shape[axis] = k;
  return std::vector<Type>{values, TensorType{DType::i64, values.shape}};
}

Expected<std::vector<TensorPtr>> topk_kernel(const std::vector<TensorPtr>& inputs,
                                             const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto values = std::make_shared<Tensor>(result_types[0].tensor());
  auto positions = std::make_shared<Tensor>(result_types[1].tensor());
  const Shape& shape = input.shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  bool smallest = attrs.get_int("largest") == 0;
  std::int64_t k = attrs.get_int("k");
  // As argmax: `outer` blocks of `dim` rows of `inner` elements, one column sorted at a time.
  std::int64_t dim = shape[axis];
  std::int64_t outer = product(shape, 0, axis);
  std::int64_t inner = product(shape, axis + 1, shape.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(dim));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      auto element = [&](std::int64_t row) { return (o * dim + row) * inner + c; };
      for (std::int64_t row = 0; row < dim; ++row) order[static_cast<std::size_t>(row)] = row;
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return beats(input, element(a), element(b), smallest);
      });
      for (std::int64_t j = 0; j < k; ++j) {
        std::int64_t row = order[static_cast<std::size_t>(j)];
        std::int64_t at = (o * k + j) * inner + c;
        copy_elements(input, element(row), *values, at, 1);
        positions->data<std::int64_t>()[at] = row;
      }
    }
  return std::vector<TensorPtr>{std::move(values), std::move(positions)};
}

// ---- cumsum ----

Expected<std::vector<Type>> infer_cumsum(const std::vector<Type>& inputs, const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& input = inputs[0].tensor();
  UMA_TRY(check_numbers(input));
  if (auto axis = axis_attr(attrs, "axis", input.rank()); !axis) return axis.error();
  for (const char* flag : {"exclusive", "reverse"})
    if (auto value = flag_attr(attrs, flag); !value) return value.error();
  return std::vector<Type>{input};
}

Expected<std::vector<TensorPtr>> cumsum_kernel(const std::vector<TensorPtr>& inputs,
                                               const AttrMap& attrs,
                                               const std::vector<Type>& result_types) {
  const Tensor& input = *inputs[0];
  auto out = std::make_shared<Tensor>(result_types[0].tensor());
  const Shape& shape = input.shape();
  std::size_t axis = *normalize_axis(attrs.get_int("axis"), shape.size());
  bool exclusive = attrs.get_int("exclusive") == 1, reverse = attrs.get_int("reverse") == 1;
  std::int64_t dim = shape[axis];
  std::int64_t outer = product(shape, 0, axis);
  std::int64_t inner = product(shape, axis + 1, shape.size());
  bool floats = is_float(input.dtype());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      double float_acc = 0;
      std::int64_t int_acc = 0;
      for (std::int64_t step = 0; step < dim; ++step) {
        std::int64_t k = reverse ? dim - 1 - step : step;
        std::int64_t i = (o * dim + k) * inner + c;
        if (exclusive) {
          if (floats)
            out->set(i, float_acc);
          else
            elementwise::set_int(*out, i, int_acc);
        }
        if (floats)
          float_acc += input.get(i);
        else
          int_acc = elementwise::int_add(int_acc, elementwise::get_int(input, i));
        if (!exclusive) {
          if (floats)
            out->set(i, float_acc);
          else
            elementwise::set_int(*out, i, int_acc);
        }
      }
    }
  return std::vector<TensorPtr>{std::move(out)};
}

}  // namespace

void register_reduce_ops(OpRegistry& registry) {
  for (const ReductionOp& op : kReductions) {
    Reduction kind = op.kind;
    OpDef def{
        .name = op.name,
        .min_inputs = 1,
        .max_inputs = 1,
        .attrs = {{"axes", AttrKind::Ints, Ints{}}, {"keepdims", AttrKind::Int, std::int64_t{1}}},
        .infer = [kind](const std::vector<Type>& inputs,
                        const AttrMap& attrs) { return infer_reduction(kind, inputs, attrs); },
        .kernel =
            [kind](const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
                   const std::vector<Type>& result_types) {
              return run_reduction(kind, inputs, attrs, result_types);
            },
        .fusion = FusionCategory::kAnchor};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", op.name);
  }
  for (bool min : {false, true}) {
    const char* name = min ? "argmin" : "argmax";
    OpDef def{.name = name,
              .min_inputs = 1,
              .max_inputs = 1,
              .attrs = {{"axis", AttrKind::Int, std::int64_t{0}},
                        {"keepdims", AttrKind::Int, std::int64_t{1}},
                        {"select_last_index", AttrKind::Int, std::int64_t{0}}},
              .infer = infer_arg_reduction,
              .kernel =
                  [min](const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
                        const std::vector<Type>& result_types) {
                    return arg_reduction_kernel(min, inputs, attrs, result_types);
                  },
              .fusion = FusionCategory::kAnchor};
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", name);
  }
  OpDef cumsum{.name = "cumsum",
               .min_inputs = 1,
               .max_inputs = 1,
               .attrs = {{"axis", AttrKind::Int, std::int64_t{0}},
                         {"exclusive", AttrKind::Int, std::int64_t{0}},
                         {"reverse", AttrKind::Int, std::int64_t{0}}},
               .infer = infer_cumsum,
               .kernel = cumsum_kernel,
               .fusion = FusionCategory::kAnchor};
  UMA_CHECK(registry.add(std::move(cumsum)).ok(), "op cumsum registered twice");
  OpDef topk{.name = "topk",
             .min_inputs = 1,
             .max_inputs = 1,
             .attrs = {{"k", AttrKind::Int, std::nullopt},
                       {"axis", AttrKind::Int, std::int64_t{-1}},
                       {"largest", AttrKind::Int, std::int64_t{1}},
                       {"sorted", AttrKind::Int, std::int64_t{1}}},
             .infer = infer_topk,
             .kernel = topk_kernel,
             .fusion = FusionCategory::kAnchor};
  UMA_CHECK(registry.add(std::move(topk)).ok(), "op topk registered twice");
}

}  // namespace uma
