// The host's schedule of a pool over blocked data (NCHW<b>c, as layout-nchwc writes it: a
// 3-D pool over (H, W, b) whose window along b is one element). Each output pixel's b
// channels are one vector: the window's taps loop outside it, so every tap is one vector
// load and one vector max or add into the accumulator, which stays in registers.
#include "cpu.h"
#include "uma/tir/schedule.h"

namespace uma::backends {

Status schedule_pool(tir::Schedule& s, const tir::BlockRef& pool, const Target&) {
  UMA_TRY_ASSIGN(tir::Stmt stmt, s.block_stmt(pool, "schedule_pool"));
  const auto& block = *stmt.as<tir::BlockNode>();
  if (block.writes.size() != 1 || block.writes[0]->shape.size() != 5 ||
      !block.attrs.has("pool_size"))
    return Status::success();
  const std::vector<std::int64_t>& window = block.attrs.get_ints("pool_size");
  const std::vector<std::int64_t>& strides = block.attrs.get_ints("strides");
  if (window.size() != 3 || window[2] != 1 || strides[2] != 1) return Status::success();

  // Lowering's loops: n, c, d, h, w (w: the block of channels), then the reductions.
  UMA_TRY_ASSIGN(std::vector<tir::LoopRef> loops, s.get_loops(pool));
  if (loops.size() < 6) return Status::success();
  const tir::LoopRef lanes = loops[4];
  std::vector<tir::LoopRef> taps(loops.begin() + 5, loops.end());
  std::vector<tir::LoopRef> order = taps;
  order.push_back(lanes);
  UMA_TRY(s.reorder(order));
  UMA_TRY_ASSIGN(tir::BlockRef init, s.decompose_reduction(pool, taps.front()));
  UMA_TRY(s.vectorize(lanes));
  UMA_TRY_ASSIGN(std::vector<tir::LoopRef> init_loops, s.get_loops(init));
  return s.vectorize(init_loops.back());
}

}  // namespace uma::backends
