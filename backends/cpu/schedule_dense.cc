// The host's schedule of a matrix product whose right operand is contiguous along the
// result's columns: nn.dense_packed's block `dense` (its weight (N / b, K, b), packed by
// pack-weights) and nn.matmul's block `matmul` with a 2-D right operand (K, N). The register
// tile of the convolutions (schedule_conv2d.cc), with rows for pixels:
//   for (row tile, column group) in parallel:
//     acc[rows][vectors][b] = 0
//     for k:                                 // the reduction, outside the tile
//       for row < rows, vector < vectors:    // unrolled
//         acc[row][vector] += a[row, k] * w[group, vector][k]   (a broadcast, a vector load)
//     epilogue (bias, activation) on the tile, stored to the result
// One row (a dense layer on one sample) is a GEMV: a tile of vectors of one row, streaming
// the weight once.
#include "cpu.h"
#include "schedule_util.h"
#include "uma/tir/phases.h"

namespace uma::backends {

using tir::BlockRef;
using tir::LoopRef;
using tir::Schedule;

Status schedule_dense(Schedule& s, const BlockRef& product, const Target& target) {
  UMA_TRY_ASSIGN(tir::Stmt stmt, s.block_stmt(product, "schedule_dense"));
  const auto& block = *stmt.as<tir::BlockNode>();
  if (block.reads.size() < 2 || block.writes.size() != 1 || block.writes[0]->dtype != DType::f32)
    return Status::success();
  UMA_TRY_ASSIGN(std::string name, s.block_name(product));
  const tir::Buffer& right = block.reads[1];
  std::optional<std::int64_t> lanes;
  if (name == "dense" && right->shape.size() == 3) {
    lanes = tir::as_const_int(right->shape[2]);
  } else if (name == "matmul" && right->shape.size() == 2) {
    UMA_TRY_ASSIGN(std::int64_t cpu_lanes, vector_lanes(target));
    if (auto columns = tir::as_const_int(right->shape[1]))
      if (std::int64_t block_lanes = channel_block(*columns, cpu_lanes)) lanes = block_lanes;
  }
  if (!lanes) return Status::success();

  // What follows the reduction: lowering's epilogue, or a copy out of the tile's own
  // accumulator.
  Expected<BlockRef> epilogue = s.get_block(name + "_epilogue");
  if (!epilogue.ok()) epilogue = s.cache_write(product, block.writes[0], "local");
  if (!epilogue.ok()) return Status::success();

  // Lowering's loops: the result's dimensions, then k.
  UMA_TRY_ASSIGN(std::vector<LoopRef> loops, s.get_loops(product));
  UMA_TRY_ASSIGN(stmt, s.block_stmt(product, "schedule_dense"));
  if (loops.size() < 2) return Status::success();
  const LoopRef k = loops.back(), columns = loops[loops.size() - 2];
  std::optional<LoopRef> rows;
  if (loops.size() >= 3) rows = loops[loops.size() - 3];
  auto n = extent_of(stmt, columns);
  if (!n || *n % *lanes != 0) return Status::success();
  std::int64_t row_count = 1;
  if (rows) row_count = extent_of(stmt, *rows).value_or(0);
  if (row_count < 1) return Status::success();

  // The tile: a few vectors of columns, as many rows as the registers allow beside them.
  const std::int64_t registers = vector_registers(*lanes);
  const std::int64_t vectors = largest_divisor(*n / *lanes, 4);
  const std::int64_t row_tile = largest_divisor(row_count, (registers - vectors - 2) / vectors);

  UMA_TRY_ASSIGN(auto column_split, s.split(columns, *lanes, tir::TailStrategy::kError));
  UMA_TRY_ASSIGN(auto column_groups, s.split(column_split[0], vectors, tir::TailStrategy::kError));
  auto [group, vector] = column_groups;
  const LoopRef lane = column_split[1];
  std::optional<LoopRef> row_block, row;
  if (rows) {
    UMA_TRY_ASSIGN(auto row_split, s.split(*rows, row_tile, tir::TailStrategy::kError));
    row_block = row_split[0], row = row_split[1];
    UMA_TRY(s.reorder({*row_block, group, k, *row, vector, lane}));
  } else {
    UMA_TRY(s.reorder({group, k, vector, lane}));
  }

  // The epilogue on the finished tile: its rows unrolled, its columns whole vectors.
  UMA_TRY(s.reverse_compute_at(*epilogue, group));
  UMA_TRY_ASSIGN(std::vector<LoopRef> epi, s.get_loops(*epilogue));
  if (!epi.empty()) {
    UMA_TRY_ASSIGN(auto ec, s.split(epi.back(), *lanes, tir::TailStrategy::kError));
    UMA_TRY(s.vectorize(ec[1]));
    UMA_TRY(s.unroll(ec[0]));
    if (rows && epi.size() >= 2) UMA_TRY(s.unroll(epi[epi.size() - 2]));
  }
  UMA_TRY_ASSIGN(BlockRef init, s.decompose_reduction(product, k));
  UMA_TRY(s.vectorize(lane));
  UMA_TRY(s.unroll(vector));
  if (row) UMA_TRY(s.unroll(*row));
  UMA_TRY_ASSIGN(std::vector<LoopRef> init_loops, s.get_loops(init));
  UMA_TRY(s.vectorize(init_loops.back()));
  for (std::size_t i = init_loops.size() - (rows ? 3 : 2); i + 1 < init_loops.size(); ++i)
    UMA_TRY(s.unroll(init_loops[i]));

  // Threads only when the product is worth starting them for (tir::TirPipelineConfig's
  // threshold, counted in multiply-adds).
  UMA_TRY_ASSIGN(std::int64_t threads, target.get_int("threads"));
  const std::int64_t work = row_count * *n * extent_of(stmt, k).value_or(0);
  if (threads > 1 && work >= tir::TirPipelineConfig{}.min_parallel_work) {
    LoopRef outer = group;
    if (row_block) {
      UMA_TRY_ASSIGN(outer, s.fuse(*row_block, group));
    }
    UMA_TRY(s.parallel(outer));
  }
  return Status::success();
}

}  // namespace uma::backends
