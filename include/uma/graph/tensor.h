// Host tensors: a type and a shared, immutable-once-built byte buffer.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "uma/graph/type.h"

namespace uma {

// Tensor data lives in one heap buffer shared by every holder: weights are held once,
// and a pass that clones a node copies the pointer, never the bytes.
class Tensor {
 public:
  // A zero-filled tensor. The type must be valid (checked_num_elements() succeeded).
  explicit Tensor(TensorType type);
  // A tensor whose bytes are left as the allocator gave them, for a producer that writes
  // every byte: zeroing first would touch 100 MB of fresh pages twice when a large model's
  // weights are read or packed.
  static std::shared_ptr<Tensor> for_overwrite(TensorType type);
  // A tensor whose bytes are not available (constants printed with their data elided).
  static std::shared_ptr<Tensor> without_data(TensorType type);

  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  std::int64_t num_elements() const { return type_.num_elements(); }
  bool has_data() const { return has_data_; }

  std::span<std::byte> bytes() { return {data_.get(), size_}; }
  std::span<const std::byte> bytes() const { return {data_.get(), size_}; }

  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(data_.get());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_.get());
  }

  // Element i converted to/from double, whatever the dtype (for kernels that are
  // written once for every dtype; the reference interpreter values clarity over speed).
  double get(std::int64_t i) const;
  void set(std::int64_t i, double value);

  // Same type and the same bytes.
  bool same_contents(const Tensor& other) const;

  // The name the tensor had in the model (an initializer's name), used when printing.
  std::string name;

 private:
  struct AlignedDeleter {
    std::size_t alignment;
    void operator()(std::byte* p) const;
  };
  struct ForOverwrite {};
  Tensor(TensorType type, ForOverwrite);

  TensorType type_;
  std::size_t size_ = 0;
  bool has_data_ = true;
  std::unique_ptr<std::byte[], AlignedDeleter> data_{nullptr, AlignedDeleter{0}};
};

using TensorPtr = std::shared_ptr<const Tensor>;

}  // namespace uma
