// Helpers shared by the elementwise op families.
#include "elementwise_util.h"

#include <cmath>
#include <limits>

#include "uma/op/shape_util.h"

namespace uma::elementwise {

Status check_dtype(DType dtype, Accepts accepts, std::string_view subject) {
  switch (accepts) {
    case Accepts::Floats:
      if (!is_float(dtype))
        return make_error("{} {}, but only floating-point types (f32, f16, bf16) are supported",
                          subject, dtype_name(dtype));
      break;
    case Accepts::Numbers:
      if (dtype == DType::boolean)
        return make_error("{} bool, but only numbers are supported", subject);
      break;
    case Accepts::Bools:
      if (dtype != DType::boolean)
        return make_error("{} {}, but only bool is supported", subject, dtype_name(dtype));
      break;
    case Accepts::Any:
      break;
  }
  return Status::success();
}

Expected<TensorType> infer_broadcast(const std::vector<Type>& inputs, Accepts accepts) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& a = inputs[0].tensor();
  const TensorType& b = inputs[1].tensor();
  if (a.dtype != b.dtype)
    return make_error("operands have different dtypes {} and {}", dtype_name(a.dtype),
                      dtype_name(b.dtype));
  UMA_TRY(check_dtype(a.dtype, accepts, "operands are"));
  UMA_TRY_ASSIGN(Shape shape, broadcast_shapes(a.shape, b.shape));
  TensorType result{a.dtype, std::move(shape)};
  UMA_TRY(check_result_type(result));
  return result;
}

std::int64_t get_int(const Tensor& t, std::int64_t i) {
  switch (t.dtype()) {
    case DType::i8:
      return t.data<std::int8_t>()[i];
    case DType::u8:
    case DType::boolean:
      return t.data<std::uint8_t>()[i];
    case DType::i32:
      return t.data<std::int32_t>()[i];
    case DType::i64:
      return t.data<std::int64_t>()[i];
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("get_int on {}", dtype_name(t.dtype())));
}

// Conversion to a narrower integer type wraps modulo 2^bits in C++20.
void set_int(Tensor& t, std::int64_t i, std::int64_t value) {
  switch (t.dtype()) {
    case DType::i8:
      t.data<std::int8_t>()[i] = static_cast<std::int8_t>(value);
      return;
    case DType::u8:
      t.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(value);
      return;
    case DType::i32:
      t.data<std::int32_t>()[i] = static_cast<std::int32_t>(value);
      return;
    case DType::i64:
      t.data<std::int64_t>()[i] = value;
      return;
    case DType::boolean:
      t.data<std::uint8_t>()[i] = value != 0 ? 1 : 0;
      return;
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("set_int on {}", dtype_name(t.dtype())));
}

std::int64_t int_min(DType dtype) {
  switch (dtype) {
    case DType::i8:
      return std::numeric_limits<std::int8_t>::min();
    case DType::u8:
      return 0;
    case DType::i32:
      return std::numeric_limits<std::int32_t>::min();
    case DType::i64:
      return std::numeric_limits<std::int64_t>::min();
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("int_min of {}", dtype_name(dtype)));
}

std::int64_t int_max(DType dtype) {
  switch (dtype) {
    case DType::i8:
      return std::numeric_limits<std::int8_t>::max();
    case DType::u8:
      return std::numeric_limits<std::uint8_t>::max();
    case DType::i32:
      return std::numeric_limits<std::int32_t>::max();
    case DType::i64:
      return std::numeric_limits<std::int64_t>::max();
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("int_max of {}", dtype_name(dtype)));
}

std::int64_t saturating_int(double value, std::int64_t lo, std::int64_t hi) {
  if (std::isnan(value)) return 0;
  // Compare in double before converting: the conversion itself is undefined out of range.
  // 2^63 is exact in double; every double below it converts to a valid int64.
  double truncated = std::trunc(value);
  if (truncated <= static_cast<double>(lo)) return lo;
  if (truncated >= static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(truncated);
}

}  // namespace uma::elementwise
