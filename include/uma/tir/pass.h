// The machinery of loop-IR passes: what a pass is, and running a list of them over one
// function with the pipeline options of graph passes (verification after each pass,
// --print-after, timing), through the runner graph passes use (uma/graph/run_pipeline.h). The core
// passes themselves are declared in uma/tir/passes.h.
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

// Loop-IR passes by name, for pipelines written as text ("flatten-buffers,simplify",
// "unroll{max-extent=8}"); register_core_passes (uma/tir/passes.h) fills one.
using FuncPassRegistry = NamedPassRegistry<FuncPass>;

// Runs `passes` in order on `func`. With options.verify_each the verifier runs after each
// pass, and a function it rejects is reported as a bug of that pass. Appends one timing per
// pass to `timings` when it is not null. Errors name the function and the pass.
Expected<PrimFunc> run_passes(PrimFunc func, const std::vector<FuncPass>& passes,
                              const PipelineOptions& options = {},
                              std::vector<PassTiming>* timings = nullptr);

}  // namespace uma::tir
