// Host tensors.
#include "uma/graph/tensor.h"

#include <sys/mman.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace uma {
namespace {

// 64 bytes: a cache line and an AVX-512 vector, so kernels may use aligned loads.
constexpr std::size_t kAlignment = 64;
// Tensors of a huge page or more (weights, arenas) start on a huge page and ask for
// transparent huge pages. Touching 100 MB of fresh memory in 4 KiB pages is 25,000 page
// faults, a large part of a second on a virtual machine (a ResNet-50 build writes its weights
// twice: read, then packed); in 2 MiB pages it is 50.
constexpr std::size_t kHugePage = std::size_t{2} << 20;

}  // namespace

void Tensor::AlignedDeleter::operator()(std::byte* p) const {
  ::operator delete[](p, std::align_val_t(alignment));
}

Tensor::Tensor(TensorType type) : Tensor(std::move(type), ForOverwrite{}) {
  std::memset(data_.get(), 0, size_);
}

Tensor::Tensor(TensorType type, ForOverwrite) : type_(std::move(type)) {
  UMA_CHECK(type_.checked_num_elements().ok(), "invalid tensor type {}", uma::to_string(type_));
  size_ = static_cast<std::size_t>(type_.num_bytes());
  // Never a zero-size allocation, so data() is always a valid pointer.
  std::size_t allocation = size_ == 0 ? kAlignment : size_;
  std::size_t alignment = allocation >= kHugePage ? kHugePage : kAlignment;
  data_ = std::unique_ptr<std::byte[], AlignedDeleter>(
      new (std::align_val_t(alignment)) std::byte[allocation], AlignedDeleter{alignment});
#ifdef MADV_HUGEPAGE
  if (alignment == kHugePage) ::madvise(data_.get(), allocation, MADV_HUGEPAGE);  // advice only
#endif
}

std::shared_ptr<Tensor> Tensor::for_overwrite(TensorType type) {
  // Not make_shared: the constructor is private.
  return std::shared_ptr<Tensor>(new Tensor(std::move(type), ForOverwrite{}));
}

std::shared_ptr<Tensor> Tensor::without_data(TensorType type) {
  TensorType empty = type;
  empty.shape.assign(1, 0);
  auto tensor = std::make_shared<Tensor>(std::move(empty));
  tensor->type_ = std::move(type);
  tensor->has_data_ = false;
  return tensor;
}

double Tensor::get(std::int64_t i) const {
  UMA_CHECK(has_data_);
  switch (dtype()) {
    case DType::f32:
      return data<float>()[i];
    case DType::f16:
      return f16_to_f32(data<std::uint16_t>()[i]);
    case DType::bf16:
      return bf16_to_f32(data<std::uint16_t>()[i]);
    case DType::f64:
      return data<double>()[i];
    case DType::i8:
      return data<std::int8_t>()[i];
    case DType::i16:
      return data<std::int16_t>()[i];
    case DType::i32:
      return data<std::int32_t>()[i];
    case DType::i64:
      return static_cast<double>(data<std::int64_t>()[i]);
    case DType::u8:
      return data<std::uint8_t>()[i];
    case DType::u16:
      return data<std::uint16_t>()[i];
    case DType::u32:
      return data<std::uint32_t>()[i];
    case DType::u64:
      return static_cast<double>(data<std::uint64_t>()[i]);
    case DType::boolean:
      return data<std::uint8_t>()[i] != 0 ? 1.0 : 0.0;
  }
  return 0;
}

namespace {

// Integers from doubles as C's conversions would go through int64: NaN is 0, values beyond
// int64 saturate, and the narrowing to the element type wraps (defined since C++20), so no
// value a kernel computes can be undefined behaviour.
std::int64_t to_int64(double value) {
  if (std::isnan(value)) return 0;
  if (value >= 0x1p63) return std::numeric_limits<std::int64_t>::max();
  if (value < -0x1p63) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(value);
}

// u64 as to_int64 would give it, except that [2^63, 2^64) is u64's own range and values
// beyond it saturate at u64's maximum.
std::uint64_t to_uint64(double value) {
  if (value >= 0x1p64) return std::numeric_limits<std::uint64_t>::max();
  if (value >= 0x1p63) return static_cast<std::uint64_t>(value);
  return static_cast<std::uint64_t>(to_int64(value));
}

// The double rounded to f32 by rounding to odd: when inexact, the result is the f32 toward
// zero with its lowest bit set. Rounding that once more to f16 or bf16 (11 and 8 bits, both
// at least 2 fewer than f32's 24) gives the correctly rounded result, which rounding to
// nearest twice does not always.
float to_f32_odd(double value) {
  auto narrow = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(narrow) == value) return narrow;
  if (std::fabs(static_cast<double>(narrow)) > std::fabs(value))
    narrow = std::nextafter(narrow, 0.0f);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(narrow) | 1u);
}

}  // namespace

void Tensor::set(std::int64_t i, double value) {
  UMA_CHECK(has_data_);
  switch (dtype()) {
    case DType::f32:
      data<float>()[i] = static_cast<float>(value);
      break;
    case DType::f16:
      data<std::uint16_t>()[i] = f32_to_f16(to_f32_odd(value));
      break;
    case DType::bf16:
      data<std::uint16_t>()[i] = f32_to_bf16(to_f32_odd(value));
      break;
    case DType::f64:
      data<double>()[i] = value;
      break;
    case DType::i8:
      data<std::int8_t>()[i] = static_cast<std::int8_t>(to_int64(value));
      break;
    case DType::i16:
      data<std::int16_t>()[i] = static_cast<std::int16_t>(to_int64(value));
      break;
    case DType::i32:
      data<std::int32_t>()[i] = static_cast<std::int32_t>(to_int64(value));
      break;
    case DType::i64:
      data<std::int64_t>()[i] = to_int64(value);
      break;
    case DType::u8:
      data<std::uint8_t>()[i] = static_cast<std::uint8_t>(to_int64(value));
      break;
    case DType::u16:
      data<std::uint16_t>()[i] = static_cast<std::uint16_t>(to_int64(value));
      break;
    case DType::u32:
      data<std::uint32_t>()[i] = static_cast<std::uint32_t>(to_int64(value));
      break;
    case DType::u64:
      data<std::uint64_t>()[i] = to_uint64(value);
      break;
    case DType::boolean:
      data<std::uint8_t>()[i] = value != 0 ? 1 : 0;
      break;
  }
}

bool Tensor::same_contents(const Tensor& other) const {
  if (type_ != other.type_ || has_data_ != other.has_data_) return false;
  if (!has_data_) return name == other.name;
  return size_ == other.size_ && std::memcmp(data_.get(), other.data_.get(), size_) == 0;
}

}  // namespace uma
