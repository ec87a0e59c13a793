// decompose_reduction: a reduction block's init becomes a block of its own, placed before
// the loop where the reduction starts, so that the update block is a plain loop nest.
#include <algorithm>

#include "schedule_util.h"

namespace uma::tir {

namespace {

// The loop variables the block's iteration variables of `kind` are bound to.
std::unordered_set<const VarNode*> bound_vars(const BlockNode& block, IterKind kind) {
  std::unordered_set<const VarNode*> vars;
  for (const IterVar& iv : block.iter_vars) {
    if (iv.kind != kind) continue;
    pre_order_visit(EvaluateNode::make(iv.binding), [&](const ExprNode* e, const StmtNode*) {
      if (e != nullptr && e->kind == ExprKind::Var) vars.insert(static_cast<const VarNode*>(e));
    });
  }
  return vars;
}

}  // namespace

Expected<BlockRef> Schedule::decompose_reduction(const BlockRef& block, const LoopRef& loop) {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "decompose_reduction"));
  const auto* b = stmt.as<BlockNode>();
  if (!b->init.defined()) return make_error("decompose_reduction: block '{}' has no init", b->name);
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "decompose_reduction"));
  const auto* target = path.back().as<ForNode>();
  const std::string& name = target->var.as<VarNode>()->name;
  auto at = std::find_if(path.begin(), path.end(), [&](const Stmt& s) { return s.same_as(stmt); });
  bool own = at != path.end() && std::none_of(at + 1, path.end() - 1, [](const Stmt& s) {
               return s.kind() == StmtKind::Block;
             });
  if (!own)
    return make_error("decompose_reduction: loop '{}' is not a loop of block '{}'", name, b->name);

  std::unordered_set<const VarNode*> spatial = bound_vars(*b, IterKind::kSpatial);
  std::unordered_set<const VarNode*> reduce = bound_vars(*b, IterKind::kReduce);
  for (auto it = at + 1; it + 1 != path.end(); ++it) {
    const auto* outer = it->as<ForNode>();
    if (outer != nullptr && reduce.contains(outer->var.as<VarNode>()))
      return make_error(
          "decompose_reduction: loop '{}' of a reduce iteration variable encloses "
          "loop '{}'",
          outer->var.as<VarNode>()->name, name);
  }
  // The perfect nest from `loop` in: its spatial loops are copied around the init.
  std::vector<const ForNode*> nest;
  for (const auto* op = path.back().as<ForNode>(); op != nullptr; op = op->body.as<ForNode>())
    nest.push_back(op);
  for (const ForNode* op : sched::loops_in(path.back())) {
    const auto* var = op->var.as<VarNode>();
    if (spatial.contains(var) && reduce.contains(var))
      return make_error(
          "decompose_reduction: loop '{}' is bound to a spatial and a reduce iteration variable",
          var->name);
    if (spatial.contains(var) && std::find(nest.begin(), nest.end(), op) == nest.end())
      return make_error(
          "decompose_reduction: spatial loop '{}' is not in the perfect nest of loop '{}'",
          var->name, name);
  }
  std::unordered_map<const VarNode*, Expr> copies;
  std::vector<const ForNode*> copied;
  for (const ForNode* op : nest) {
    const auto* var = op->var.as<VarNode>();
    if (!spatial.contains(var)) continue;
    copies.emplace(var, VarNode::make(var->name + "_init", op->var.type()));
    copied.push_back(op);
  }
  Stmt init = substitute(b->init, copies);
  for (std::size_t d = copied.size(); d-- > 0;) {
    const ForNode* op = copied[d];
    init = ForNode::make(copies.at(op->var.as<VarNode>()), substitute(op->min, copies),
                         substitute(op->extent, copies), op->for_kind, init);
  }
  std::vector<IterVar> iters;
  for (IterVar iv : b->iter_vars) {
    if (iv.kind != IterKind::kSpatial) continue;
    iv.binding = substitute(iv.binding, copies);
    iters.push_back(std::move(iv));
  }
  Stmt init_block = BlockNode::make(
      b->name + "_init", sched::accessed_buffers(init, /*loads=*/true, /*stores=*/false),
      sched::accessed_buffers(init, /*loads=*/false, /*stores=*/true), init, {}, std::move(iters));

  sched::BlockRemap remap;
  Stmt body = sched::replace(b->body, target, SeqNode::make({init_block, path.back()}), remap);
  Stmt update = BlockNode::make(b->name, b->reads, b->writes, body, b->attrs, b->iter_vars);
  sched::record(remap, stmt, update);
  commit(sched::replace(func_.body, b, update, remap), remap);
  return track(init_block);
}

}  // namespace uma::tir
