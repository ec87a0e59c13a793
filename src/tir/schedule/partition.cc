// partition: a loop becomes two loops one after the other, the main part and the tail, each
// with its own copy of the body, where the `if`s that the part's range decides are gone
// (how the guarded tail of a split leaves the hot loop).
#include "schedule_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tir {

namespace {

// A copy of a statement that can sit beside it: the variables of the loops and lets in it
// are new (of the same names), and so are the buffers it allocates; the variables in
// `renamed` become the given expressions. Every new name is made before the copy, so that
// a block's bindings and init, which come before its loops, use the new loops' variables.
class FreshCopy final : public Mutator {
 public:
  FreshCopy(const Stmt& s, std::unordered_map<const VarNode*, Expr> renamed)
      : vars_(std::move(renamed)) {
    std::vector<const AllocateNode*> allocations;
    pre_order_visit(s, [&](const ExprNode* e, const StmtNode* st) {
      if (st != nullptr && st->kind == StmtKind::For) fresh(static_cast<const ForNode*>(st)->var);
      if (st != nullptr && st->kind == StmtKind::LetStmt)
        fresh(static_cast<const LetStmtNode*>(st)->var);
      if (e != nullptr && e->kind == ExprKind::Let) fresh(static_cast<const LetNode*>(e)->var);
      if (st != nullptr && st->kind == StmtKind::Allocate)
        allocations.push_back(static_cast<const AllocateNode*>(st));
    });
    for (const AllocateNode* alloc : allocations) {
      const Buffer& old = alloc->buffer;
      std::vector<Expr> shape, strides;
      for (const Expr& dim : old->shape) shape.push_back(substitute(dim, vars_));
      for (const Expr& stride : old->strides) strides.push_back(substitute(stride, vars_));
      buffers_[old.get()] = make_buffer(old->name, old->dtype, shape, old->scope, strides);
    }
  }
  using Mutator::mutate;

 protected:
  Expr mutate(const VarNode& op, const Expr& self) override {
    auto it = vars_.find(&op);
    return it == vars_.end() ? self : it->second;
  }
  Expr mutate(const LetNode& op, const Expr&) override {
    return LetNode::make(mutate(op.var), mutate(op.value), mutate(op.body));
  }
  Stmt mutate(const LetStmtNode& op, const Stmt&) override {
    return LetStmtNode::make(mutate(op.var), mutate(op.value), mutate(op.body));
  }
  Stmt mutate(const ForNode& op, const Stmt&) override {
    return ForNode::make(mutate(op.var), mutate(op.min), mutate(op.extent), op.for_kind,
                         mutate(op.body));
  }
  Buffer mutate_buffer(const Buffer& buffer) override {
    auto it = buffers_.find(buffer.get());
    return it == buffers_.end() ? buffer : it->second;
  }

 private:
  void fresh(const Var& var) {
    const auto* node = var.as<VarNode>();
    if (!vars_.contains(node)) vars_[node] = VarNode::make(node->name, node->type);
  }

  std::unordered_map<const VarNode*, Expr> vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

// Replaces each `if` whose condition the ranges of the loops around it decide by the branch
// taken (when there is one).
class DecideGuards final : public sched::BoundedMutator {
 public:
  using BoundedMutator::BoundedMutator;
  using BoundedMutator::mutate;

