// Helpers shared by the neural-network op families.
#include "nn_util.h"

#include <algorithm>
#include <memory>

#include "uma/op/shape_util.h"

namespace uma::nn {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

}  // namespace

const char* spatial_name(std::size_t rank, std::size_t dim) {
  static constexpr const char* kNames[] = {"depth", "height", "width"};
  UMA_CHECK(rank >= 1 && rank <= 3 && dim < rank);
  return kNames[3 - rank + dim];
}

const char* spatial_letters(std::size_t rank) {
  static constexpr const char* kLetters[] = {"W", "HW", "DHW"};
  UMA_CHECK(rank >= 1 && rank <= 3);
  return kLetters[rank - 1];
}

const char* padding_meaning(std::size_t rank) {
  static constexpr const char* kMeanings[] = {" (left, right)", " (top, left, bottom, right)",
                                              " (front, top, left, back, bottom, right)"};
  UMA_CHECK(rank >= 1 && rank <= 3);
  return kMeanings[rank - 1];
}

Status check_float_dtypes(const std::vector<Type>& inputs, std::initializer_list<const char*> names,
                          bool allow_i32) {
  const char* const* name = names.begin();
  DType dtype = inputs[0].tensor().dtype;
  // f64 is left out: these kernels read their operands as f32 (to_floats).
  if ((!is_float(dtype) || dtype == DType::f64) && !(allow_i32 && dtype == DType::i32))
    return make_error("{} is {}, but only floating-point types (f32, f16, bf16){} are supported",
                      name[0], dtype_name(dtype), allow_i32 ? " and i32" : "");
  for (std::size_t i = 1; i < inputs.size() && i < names.size(); ++i)
    if (inputs[i].tensor().dtype != dtype)
      return make_error("{} is {}, but {} is {}", name[i], dtype_name(inputs[i].tensor().dtype),
                        name[0], dtype_name(dtype));
  return Status::success();
}

Status check_bias(const std::vector<Type>& inputs, std::int64_t count, const char* per) {
  if (inputs.size() < 3) return Status::success();
  const Shape& shape = inputs[2].tensor().shape;
  if (shape != Shape{count})
    return make_error("bias has shape {}, but must have shape {} (one value per {})",
                      to_string(shape), count, per);
  return Status::success();
}

Status check_ints_attr(const AttrMap& attrs, const char* name, std::size_t count,
                       const char* meaning, std::int64_t min) {
  const std::vector<std::int64_t>& values = attrs.get_ints(name);
  if (values.size() != count)
    return make_error("attribute '{}' must have {} values{}, got {}", name, count, meaning,
                      values.size());
  for (std::int64_t v : values)
    if (v < min)
      return make_error("attribute '{}' must be {}, got {}", name,
                        min == 0 ? "non-negative" : "positive", format_ints(values));
  return Status::success();
}

Expected<std::int64_t> window_output_size(const char* what, std::int64_t input,
                                          std::int64_t pad_before, std::int64_t pad_after,
                                          std::int64_t kernel, std::int64_t dilation,
                                          std::int64_t stride, bool ceil_mode) {
  std::string why = fmt::format("(input {}, padding {}+{}, kernel {}, dilation {}, stride {})",
                                input, pad_before, pad_after, kernel, dilation, stride);
  std::optional<std::int64_t> padded, extent;
  if (auto p = checked_add(input, pad_before)) padded = checked_add(*p, pad_after);
  if (auto e = checked_mul(dilation, kernel - 1)) extent = checked_add(*e, 1);
  if (!padded || !extent) return make_error("output {} overflows int64 {}", what, why);
  std::int64_t span = *padded - *extent;
  std::int64_t size = (ceil_mode ? ceil_div(span, stride) : floor_div(span, stride)) + 1;
  // Only ceil mode can add a window that starts in the trailing padding (or past it); drop it.
  if (ceil_mode && size > 1) {
    std::optional<std::int64_t> last_start = checked_mul(size - 1, stride);
    if (!last_start || *last_start >= input + pad_before) --size;
  }
  if (size < 1) return make_error("output {} would be {} {}", what, size, why);
  return size;
}

std::vector<float> to_floats(const Tensor& t) {
  if (t.dtype() == DType::f32) return {t.data<float>(), t.data<float>() + t.num_elements()};
  std::vector<float> values(static_cast<std::size_t>(t.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(t.get(static_cast<std::int64_t>(i)));
  return values;
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> values(static_cast<std::size_t>(t.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = t.get(static_cast<std::int64_t>(i));
  return values;
}

TensorPtr from_doubles(const std::vector<double>& values, const TensorType& type) {
  auto out = std::make_shared<Tensor>(type);
  for (std::size_t i = 0; i < values.size(); ++i) out->set(static_cast<std::int64_t>(i), values[i]);
  return out;
}

Window3 make_window(const Shape& data, const Shape& out, const Shape& kernel,
                    const std::vector<std::int64_t>& strides,
                    const std::vector<std::int64_t>& padding,
                    const std::vector<std::int64_t>& dilation) {
  const std::size_t rank = kernel.size();
  UMA_CHECK(rank >= 1 && rank <= 3 && data.size() == rank + 2 && out.size() == rank + 2);
  Window3 window;
  for (std::size_t i = 0; i < rank; ++i) {
    WindowAxis& axis = window[3 - rank + i];
    axis.input = data[2 + i];
    axis.output = out[2 + i];
    axis.kernel = kernel[i];
    axis.stride = strides[i];
    axis.dilation = dilation.empty() ? 1 : dilation[i];
    axis.pad_before = padding[i];
  }
  return window;
}

Range inside_range(std::int64_t count, std::int64_t limit, std::int64_t step, std::int64_t offset) {
  std::int64_t begin = std::max<std::int64_t>(0, ceil_div(-offset, step));
  std::int64_t end = std::min(count, floor_div(limit - 1 - offset, step) + 1);
  return {begin, std::max(begin, end)};
}

std::vector<TapSpan> tap_spans(const WindowAxis& axis) {
  std::vector<TapSpan> spans;
  for (std::int64_t k = 0; k < axis.kernel; ++k) {
    std::int64_t offset = k * axis.dilation - axis.pad_before;
    spans.push_back({offset, inside_range(axis.output, axis.input, axis.stride, offset)});
  }
  return spans;
}

}  // namespace uma::nn
