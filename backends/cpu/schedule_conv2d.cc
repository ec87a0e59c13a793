// The host's schedule of a 2-D convolution whose weight pack-weights packed (block
// conv2d_nchw reading a (O / b, C, kh, kw, b) weight): the register tile of perf-plan.md in
// NCHW. Each tile is RW output pixels of one row times `ocb` vectors of b output channels:
//   for n, (output channel group, row) in parallel, pixel tile:
//     acc[RW][ocb][b] = 0
//     for rc, rh, rw:                       // the reduction, outside the tile
//       for pixel < RW, vector < ocb:       // unrolled: RW * ocb FMAs of whole vectors
//         acc[pixel][vector] += x[rc, row + rh, pixel + rw] * w[group, vector][rc, rh, rw]
//     epilogue (bias, activation, residual) on the tile, stored to the output
// The accumulators stay in registers (an array of GCC vectors, see docs/c-codegen.md); the
// input element is a broadcast, the weights one vector load. Knobs come from the CPU's
// lanes and the shapes, never from a model.
#include <algorithm>
#include <optional>

#include "cpu.h"
#include "schedule_util.h"
#include "uma/tir/schedule.h"

namespace uma::backends {
using tir::BlockRef;
using tir::LoopRef;
using tir::Schedule;

Status schedule_conv2d(Schedule& s, const BlockRef& conv, const Target& target) {
  UMA_TRY_ASSIGN(tir::Stmt stmt, s.block_stmt(conv, "schedule_conv2d"));
  const auto& block = *stmt.as<tir::BlockNode>();
  // Only the packed forms, writing one buffer.
  if (block.reads.size() < 2 || block.reads[1]->shape.size() != 5 || block.writes.size() != 1)
    return Status::success();
  const tir::Buffer& weight = block.reads[1];
  auto lanes = tir::as_const_int(weight->shape[4]);
  if (!lanes || block.writes[0]->dtype != DType::f32) return Status::success();

  // Lowering's loops by name (cache_write below rebuilds them). A blocked result (NCHW<b>c)
  // has its b channels as the innermost loop `cl` already.
  std::optional<LoopRef> c, h, w, cl, rc, rh, rw;
  auto find_loops = [&]() -> Status {
    UMA_TRY_ASSIGN(std::vector<LoopRef> loops, s.get_loops(conv));
    c = named(loops, "c"), h = named(loops, "h"), w = named(loops, "w"), cl = named(loops, "cl");
    rc = named(loops, "rc"), rh = named(loops, "rh"), rw = named(loops, "rw");
    return Status::success();
  };
  UMA_TRY(find_loops());
  if (!c || !h || !w || !rc || !rh || !rw) return Status::success();
  const bool blocked = cl.has_value();
  auto channels = extent_of(stmt, *c), width = extent_of(stmt, *w);
  if (!channels || !width || (!blocked && *channels % *lanes != 0)) return Status::success();

  // What follows the reduction on each element: lowering's epilogue (bias, activation,
  // residual), or a copy out of an accumulator of the tile's own when the convolution
  // writes its output directly.
  UMA_TRY_ASSIGN(std::string name, s.block_name(conv));
  Expected<BlockRef> epilogue = s.get_block(name + "_epilogue");
  if (!epilogue.ok()) epilogue = s.cache_write(conv, block.writes[0], "local");
  if (!epilogue.ok()) return Status::success();
  UMA_TRY(find_loops());

  // The tile: as many accumulators as the vector registers allow, less the weights' and
  // the broadcast input's (32 registers with AVX-512, 16 below).
  const std::int64_t registers = vector_registers(*lanes);
  const std::int64_t vectors = blocked ? *channels : *channels / *lanes;
  const std::int64_t ocb = vectors % 2 == 0 ? 2 : 1;
  const std::int64_t rw_tile = largest_divisor(*width, (registers - ocb - 2) / ocb);

  LoopRef vector_blocks = *c, lane;
  if (blocked) {
    lane = *cl;
  } else {
    UMA_TRY_ASSIGN(auto c_split, s.split(*c, *lanes, tir::TailStrategy::kError));
    vector_blocks = c_split[0], lane = c_split[1];
  }
  UMA_TRY_ASSIGN(auto c_groups, s.split(vector_blocks, ocb, tir::TailStrategy::kError));
  UMA_TRY_ASSIGN(auto w_split, s.split(*w, rw_tile, tir::TailStrategy::kError));
  auto [group, vector] = c_groups;
  auto [pixels, pixel] = w_split;
  UMA_TRY(s.reorder({group, *h, pixels, *rc, *rh, *rw, pixel, vector, lane}));

  // The epilogue on the finished tile, over its channels as whole vectors. It writes the
  // result blocked (n, c, h, w, cl) or, when the function ends in a layout_transform back,
  // NCHW (n, c, h, w).
  UMA_TRY(s.reverse_compute_at(*epilogue, pixels));
  UMA_TRY_ASSIGN(tir::Stmt epi_stmt, s.block_stmt(*epilogue, "schedule_conv2d"));
  const std::size_t own_loops = epi_stmt.as<tir::BlockNode>()->writes[0]->shape.size();
  UMA_TRY_ASSIGN(std::vector<LoopRef> epi, s.get_loops(*epilogue));
  if (epi.size() >= own_loops) {
    std::size_t own = epi.size() - own_loops;
    if (own_loops == 5) {
      UMA_TRY(s.vectorize(epi[own + 4]));
      // Unrolled, so that every access to the accumulator is at a constant offset.
      UMA_TRY(s.unroll(epi[own + 3]));
      UMA_TRY(s.unroll(epi[own + 1]));
    } else {
      UMA_TRY_ASSIGN(auto ec, s.split(epi[own + 1], *lanes, tir::TailStrategy::kError));
      UMA_TRY(s.reorder({epi[own + 2], epi[own + 3], ec[0], ec[1]}));
      UMA_TRY(s.vectorize(ec[1]));
      UMA_TRY(s.unroll(epi[own + 3]));
      UMA_TRY(s.unroll(ec[0]));
    }
  }
  if (!blocked) {
    // The accumulator with the channels innermost, so that the tile of it that
    // compact-buffers leaves is whole vectors: registers.
    UMA_TRY_ASSIGN(stmt, s.block_stmt(conv, "schedule_conv2d"));
    const tir::Buffer& acc = stmt.as<tir::BlockNode>()->writes[0];
    tir::Var an = tir::VarNode::make("n"), ac = tir::VarNode::make("c"),
             ah = tir::VarNode::make("h"), aw = tir::VarNode::make("w");
    UMA_TRY_ASSIGN(tir::Buffer relaid,
                   s.transform_layout(acc, {{an, ac, ah, aw}, {an, ah, aw, ac}}));
    (void)relaid;
  }
  UMA_TRY_ASSIGN(BlockRef init, s.decompose_reduction(conv, *rc));
  UMA_TRY(s.vectorize(lane));
  UMA_TRY(s.unroll(pixel));
  UMA_TRY(s.unroll(vector));
  UMA_TRY_ASSIGN(std::vector<LoopRef> init_loops, s.get_loops(init));
  UMA_TRY(s.vectorize(init_loops.back()));
  for (std::size_t k = init_loops.size() - 3; k + 1 < init_loops.size(); ++k)
    UMA_TRY(s.unroll(init_loops[k]));  // the tile's pixels and vectors

  UMA_TRY_ASSIGN(std::int64_t threads, target.get_int("threads"));
  if (threads > 1) {
    UMA_TRY_ASSIGN(LoopRef rows, s.fuse(group, *h));
    UMA_TRY(s.parallel(rows));
  }
  return Status::success();
}

}  // namespace uma::backends
