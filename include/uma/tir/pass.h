// Loop-IR passes, and running a list of them over one function with the pipeline options
// of graph passes (verification after each pass, --print-after, timing).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "uma/graph/pass.h"
#include "uma/tir/ir.h"

namespace uma::tir {

// A loop-IR pass: one function in, one out. A pass that changes nothing returns the
// function as given (the same body handle), which is how the pipeline tells it changed
// nothing. One pass per file in src/tir/passes/; `name` is the file's and the
// command line's name.
struct FuncPass {
  std::string name;
  std::function<Expected<PrimFunc>(const PrimFunc&)> run;
};

// Runs `passes` in order on `func`. With options.verify_each the verifier runs after each
// pass, and a function it rejects is reported as a bug of that pass. Appends one timing per
// pass to `timings` when it is not null. Errors name the function and the pass.
Expected<PrimFunc> run_passes(PrimFunc func, const std::vector<FuncPass>& passes,
                              const PipelineOptions& options = {},
                              std::vector<PassTiming>* timings = nullptr);

// The core loop-IR passes, one per file in src/tir/passes/.
FuncPass simplify_pass();  // simplify: tir::simplify over the body (uma/tir/simplify.h)
// parallelize-blocks: each block's outer loop parallel where its iterations are independent.
FuncPass parallelize_blocks_pass();
// lift-allocations: the global allocations around a function's whole body of at least
// `min_bytes` become parameters after the outputs (workspace the caller provides).
FuncPass lift_allocations_pass(std::int64_t min_bytes);
// The indices of the workspace parameters lift-allocations made (attribute "workspace").
std::vector<std::size_t> workspace_params(const PrimFunc& func);

}  // namespace uma::tir
