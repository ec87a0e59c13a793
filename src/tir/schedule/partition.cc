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
// `renamed` become the given expressions.
class FreshCopy final : public Mutator {
 public:
  explicit FreshCopy(std::unordered_map<const VarNode*, Expr> renamed)
      : vars_(std::move(renamed)) {}
  using Mutator::mutate;

 protected:
  Expr mutate(const VarNode& op, const Expr& self) override {
    auto it = vars_.find(&op);
    return it == vars_.end() ? self : it->second;
  }
  Expr mutate(const LetNode& op, const Expr&) override {
    Expr value = mutate(op.value);
    Var var = fresh(op.var);
    return LetNode::make(var, value, mutate(op.body));
  }
  Stmt mutate(const LetStmtNode& op, const Stmt&) override {
    Expr value = mutate(op.value);
    Var var = fresh(op.var);
    return LetStmtNode::make(var, value, mutate(op.body));
  }
  Stmt mutate(const ForNode& op, const Stmt&) override {
    Expr min = mutate(op.min), extent = mutate(op.extent);
    Var var = fresh(op.var);
    return ForNode::make(var, min, extent, op.for_kind, mutate(op.body));
  }
  Stmt mutate(const AllocateNode& op, const Stmt&) override {
    const Buffer& old = op.buffer;
    std::vector<Expr> shape, strides;
    for (const Expr& dim : old->shape) shape.push_back(mutate(dim));
    for (const Expr& stride : old->strides) strides.push_back(mutate(stride));
    Buffer now = make_buffer(old->name, old->dtype, shape, old->scope, strides);
    buffers_[old.get()] = now;
    return AllocateNode::make(now, mutate(op.body));
  }
  Buffer mutate_buffer(const Buffer& buffer) override {
    auto it = buffers_.find(buffer.get());
    return it == buffers_.end() ? buffer : it->second;
  }

 private:
  Var fresh(const Var& var) {
    const auto* node = var.as<VarNode>();
    Var now = VarNode::make(node->name, node->type);
    vars_[node] = now;
    return now;
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
  Bounds around = sched::loop_bounds(path);
  Expr main_extent = simplify(point - op->min, around);
  Expr tail_extent = simplify(end - point, around);
  if (bounds_of(main_extent, around).min < 1 || bounds_of(tail_extent, around).min < 1)
    return make_error("partition: point {} is not shown to lie strictly inside loop '{}' [{}, {})",
                      to_string(at), name, to_string(op->min), to_string(simplify(end, around)));
  if (op->for_kind == ForKind::kVectorized &&
      (!as_const_int(main_extent) || !as_const_int(tail_extent)))
    return make_error(
        "partition: loop '{}' is vectorized and its parts would not have constant extents "
        "({} and {})",
        name, to_string(main_extent), to_string(tail_extent));

  Var main = VarNode::make(name + "_main", type), tail = VarNode::make(name + "_tail", type);
  const auto* var = op->var.as<VarNode>();
  sched::BlockRemap remap, copies;
  Stmt main_loop = ForNode::make(main, op->min, main_extent, op->for_kind,
                                 sched::substitute(op->body, {{var, main}}, remap));
  main_loop = DecideGuards(remap, around).mutate(main_loop);
  // The tail's blocks are new: no ticket follows them.
  Stmt tail_loop = ForNode::make(tail, point, tail_extent, op->for_kind,
                                 FreshCopy({{var, tail}}).mutate(op->body));
  tail_loop = DecideGuards(copies, around).mutate(tail_loop);
  commit(sched::replace(func_.body, op, SeqNode::make({main_loop, tail_loop}), remap), remap);
  return std::array<LoopRef, 2>{LoopRef{main}, LoopRef{tail}};
}

}  // namespace uma::tir
