// cache_read: a block reads a copy of a buffer in another memory scope, made just before it.
#include <algorithm>

#include "schedule_util.h"

namespace uma::tir {

Expected<BlockRef> Schedule::cache_read(const BlockRef& block, const Buffer& buffer,
                                        const std::string& scope) {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "cache_read"));
  const auto* b = stmt.as<BlockNode>();
  if (buffer == nullptr) return make_error("cache_read: the buffer is null");
  if (scope.empty())
    return make_error("cache_read: the scope of the copy of %{} is empty", buffer->name);
  auto has = [&](const std::vector<Buffer>& list) {
    return std::find(list.begin(), list.end(), buffer) != list.end();
  };
  if (!has(sched::accessed_buffers(b->body, /*loads=*/true, /*stores=*/false)))
    return make_error("cache_read: block '{}' does not read %{}", b->name, buffer->name);
  if (has(sched::accessed_buffers(b->body, /*loads=*/false, /*stores=*/true)))
    return make_error("cache_read: block '{}' also writes %{}; cache it with cache_write", b->name,
                      buffer->name);

  Buffer cache = make_buffer(buffer->name + "_" + scope, buffer->dtype, buffer->shape, scope);
  Stmt copy = sched::copy_block(cache->name, buffer, cache);
  sched::BlockRemap remap;
  Stmt rewritten = sched::replace_buffer(stmt, buffer, cache, remap);
  Stmt now = AllocateNode::make(cache, SeqNode::make({copy, rewritten}));
  commit(sched::replace(func_.body, stmt.get(), now, remap), remap);
  return track(copy);
}

}  // namespace uma::tir
