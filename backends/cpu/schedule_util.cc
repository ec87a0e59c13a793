// Helpers the host's schedules share (schedule_util.h).
#include "schedule_util.h"

#include <algorithm>

#include "uma/tir/functor.h"

namespace uma::backends {

std::optional<tir::LoopRef> named(const std::vector<tir::LoopRef>& loops, std::string_view name) {
  for (const tir::LoopRef& loop : loops)
    if (loop.var.as<tir::VarNode>()->name == name) return loop;
  return std::nullopt;
}

std::optional<std::int64_t> extent_of(const tir::Stmt& block, const tir::LoopRef& loop) {
  std::optional<std::int64_t> extent;
  tir::pre_order_visit(block, [&](const tir::ExprNode*, const tir::StmtNode* s) {
    if (s == nullptr || s->kind != tir::StmtKind::For) return;
    const auto& op = *static_cast<const tir::ForNode*>(s);
    if (op.var.same_as(loop.var)) extent = tir::as_const_int(op.extent);
  });
  return extent;
}

std::int64_t largest_divisor(std::int64_t n, std::int64_t limit) {
  for (std::int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

}  // namespace uma::backends
