// tile: two nested loops split into outer loops over tiles and inner loops within a tile.
#include <algorithm>

#include "schedule_util.h"

namespace uma::tir {

Expected<std::array<LoopRef, 4>> Schedule::tile(const LoopRef& x, const LoopRef& y, std::int64_t fx,
                                                std::int64_t fy, TailStrategy tail) {
  UMA_TRY_ASSIGN(sched::Path x_path, sched::find_loop(func_, x, "tile"));
  UMA_TRY_ASSIGN(sched::Path y_path, sched::find_loop(func_, y, "tile"));
  if (std::find_if(y_path.begin(), y_path.end() - 1,
                   [&](const Stmt& s) { return s.same_as(x_path.back()); }) == y_path.end() - 1)
    return make_error("tile: loop '{}' is not inside loop '{}'", y.var.as<VarNode>()->name,
                      x.var.as<VarNode>()->name);

  // Three primitives; when a later one fails, the schedule goes back to how it was.
  Schedule before = *this;
  auto fail = [&](const Error& error) {
    *this = std::move(before);
    return Error(error.message()).with_context("tile");
  };
  auto x_loops = split(x, fx, tail);
  if (!x_loops.ok()) return fail(x_loops.error());
  auto y_loops = split(y, fy, tail);
  if (!y_loops.ok()) return fail(y_loops.error());
  auto [x_outer, x_inner] = *x_loops;
  auto [y_outer, y_inner] = *y_loops;
  if (Status status = reorder({x_outer, y_outer, x_inner, y_inner}); !status.ok())
    return fail(status.error());
  return std::array<LoopRef, 4>{x_outer, y_outer, x_inner, y_inner};
}

}  // namespace uma::tir
