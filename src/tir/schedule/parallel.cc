// parallel: a loop whose iterations run at once on several threads (OpenMP in the C code).
#include "schedule_util.h"

namespace uma::tir {

Status Schedule::parallel(const LoopRef& loop) {
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "parallel"));
  const auto* op = path.back().as<ForNode>();
  if (auto buffer = sched::reduction_store(*op))
    return make_error(
        "parallel: loop '{}' carries a reduction: it stores to %{} at indices that do not use it",
        op->var.as<VarNode>()->name, *buffer);
  return set_loop_kind(loop, ForKind::kParallel, "parallel");
}

}  // namespace uma::tir
