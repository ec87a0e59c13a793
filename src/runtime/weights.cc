// Holding the constants of a compiled host program.
#include "uma/runtime/weights.h"

#include <unordered_set>

namespace uma::runtime {

Expected<Weights> Weights::hold(std::vector<TensorPtr> tensors) {
  Weights weights;
  std::unordered_set<const Tensor*> seen;
  for (const TensorPtr& tensor : tensors) {
    UMA_CHECK(tensor != nullptr, "a null weight");
    if (!tensor->has_data())
      return make_error("constant '{}' has no data (it was printed with its data elided)",
                        tensor->name);
    if (seen.insert(tensor.get()).second)
      weights.size_ += static_cast<std::int64_t>(tensor->bytes().size());
  }
  weights.tensors_ = std::move(tensors);
  return weights;
}

}  // namespace uma::runtime
