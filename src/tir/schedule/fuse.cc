// fuse: a loop and the loop that is its whole body become one loop over both.
#include "schedule_util.h"

namespace uma::tir {

Expected<LoopRef> Schedule::fuse(const LoopRef& outer, const LoopRef& inner) {
  UMA_TRY_ASSIGN(sched::Path outer_path, sched::find_loop(func_, outer, "fuse"));
  UMA_TRY_ASSIGN(sched::Path inner_path, sched::find_loop(func_, inner, "fuse"));
  const auto* o = outer_path.back().as<ForNode>();
  const auto* i = inner_path.back().as<ForNode>();
  const std::string& o_name = o->var.as<VarNode>()->name;
  const std::string& i_name = i->var.as<VarNode>()->name;
  if (!o->body.same_as(inner_path.back()))
    return make_error("fuse: loop '{}' is not the whole body of loop '{}'", i_name, o_name);
  if (sched::uses(i->min, o->var) || sched::uses(i->extent, o->var))
    return make_error("fuse: the bounds of loop '{}' use loop '{}'", i_name, o_name);
  if (o->for_kind != i->for_kind)
    return make_error("fuse: loops '{}' ({}) and '{}' ({}) are of different kinds", o_name,
                      for_kind_name(o->for_kind), i_name, for_kind_name(i->for_kind));

  DataType type = o->var.type();
  Var fused = VarNode::make(o_name + "_" + i_name + "_fused", type);
  auto o_extent = as_const_int(o->extent), i_extent = as_const_int(i->extent);
  Expr extent = o->extent * i->extent;
  if (o_extent && i_extent) {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(*o_extent, *i_extent, &product))
      return make_error("fuse: the extents of loops '{}' and '{}' multiply past 64 bits", o_name,
                        i_name);
    extent = IntImmNode::make(type, product);
  }
  sched::BlockRemap remap;
  std::unordered_map<const VarNode*, Expr> map{
      {o->var.as<VarNode>(), sched::offset_by(o->min, fused / i->extent)},
      {i->var.as<VarNode>(), sched::offset_by(i->min, fused % i->extent)}};
  Stmt body = sched::substitute(i->body, map, remap);
  Stmt now = ForNode::make(fused, IntImmNode::make(type, 0), extent, o->for_kind, body);
  commit(sched::replace_loop(func_.body, outer_path, now, map, remap), remap);
  return LoopRef{fused};
}

}  // namespace uma::tir
