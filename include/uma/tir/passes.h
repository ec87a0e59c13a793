// The core loop-IR passes, one per file in src/tir/passes/ (file name = pass name, with '_'
// for '-'); what each assumes and guarantees is in the comment at the top of its file.
// core_tir_pipeline() (uma/tir/phases.h) lists them by phase; the machinery that runs them
// is uma/tir/pass.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "uma/tir/pass.h"

namespace uma::tir {

// simplify: tir::simplify over the body (uma/tir/simplify.h).
FuncPass simplify_pass();

// decompose-reductions: the init of every block that still has one becomes a block of its
// own before the block's outermost reduce loop (Schedule::decompose_reduction), after the
// pointwise block right after it that reads its result (its epilogue) moved under its
// innermost spatial loop (Schedule::reverse_compute_at) where supported; then every block
// drops its iteration variables.
FuncPass decompose_reductions_pass();

// compact-buffers: an allocation whose accesses lie in one loop, each iteration touching
// its own box of constant size, moves into the loop and shrinks to the box ("local" when
// small): a reduction's accumulator becomes acc[1] or a register tile.
FuncPass compact_buffers_pass();

// parallelize-blocks: each block's outer loop parallel where its iterations are independent
// and the block stores at least `min_work` elements (every store counted as often as its
// loops repeat it; a loop of unknown extent counts as large).
FuncPass parallelize_blocks_pass(std::int64_t min_work = 0);

// flatten-buffers: every buffer becomes one-dimensional and dense (same name, dtype, scope
// and data variable), and every access takes one flat index from the shape or the strides.
FuncPass flatten_buffers_pass();

struct VectorizeOptions {
  // A vectorized loop of a larger extent stays a loop (serial, with a reason): the C code
  // of a vector expression holds arrays of this many lanes.
  std::int64_t max_lanes = 64;
};
// hoist-padding-guards: in a loop whose every store accumulates a term that a guard zeroes
// (a padded input read through select(in_bounds, x, 0)), the guard's conjuncts that only
// outer loops decide become an `if` around the loop's body, out of the hot loop.
FuncPass hoist_padding_guards_pass();

// vectorize: loops marked vectorized become vector stores of ramps and broadcasts; a loop
// whose body cannot be (an inner loop, an `if`, ...) becomes serial, and the reason joins
// the function's attribute `vectorize_fallback`.
FuncPass vectorize_pass(VectorizeOptions options = {});

struct UnrollOptions {
  // Serial loops of a constant extent up to this are unrolled too (0: none).
  std::int64_t auto_max_extent = 0;
  // Loops marked unrolled of a larger extent are left to the C compiler (which the code
  // generator tells to unroll them), so that the IR stays small.
  std::int64_t max_extent = 1024;
};
// unroll: loops marked unrolled (and small serial loops, when asked) become a sequence of
// copies of their body, one per iteration.
FuncPass unroll_pass(UnrollOptions options = {});

// remove-no-op: statements that do nothing go: loops of no iterations or with nothing to
// do, stores of a value to where it was loaded from, empty sequences and blocks, `if`s
// with a constant condition or empty branches, and allocations nothing reads.
FuncPass remove_no_op_pass();

// pipeline-dma: double buffering of the tiles of a layer moved into an accelerator's
// memories (uma/tiling/lower_tiled.h): the move of the next tile overlaps this tile's compute.
FuncPass pipeline_dma_pass();

// storage-rewrite: allocations of one scope and dtype whose lifetimes do not overlap share
// one allocation.
FuncPass storage_rewrite_pass();

// lift-allocations: the global allocations around a function's whole body of at least
// `min_bytes` become parameters after the outputs (workspace the caller provides).
FuncPass lift_allocations_pass(std::int64_t min_bytes);
// The indices of the workspace parameters lift-allocations made (attribute "workspace").
std::vector<std::size_t> workspace_params(const PrimFunc& func);

// Registers the passes above under their names, with their options (vectorize{max-lanes=N},
// unroll{auto-max-extent=N max-extent=N}, lift-allocations{min-bytes=N}).
void register_core_passes(FuncPassRegistry& registry);

}  // namespace uma::tir
