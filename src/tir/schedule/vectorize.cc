// vectorize: a loop of constant extent whose iterations are independent, for the C
// compiler to turn into vector instructions.
#include "schedule_util.h"
#include "uma/tir/printer.h"

namespace uma::tir {

Status Schedule::vectorize(const LoopRef& loop) {
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "vectorize"));
  const auto* op = path.back().as<ForNode>();
  const std::string& name = op->var.as<VarNode>()->name;
  if (!as_const_int(op->extent))
    return make_error("vectorize: loop '{}' has extent {}, not a constant", name,
                      to_string(op->extent));
  if (auto buffer = sched::reduction_store(*op))
    return make_error(
        "vectorize: loop '{}' carries a reduction: it stores to %{} at indices that do not use "
        "it",
        name, *buffer);
  return set_loop_kind(loop, ForKind::kVectorized, "vectorize");
}

}  // namespace uma::tir
