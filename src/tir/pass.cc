// Running loop-IR passes over a function.
#include "uma/tir/pass.h"

#include "uma/graph/run_pipeline.h"
#include "uma/tir/printer.h"
#include "uma/tir/verifier.h"

namespace uma {

template <>
struct PipelineTraits<tir::PrimFunc> {
  static std::string_view name(const tir::FuncPass& pass) { return pass.name; }
  // A pass that changed nothing returns the function as given.
  static Expected<bool> run(const tir::FuncPass& pass, tir::PrimFunc& func) {
    UMA_TRY_ASSIGN(tir::PrimFunc result, pass.run(func));
    bool changed = !(result.body.same_as(func.body) && result.params == func.params &&
                     result.num_inputs == func.num_inputs && result.name == func.name &&
                     result.attrs == func.attrs);
    func = std::move(result);
    return changed;
  }
  static Status verify(const tir::PrimFunc& func) { return tir::verify(func); }
  static void print(std::ostream& os, const tir::PrimFunc& func) { tir::print(os, func); }
  static std::string subject(const tir::PrimFunc& func) { return "func @" + func.name; }
  static std::string context(const tir::PrimFunc& func) { return "func @" + func.name + ": "; }
};

namespace tir {

Expected<PrimFunc> run_passes(PrimFunc func, const std::vector<FuncPass>& passes,
                              const PipelineOptions& options, std::vector<PassTiming>* timings) {
  UMA_TRY_ASSIGN(bool changed, run_pipeline(func, passes, options, timings));
  (void)changed;
  return func;
}

}  // namespace tir
}  // namespace uma
