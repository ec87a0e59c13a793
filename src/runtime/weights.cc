// Packing constants into the weights blob.
#include "uma/runtime/weights.h"

#include <cstring>

namespace uma::runtime {

Expected<WeightsBlob> WeightsBlob::pack(const std::vector<TensorPtr>& tensors) {
  WeightsBlob blob;
  std::unordered_map<const Tensor*, std::int64_t> packed;
  std::int64_t size = 0;
  for (const TensorPtr& tensor : tensors) {
    UMA_CHECK(tensor != nullptr, "a null weight");
    if (!tensor->has_data())
      return make_error("constant '{}' has no data (it was printed with its data elided)",
                        tensor->name);
    auto [it, added] = packed.emplace(tensor.get(), size);
    if (added)
      size +=
          (static_cast<std::int64_t>(tensor->bytes().size()) + kAlignment - 1) & ~(kAlignment - 1);
    blob.offsets_.push_back(it->second);
  }
  auto bytes = std::make_shared<Tensor>(TensorType{DType::u8, {size}});
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (!tensors[i]->bytes().empty())
      std::memcpy(bytes->bytes().data() + blob.offsets_[i], tensors[i]->bytes().data(),
                  tensors[i]->bytes().size());
  blob.bytes_ = std::move(bytes);
  return blob;
}

}  // namespace uma::runtime
