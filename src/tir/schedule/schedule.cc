// The Schedule itself: block and loop lookup, and the tickets that keep BlockRefs valid
// across primitives. Each primitive is in its own file of this folder.
#include "uma/tir/schedule.h"

#include <fmt/ranges.h>

#include "schedule_util.h"

namespace uma::tir {

using sched::Path;

Schedule::Schedule(PrimFunc func) : func_(std::move(func)) {}

namespace {

// The blocks named `name` in program order; an Error naming `primitive` when there is none.
Expected<std::vector<Stmt>> blocks_named(const PrimFunc& func, std::string_view name,
                                         std::string_view primitive) {
  std::vector<Stmt> found;
  std::vector<std::string> names;
  sched::walk(func.body, [&](const Path& path) {
    if (const auto* block = path.back().as<BlockNode>()) {
      if (block->name == name) found.push_back(path.back());
      names.push_back(block->name);
    }
    return true;
  });
  if (!found.empty()) return found;
  if (names.empty())
    return make_error("{}: no block named '{}': function @{} has no blocks", primitive, name,
                      func.name);
  return make_error("{}: no block named '{}' in function @{} (its blocks: {})", primitive, name,
                    func.name, fmt::join(names, ", "));
}

}  // namespace

Expected<BlockRef> Schedule::get_block(std::string_view name) {
  UMA_TRY_ASSIGN(std::vector<Stmt> found, blocks_named(func_, name, "get_block"));
  if (found.size() > 1)
    return make_error(
        "get_block: {} blocks of function @{} are named '{}'; get_blocks returns "
        "them all",
        found.size(), func_.name, name);
  return track(found.front());
}

Expected<std::vector<BlockRef>> Schedule::get_blocks(std::string_view name) {
  UMA_TRY_ASSIGN(std::vector<Stmt> found, blocks_named(func_, name, "get_blocks"));
  std::vector<BlockRef> blocks;
  for (const Stmt& block : found) blocks.push_back(track(block));
  return blocks;
}

BlockRef Schedule::track(const Stmt& block) {
  for (std::size_t id = 0; id < blocks_.size(); ++id)
    if (blocks_[id].same_as(block)) return BlockRef(id);
  blocks_.push_back(block);
  return BlockRef(blocks_.size() - 1);
}

Expected<Stmt> Schedule::block_stmt(const BlockRef& block, std::string_view primitive) const {
  if (block.id_ >= blocks_.size())
    return make_error("{}: the block handle does not belong to this schedule", primitive);
  const Stmt& stmt = blocks_[block.id_];
  if (!sched::find_stmt(func_.body, stmt.get()))
    return make_error("{}: block '{}' is no longer in function @{}", primitive,
                      stmt.as<BlockNode>()->name, func_.name);
  return stmt;
}

Expected<std::string> Schedule::block_name(const BlockRef& block) const {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "block_name"));
  return stmt.as<BlockNode>()->name;
}

Expected<std::vector<LoopRef>> Schedule::get_loops(const BlockRef& block) const {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "get_loops"));
  std::vector<LoopRef> loops;
  Path path = *sched::find_stmt(func_.body, stmt.get());
  for (const Stmt& ancestor : path)
    if (const auto* loop = ancestor.as<ForNode>()) loops.push_back({loop->var});
  for (const ForNode* loop : sched::loops_in(stmt.as<BlockNode>()->body))
    loops.push_back({loop->var});
  return loops;
}

void Schedule::commit(Stmt body, const std::unordered_map<const StmtNode*, Stmt>& remap) {
  for (Stmt& block : blocks_) {
    // A block may be rebuilt more than once by one primitive: follow the chain.
    for (auto it = remap.find(block.get()); it != remap.end(); it = remap.find(block.get()))
      block = it->second;
  }
  func_.body = std::move(body);
}

Status Schedule::set_loop_kind(const LoopRef& loop, ForKind kind, std::string_view primitive) {
  UMA_TRY_ASSIGN(Path path, sched::find_loop(func_, loop, primitive));
  const auto* op = path.back().as<ForNode>();
  if (op->for_kind == kind) return Status::success();
  sched::BlockRemap remap;
  Stmt now = ForNode::make(op->var, op->min, op->extent, kind, op->body);
  commit(sched::replace(func_.body, op, now, remap), remap);
  return Status::success();
}

}  // namespace uma::tir
