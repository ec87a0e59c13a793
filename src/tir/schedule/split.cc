// split: one loop becomes an outer loop over blocks of `factor` iterations and an inner
// loop within a block; a guard `if` skips the iterations past the extent when the factor
// does not divide it.
#include "schedule_util.h"
#include "uma/tir/printer.h"

namespace uma::tir {

Expected<std::array<LoopRef, 2>> Schedule::split(const LoopRef& loop, std::int64_t factor,
                                                 TailStrategy tail) {
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "split"));
  const auto* op = path.back().as<ForNode>();
  const std::string& name = op->var.as<VarNode>()->name;
  if (factor < 1)
    return make_error("split: the factor of loop '{}' must be positive, got {}", name, factor);

  std::optional<std::int64_t> extent = as_const_int(op->extent);
  bool exact = extent && *extent % factor == 0;
  if (!exact && tail == TailStrategy::kError) {
    if (extent)
      return make_error("split: extent {} of loop '{}' is not a multiple of {}", *extent, name,
                        factor);
    return make_error("split: extent {} of loop '{}' is not a constant multiple of {}",
                      to_string(op->extent), name, factor);
  }

  DataType type = op->var.type();
  Var outer = VarNode::make(name + "_outer", type);
  Var inner = VarNode::make(name + "_inner", type);
  Expr f = IntImmNode::make(type, factor);
  // ceil(extent / factor), written so that no large factor overflows.
  Expr outer_extent = extent ? IntImmNode::make(type, *extent <= 0 ? 0 : (*extent - 1) / factor + 1)
                             : (op->extent + (factor - 1)) / f;

  sched::BlockRemap remap;
  Expr position = outer * f + inner;
  std::unordered_map<const VarNode*, Expr> map{
      {op->var.as<VarNode>(), sched::offset_by(op->min, position)}};
  Stmt body = sched::substitute(op->body, map, remap);
  if (!exact) body = IfThenElseNode::make(position < op->extent, body);
  Stmt now =
      ForNode::make(outer, IntImmNode::make(type, 0), outer_extent, op->for_kind,
                    ForNode::make(inner, IntImmNode::make(type, 0), f, ForKind::kSerial, body));
  commit(sched::replace_loop(func_.body, path, now, map, remap), remap);
  return std::array<LoopRef, 2>{LoopRef{outer}, LoopRef{inner}};
}

}  // namespace uma::tir
