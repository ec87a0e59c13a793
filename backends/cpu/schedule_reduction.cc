// The host's schedule of a sum along contiguous elements (softmax's sum of exponentials, the
// mean and variance of layer and instance norms): vector partial sums. The innermost
// reduce loop, over elements next to each other in memory, is split by a vector of L lanes
// and factored (rfactor) into L partial sums that one vector add updates per step; the
// partials are added up once per output point:
//   for each output point o:
//     partial[o][0:L] = 0
//     for k_outer: partial[o][0:L] += value(o, k_outer * L + 0:L)    // one vector add
//     out[o] = partial[o][0] + ... + partial[o][L - 1]
// Reassociating the sum is the one liberty taken; the tests bound it. L is the CPU's lanes,
// or the largest power of two below that divides the extent (down to 4); an extent none
// of them divides keeps lowering's scalar loop.
#include "cpu.h"
#include "schedule_util.h"
#include "uma/tir/schedule.h"

namespace uma::backends {

Status schedule_reduction(tir::Schedule& s, const tir::BlockRef& sum, const Target& target) {
  UMA_TRY_ASSIGN(tir::Stmt stmt, s.block_stmt(sum, "schedule_reduction"));
  const auto& block = *stmt.as<tir::BlockNode>();
  if (block.writes.size() != 1 || block.writes[0]->dtype != DType::f32) return Status::success();
  UMA_TRY_ASSIGN(std::vector<tir::LoopRef> loops, s.get_loops(sum));
  if (loops.empty()) return Status::success();
  // The innermost loop must be the last reduce iteration variable's, alone in its binding:
  // the reduction's innermost axis, the last of the data, so its elements are contiguous.
  const tir::LoopRef& inner = loops.back();
  const tir::IterVar* last_reduce = nullptr;
  for (const tir::IterVar& iv : block.iter_vars)
    if (iv.kind == tir::IterKind::kReduce) last_reduce = &iv;
  if (last_reduce == nullptr ||
      last_reduce->binding.as<tir::VarNode>() != inner.var.as<tir::VarNode>())
    return Status::success();
  std::optional<std::int64_t> extent = extent_of(stmt, inner);
  UMA_TRY_ASSIGN(std::int64_t lanes, vector_lanes(target));
  std::int64_t partials = lanes;
  while (extent && partials >= 4 && *extent % partials != 0) partials /= 2;
  if (!extent || partials < 4 || *extent < partials) return Status::success();

  UMA_TRY_ASSIGN(auto split, s.split(inner, partials, tir::TailStrategy::kError));
  UMA_TRY_ASSIGN(tir::BlockRef rf, s.rfactor(sum, split[1]));
  UMA_TRY_ASSIGN(std::vector<tir::LoopRef> rf_loops, s.get_loops(rf));
  UMA_TRY(s.vectorize(rf_loops.back()));
  return Status::success();
}

}  // namespace uma::backends
