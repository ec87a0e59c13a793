// The loop-IR pipeline in four phases, TIR_PHASE_0..3 (DESIGN.md), as lists of passes.
//
// Each phase's list holds first the core passes that bring a function to the state the
// phase names, then the passes of the backends that run at that phase (a backend appends
// to pipeline[phase]):
//
//   TIR_PHASE_0  blocked, schedulable loop IR as lowered: schedules, tensorization
//   TIR_PHASE_1  after buffer flattening and simplification
//   TIR_PHASE_2  after loop transforms (vectorize, unroll, storage rewrite)
//   TIR_PHASE_3  after the final clean-up, just before code generation
//
// core_tir_pipeline() in src/tir/passes/phases.cc is the one place that lists them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "uma/tir/pass.h"

namespace uma::tir {

inline constexpr std::size_t kNumTirPhases = 4;

// pipeline[n] is the pass list of TIR_PHASE_n.
using TirPipeline = std::array<std::vector<FuncPass>, kNumTirPhases>;

struct TirPipelineConfig {
  // Run the outermost loop nest of each block in parallel (OpenMP in the generated C).
  bool parallel = false;
  // Blocks that store fewer elements than this (counting every store a loop repeats) stay
  // serial: starting and joining threads costs more than they save (parallelize-blocks).
  std::int64_t min_parallel_work = std::int64_t{1} << 16;
};

// The core passes of each phase.
TirPipeline core_tir_pipeline(const TirPipelineConfig& config = {});

// Runs the phases in order on `func` (see run_passes for options and timings).
Expected<PrimFunc> run_tir_pipeline(PrimFunc func, const TirPipeline& pipeline,
                                    const PipelineOptions& options = {},
                                    std::vector<PassTiming>* timings = nullptr);

}  // namespace uma::tir
