// The weights of a compiled host program: every constant it passes to its calls. They are
// the module's own tensors, held rather than copied (a build of ResNet-50 would otherwise
// copy its 97 MB once more); generated code gets pointers to them and never embeds them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "uma/graph/tensor.h"
#include "uma/support/error.h"

namespace uma::runtime {

class Weights {
 public:
  // Holds the tensors in order. Errors when one has no data (it was printed with its data
  // elided).
  static Expected<Weights> hold(std::vector<TensorPtr> tensors);

  std::size_t count() const { return tensors_.size(); }
  // Tensor i of hold(): 64-byte aligned, as every tensor's data is.
  const std::byte* address(std::size_t i) const { return tensors_[i]->bytes().data(); }
  // Bytes held, a tensor given more than once (the same TensorPtr) counted once.
  std::int64_t size() const { return size_; }

 private:
  std::vector<TensorPtr> tensors_;
  std::int64_t size_ = 0;
};

}  // namespace uma::runtime
