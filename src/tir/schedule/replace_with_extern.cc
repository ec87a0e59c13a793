// replace_with_extern: a block's loop nest becomes one call of an extern function (an
// accelerator's driver, a kernel library) with the block's buffers and sizes: how a backend
// hands a block to its hardware while the block stays findable by its name.
#include <algorithm>

#include "schedule_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tir {

Status Schedule::replace_with_extern(const BlockRef& block, const std::string& function_name,
                                     std::optional<std::vector<Expr>> scalars) {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "replace_with_extern"));
  const auto* b = stmt.as<BlockNode>();
  if (function_name.empty())
    return make_error("replace_with_extern: the function name for block '{}' is empty", b->name);

  std::optional<std::string> nested;
  sched::walk(b->body, [&](const sched::Path& path) {
    if (const auto* inner = path.back().as<BlockNode>(); inner != nullptr && !nested)
      nested = inner->name;
    return !nested;
  });
  if (nested)
    return make_error(
        "replace_with_extern: block '{}' contains block '{}', which the call would drop", b->name,
        *nested);

  // The buffers: the block's reads, then its writes, each once.
  std::vector<Buffer> buffers;
  for (const auto* list : {&b->reads, &b->writes})
    for (const Buffer& buffer : *list)
      if (std::find(buffers.begin(), buffers.end(), buffer) == buffers.end())
        buffers.push_back(buffer);
  for (const Buffer& used : sched::accessed_buffers(b->body, true, true))
    if (std::find(buffers.begin(), buffers.end(), used) == buffers.end())
      return make_error(
          "replace_with_extern: block '{}' uses %{} but does not list it in its reads or writes",
          b->name, used->name);

  // Variables bound inside the block, which no argument may use.
  std::unordered_set<const VarNode*> inner;
  pre_order_visit(b->body, [&](const ExprNode* e, const StmtNode* s) {
    if (s != nullptr && s->kind == StmtKind::For)
      inner.insert(static_cast<const ForNode*>(s)->var.as<VarNode>());
    if (s != nullptr && s->kind == StmtKind::LetStmt)
      inner.insert(static_cast<const LetStmtNode*>(s)->var.as<VarNode>());
    if (e != nullptr && e->kind == ExprKind::Let)
      inner.insert(static_cast<const LetNode*>(e)->var.as<VarNode>());
  });

  // Each buffer's address is the origin of the region the block accesses (clamped at 0: a
  // padded read reaches below it), so that a block computed at a tile loop hands the call
  // its tile; the origin of the buffer where the region cannot be bounded.
  std::vector<Expr> args;
  for (const Buffer& buffer : buffers) {
    bool written = std::find(b->writes.begin(), b->writes.end(), buffer) != b->writes.end();
    Expected<sched::Region> region =
        sched::accessed_region(b->body, buffer, written, "replace_with_extern", b->name);
    std::vector<Expr> origin;
    for (std::size_t d = 0; d < buffer->shape.size(); ++d) {
      Expr zero = sched::constant_like(buffer->shape[d], 0);
      bool bounded = region && d < region->lo.size() && region->lo[d].defined();
      origin.push_back(bounded ? simplify(max(region->lo[d], zero)) : zero);
    }
    args.push_back(AddressNode::make(buffer, std::move(origin)));
  }
  if (scalars) {
    for (std::size_t i = 0; i < scalars->size(); ++i) {
      const Expr& arg = (*scalars)[i];
      if (!arg.defined() || !arg.type().is_scalar())
        return make_error("replace_with_extern: scalar argument {} of block '{}' is not a scalar",
                          i, b->name);
      if (sched::uses_any(arg, inner))
        return make_error(
            "replace_with_extern: scalar argument {} of block '{}' ({}) uses a variable bound "
            "inside the block",
            i, b->name, to_string(arg));
      args.push_back(arg);
    }
  } else {
    for (const ForNode* loop : sched::loops_in(b->body)) {
      if (sched::uses_any(loop->extent, inner))
        return make_error(
            "replace_with_extern: the extent {} of loop '{}' in block '{}' uses a variable "
            "bound inside the block; pass the scalar arguments",
            to_string(loop->extent), loop->var.as<VarNode>()->name, b->name);
      args.push_back(loop->extent);
    }
  }

  Expr call = CallNode::make(DataType::scalar(DType::i32), function_name, std::move(args),
                             CallNode::CallKind::kExtern);
  Stmt now = BlockNode::make(b->name, b->reads, b->writes, EvaluateNode::make(call), b->attrs);
  sched::BlockRemap remap;
  sched::record(remap, stmt, now);
  commit(sched::replace(func_.body, stmt.get(), now, remap), remap);
  return Status::success();
}

}  // namespace uma::tir
