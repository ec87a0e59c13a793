// The loop-IR pipeline: the core passes of TIR_PHASE_0..3, in order (uma/tir/phases.h).
#include "uma/tir/phases.h"

#include "uma/tir/passes.h"

namespace uma::tir {

TirPipeline core_tir_pipeline(const TirPipelineConfig& config) {
  TirPipeline pipeline;
  // TIR_PHASE_0: the blocked loop nests lowering made, left as they are for backends to
  // schedule and tensorize.
  pipeline[0] = {};
  // TIR_PHASE_1: reductions' inits decomposed (what backends left of them) and buffers
  // compacted into the loops that use them, then buffers flattened and indices simplified.
  // Loops are parallelized first, while buffers still have their dimensions.
  pipeline[1].push_back(decompose_reductions_pass());
  pipeline[1].push_back(compact_buffers_pass());
  // Epilogues that decompose-reductions moved into a reduction's loops run in loops of one
  // iteration over the point; simplify substitutes those away so that parallelize-blocks sees
  // each store indexed by the loop variable itself.
  if (config.parallel) {
    pipeline[1].push_back(simplify_pass());
    pipeline[1].push_back(parallelize_blocks_pass(config.min_parallel_work));
  }
  pipeline[1].push_back(flatten_buffers_pass());
  pipeline[1].push_back(simplify_pass());
  // TIR_PHASE_2: loop transforms. Padding guards leave the hot loops first, while loops
  // are still loops; the copies unroll makes are simplified before storage is planned, so
  // that it sees the accesses as they will be.
  pipeline[2] = {hoist_padding_guards_pass(), vectorize_pass(), unroll_pass(), simplify_pass(),
                 storage_rewrite_pass()};
  // TIR_PHASE_3: the final clean-up before code generation.
  pipeline[3] = {remove_no_op_pass(), simplify_pass()};
  return pipeline;
}

Expected<PrimFunc> run_tir_pipeline(PrimFunc func, const TirPipeline& pipeline,
                                    const PipelineOptions& options,
                                    std::vector<PassTiming>* timings) {
  for (const std::vector<FuncPass>& phase : pipeline) {
    UMA_TRY_ASSIGN(func, run_passes(std::move(func), phase, options, timings));
  }
  return func;
}

}  // namespace uma::tir
