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
        return make_error(
            "{} {}, but only floating-point types (f32, f16, bf16, f64) are supported", subject,
            dtype_name(dtype));
      break;
    case Accepts::Unsigned:
      if (!is_unsigned(dtype))
        return make_error("{} {}, but only unsigned integers (u8, u16, u32, u64) are supported",
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
    case DType::i16:
      return t.data<std::int16_t>()[i];
    case DType::i32:
      return t.data<std::int32_t>()[i];
    case DType::i64:
      return t.data<std::int64_t>()[i];
    case DType::u8:
    case DType::boolean:
      return t.data<std::uint8_t>()[i];
    case DType::u16:
      return t.data<std::uint16_t>()[i];
    case DType::u32:
      return t.data<std::uint32_t>()[i];
    case DType::u64:
      return static_cast<std::int64_t>(t.data<std::uint64_t>()[i]);
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
    case DType::i16:
      t.data<std::int16_t>()[i] = static_cast<std::int16_t>(value);
      return;
    case DType::i32:
      t.data<std::int32_t>()[i] = static_cast<std::int32_t>(value);
      return;
    case DType::i64:
      t.data<std::int64_t>()[i] = value;
      return;
    case DType::u8:
      t.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(value);
      return;
    case DType::u16:
      t.data<std::uint16_t>()[i] = static_cast<std::uint16_t>(value);
      return;
    case DType::u32:
      t.data<std::uint32_t>()[i] = static_cast<std::uint32_t>(value);
      return;
    case DType::u64:
      t.data<std::uint64_t>()[i] = static_cast<std::uint64_t>(value);
      return;
    case DType::boolean:
      t.data<std::uint8_t>()[i] = value != 0 ? 1 : 0;
      return;
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("set_int on {}", dtype_name(t.dtype())));
}

std::int64_t int_order_key(DType dtype, std::int64_t value) {
  return dtype == DType::u64 ? value ^ std::numeric_limits<std::int64_t>::min() : value;
}

namespace {

template <typename T>
std::int64_t lowest() {
  return static_cast<std::int64_t>(std::numeric_limits<T>::min());
}
template <typename T>
std::int64_t highest() {
  return static_cast<std::int64_t>(std::numeric_limits<T>::max());
}

}  // namespace

std::int64_t int_min(DType dtype) {
  switch (dtype) {
    case DType::i8:
      return lowest<std::int8_t>();
    case DType::i16:
      return lowest<std::int16_t>();
    case DType::i32:
      return lowest<std::int32_t>();
    case DType::i64:
      return lowest<std::int64_t>();
    case DType::u8:
    case DType::u16:
    case DType::u32:
    case DType::u64:
      return 0;
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("int_min of {}", dtype_name(dtype)));
}

std::int64_t int_max(DType dtype) {
  switch (dtype) {
    case DType::i8:
      return highest<std::int8_t>();
    case DType::i16:
      return highest<std::int16_t>();
    case DType::i32:
      return highest<std::int32_t>();
    case DType::i64:
      return highest<std::int64_t>();
    case DType::u8:
      return highest<std::uint8_t>();
    case DType::u16:
      return highest<std::uint16_t>();
    case DType::u32:
      return highest<std::uint32_t>();
    case DType::u64:
      return highest<std::uint64_t>();  // all ones
    default:
      break;
  }
  internal_error(__FILE__, __LINE__, fmt::format("int_max of {}", dtype_name(dtype)));
}

std::int64_t int_divide(DType dtype, std::int64_t a, std::int64_t b) {
  if (dtype == DType::u64)
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) / static_cast<std::uint64_t>(b));
  return b == -1 ? int_negative(a) : a / b;
}

std::int64_t saturating_int(double value, DType dtype) {
  if (std::isnan(value)) return 0;
  // Compare in double before converting: the conversion itself is undefined out of range.
  // The bounds 2^63 and 2^64 are exact in double, and every double in between converts.
  double truncated = std::trunc(value);
  if (dtype == DType::u64) {
    if (truncated <= 0) return 0;
    if (truncated >= 0x1p64) return int_max(dtype);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(truncated));
  }
  std::int64_t lo = int_min(dtype), hi = int_max(dtype);
  if (truncated <= static_cast<double>(lo)) return lo;
  if (truncated >= static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(truncated);
}

}  // namespace uma::elementwise
