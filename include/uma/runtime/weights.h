// The weights blob: every constant a compiled host function passes to its calls, packed
// once at build time into one block, each at a 64-byte aligned offset. Generated code gets
// pointers into it; weights are never embedded in the generated C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "uma/graph/tensor.h"

namespace uma::runtime {

class WeightsBlob {
 public:
  static constexpr std::int64_t kAlignment = 64;

  // Packs the tensors in order; a tensor given twice (the same TensorPtr) is stored once.
  // Errors when one has no data (it was printed with its data elided).
  static Expected<WeightsBlob> pack(const std::vector<TensorPtr>& tensors);

  // The byte offset of tensors[i] of pack().
  std::int64_t offset(std::size_t i) const { return offsets_[i]; }
  std::int64_t size() const { return static_cast<std::int64_t>(bytes_->bytes().size()); }
  const std::byte* data() const { return bytes_->bytes().data(); }

 private:
  std::shared_ptr<const Tensor> bytes_;  // a u8 tensor: 64-byte aligned storage
  std::vector<std::int64_t> offsets_;
};

}  // namespace uma::runtime
