// A function's load-time state parameter (see uma/tir/state.h).
#include "uma/tir/state.h"

namespace uma::tir {

Expected<Buffer> add_state(PrimFunc& func, std::int64_t bytes, std::string name) {
  if (state_param(func))
    return make_error("func @{}: has a state already ('{}')", func.name,
                      func.params[*state_param(func)]->name);
  if (bytes < 1)
    return make_error("func @{}: a state of {} bytes; it needs at least 1", func.name, bytes);
  Buffer state = make_buffer(std::move(name), DType::u8, {Expr(bytes)}, std::string(kStateScope));
  func.params.push_back(state);
  return state;
}

std::optional<std::size_t> state_param(const PrimFunc& func) {
  for (std::size_t k = func.num_inputs; k < func.params.size(); ++k)
    if (func.params[k]->scope == kStateScope) return k;
  return std::nullopt;
}

}  // namespace uma::tir
