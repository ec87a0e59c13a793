// The error record of a function's run-time checks (see uma/tir/run_checks.h).
#include "uma/tir/run_checks.h"

#include <fmt/format.h>

namespace uma::tir {

std::optional<std::size_t> error_param(const PrimFunc& func) {
  for (std::size_t k = func.num_inputs; k < func.params.size(); ++k)
    if (func.params[k]->scope == kErrorScope) return k;
  return std::nullopt;
}

std::string check_failure(std::string_view message, std::int64_t value, std::int64_t element) {
  return fmt::format(fmt::runtime(message), fmt::arg("value", value), fmt::arg("element", element));
}

}  // namespace uma::tir
