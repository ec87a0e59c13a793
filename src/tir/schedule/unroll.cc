// unroll: a loop of constant extent that the code generator (or the unroll pass) repeats
// in full.
#include "schedule_util.h"
#include "uma/tir/printer.h"

namespace uma::tir {

Status Schedule::unroll(const LoopRef& loop) {
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "unroll"));
  const auto* op = path.back().as<ForNode>();
  if (!as_const_int(op->extent))
    return make_error("unroll: loop '{}' has extent {}, not a constant",
                      op->var.as<VarNode>()->name, to_string(op->extent));
  return set_loop_kind(loop, ForKind::kUnrolled, "unroll");
}

}  // namespace uma::tir
