// cache_write: a block writes a buffer in another memory scope, copied to the original
// buffer just after it.
#include <algorithm>

#include "schedule_util.h"

namespace uma::tir {

Expected<BlockRef> Schedule::cache_write(const BlockRef& block, const Buffer& buffer,
                                         const std::string& scope) {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "cache_write"));
  const auto* b = stmt.as<BlockNode>();
  if (buffer == nullptr) return make_error("cache_write: the buffer is null");
  if (scope.empty())
    return make_error("cache_write: the scope of the copy of %{} is empty", buffer->name);
  auto has = [&](const std::vector<Buffer>& buffers) {
    return std::find(buffers.begin(), buffers.end(), buffer) != buffers.end();
  };
  // An extern call writes through the buffer's address, which the block declares it writes.
  bool stored = has(sched::accessed_buffers(b->body, /*loads=*/false, /*stores=*/true));
  bool passed = has(b->writes) && has(sched::accessed_buffers(b->body, /*loads=*/true, false));
  if (!stored && !passed)
    return make_error("cache_write: block '{}' does not write %{}", b->name, buffer->name);

  Buffer cache = make_buffer(buffer->name + "_" + scope, buffer->dtype, buffer->shape, scope);
  Stmt copy = sched::copy_block(cache->name, cache, buffer);
  sched::BlockRemap remap;
  Stmt rewritten = sched::replace_buffer(stmt, buffer, cache, remap);
  Stmt now = AllocateNode::make(cache, SeqNode::make({rewritten, copy}));
  commit(sched::replace(func_.body, stmt.get(), now, remap), remap);
  return track(copy);
}

}  // namespace uma::tir