 protected:
  Stmt mutate(const IfThenElseNode& op, const Stmt& self) override {
    if (auto truth = as_const_int(simplify(op.condition, known()))) {
      if (*truth != 0) return mutate(op.then_case);
      if (op.else_case.defined()) return mutate(op.else_case);
    }
    return BoundedMutator::mutate(op, self);
  }
};

}  // namespace

Expected<std::array<LoopRef, 2>> Schedule::partition(const LoopRef& loop, const Expr& at) {
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "partition"));
  const auto* op = path.back().as<ForNode>();
  const std::string& name = op->var.as<VarNode>()->name;
  DataType type = op->var.type();
  if (!at.defined()) return make_error("partition: the point of loop '{}' is undefined", name);
  Expr point = at;
  if (auto value = as_const_int(at)) point = IntImmNode::make(type, *value);
  if (point.type() != type)
    return make_error("partition: point {} of loop '{}' is of type {}, not the loop's {}",
                      to_string(at), name, to_string(at.type()), to_string(type));
  if (sched::uses(point, op->var))
    return make_error("partition: point {} of loop '{}' uses the loop's own variable",
                      to_string(at), name);

  // Both parts must run at least once, whatever the loops around take.
  Expr end = op->min + op->extent;
  Bounds known = sched::loop_bounds(path);
  Expr main_extent = simplify(point - op->min, known);
  Expr tail_extent = simplify(end - point, known);
  if (bounds_of(main_extent, known).min < 1 || bounds_of(tail_extent, known).min < 1)
    return make_error("partition: point {} is not shown to lie strictly inside loop '{}' [{}, {})",
                      to_string(at), name, to_string(op->min), to_string(simplify(end, known)));
  if (op->for_kind == ForKind::kVectorized &&
      (!as_const_int(main_extent) || !as_const_int(tail_extent)))
    return make_error(
        "partition: loop '{}' is vectorized and its parts would not have constant extents "
        "({} and {})",
        name, to_string(main_extent), to_string(tail_extent));

  // A loop that its block's iteration variables are bound to takes the block with it: the
  // block is copied too, each copy bound to its own part.
  const VarNode* var = op->var.as<VarNode>();
  const BlockNode* block = nullptr;
  std::size_t block_at = 0;
  for (std::size_t d = path.size() - 1; d-- > 0;) {
    if ((block = path[d].as<BlockNode>()) != nullptr) {
      block_at = d;
      break;
    }
  }
  bool spatial = false, reduce = false;
  if (block != nullptr) {
    for (const IterVar& iv : block->iter_vars)
      if (sched::uses(iv.binding, op->var))
        (iv.kind == IterKind::kReduce ? reduce : spatial) = true;
    if ((spatial || reduce) && block_at + 2 != path.size())
      return make_error(
          "partition: loop '{}' is bound to an iteration variable of block '{}' but is not the "
          "block's whole body; reorder it outermost first",
          name, block->name);
    if (spatial && reduce)
      return make_error(
          "partition: loop '{}' is bound to both spatial and reduce iteration variables of block "
          "'{}'",
          name, block->name);
  }

  Var main = VarNode::make(name + "_main", type), tail = VarNode::make(name + "_tail", type);
  sched::BlockRemap remap, copies;
  // The tail is a fresh copy of the loop (or of its block) running from `at`.
  Stmt tail_loop = ForNode::make(op->var, point, tail_extent, op->for_kind, op->body);
  Stmt main_loop = ForNode::make(main, op->min, main_extent, op->for_kind,
                                 sched::substitute(op->body, {{var, main}}, remap));
  const StmtNode* replaced = op;
  if (spatial || reduce) {
    std::vector<IterVar> iters = block->iter_vars;
    for (IterVar& iv : iters) iv.binding = substitute(iv.binding, {{var, main}});
    main_loop = BlockNode::make(block->name, block->reads, block->writes, main_loop, block->attrs,
                                std::move(iters), substitute(block->init, {{var, main}}));
    sched::record(remap, path[block_at], main_loop);
    // The init runs before the first reduce iteration, which is in the main part.
    tail_loop = BlockNode::make(block->name, block->reads, block->writes, tail_loop, block->attrs,
                                block->iter_vars, reduce ? Stmt() : block->init);
    replaced = block;
  }
  tail_loop = FreshCopy(tail_loop, {{var, tail}}).mutate(tail_loop);
  main_loop = DecideGuards(remap, known).mutate(main_loop);
  // The tail's blocks are new: no ticket follows them.
  tail_loop = DecideGuards(copies, known).mutate(tail_loop);
  commit(sched::replace(func_.body, replaced, SeqNode::make({main_loop, tail_loop}), remap), remap);
  return std::array<LoopRef, 2>{LoopRef{main}, LoopRef{tail}};
}

}  // namespace uma::tir
