// The memory budget check (see uma/runtime/memory_budget.h).
#include "uma/runtime/memory_budget.h"

#include <unistd.h>

#include <limits>

#include "uma/support/printable.h"

namespace uma::runtime {
namespace {

// The bytes of `type` (the sum of its fields'), saturated at the largest uint64_t.
std::uint64_t bytes_of(const Type& type) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (!type.is_tensor()) {
    std::uint64_t sum = 0;
    for (const Type& field : type.tuple().fields) {
      std::uint64_t bytes = bytes_of(field);
      sum = bytes > kMax - sum ? kMax : sum + bytes;
    }
    return sum;
  }
  const TensorType& tensor = type.tensor();
  auto elements = static_cast<std::uint64_t>(tensor.num_elements());
  std::uint64_t size = dtype_size(tensor.dtype);
  return elements > kMax / size ? kMax : elements * size;
}

Status check_value(const Value& value, std::uint64_t budget, const std::string& place) {
  std::uint64_t bytes = bytes_of(value.type());
  if (bytes <= budget) return Status::success();
  return make_error(
      "{}: its result {} takes {} bytes, more than the memory budget of {} bytes "
      "(--memory-budget)",
      place, to_string(value.type()), bytes, budget);
}

}  // namespace

std::uint64_t default_memory_budget() {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

Status check_memory_budget(const Module& module, std::uint64_t budget) {
  for (const Function* function : module.functions()) {
    for (const Value* param : function->params())
      UMA_TRY(check_value(*param, budget,
                          fmt::format("parameter %{} of @{}", printable(param->name()),
                                      printable(function->name()))));
    std::size_t position = 0;
    for (const auto& node : function->nodes()) {
      for (const Value* result : node->results())
        UMA_TRY(check_value(*result, budget, node->location(position)));
      ++position;
    }
  }
  return Status::success();
}

}  // namespace uma::runtime
