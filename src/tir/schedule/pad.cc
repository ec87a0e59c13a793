// pad: a buffer the function allocates grows at the end of its dimensions, its accesses
// unchanged, so later primitives may touch elements past the data (a vector tail without a
// guard) without leaving the buffer.
#include <algorithm>

#include "schedule_util.h"

namespace uma::tir {

Expected<Buffer> Schedule::pad(const Buffer& buffer, const std::vector<std::int64_t>& padding) {
  if (buffer == nullptr) return make_error("pad: the buffer is null");
  if (std::find(func_.params.begin(), func_.params.end(), buffer) != func_.params.end())
    return make_error(
        "pad: %{} is a parameter of function @{}, whose size is the caller's; transform_layout "
        "can change a parameter's layout",
        buffer->name, func_.name);
  if (!sched::allocates(func_.body, buffer))
    return make_error("pad: %{} is not allocated in function @{}", buffer->name, func_.name);
  if (!buffer->strides.empty()) return make_error("pad: %{} has explicit strides", buffer->name);
  if (padding.size() != buffer->shape.size())
    return make_error("pad: {} paddings for the {} dimensions of %{}", padding.size(),
                      buffer->shape.size(), buffer->name);
  std::vector<Expr> shape;
  for (std::size_t d = 0; d < padding.size(); ++d) {
    if (padding[d] < 0)
      return make_error("pad: the padding of dimension {} of %{} is negative ({})", d, buffer->name,
                        padding[d]);
    const Expr& dim = buffer->shape[d];
    auto extent = as_const_int(dim);
    std::int64_t padded = 0;
    if (extent && __builtin_add_overflow(*extent, padding[d], &padded))
      return make_error("pad: dimension {} of %{} padded by {} passes 64 bits", d, buffer->name,
                        padding[d]);
    shape.push_back(padding[d] == 0 ? dim
                    : extent        ? sched::constant_like(dim, padded)
                                    : dim + sched::constant_like(dim, padding[d]));
  }
  Buffer padded = make_buffer(buffer->name, buffer->dtype, std::move(shape), buffer->scope);
  sched::BlockRemap remap;
  commit(sched::replace_buffer(func_.body, buffer, padded, remap), remap);
  return padded;
}

}  // namespace uma::tir
