// The one loop that runs a list of passes over either IR (the graph's PassManager,
// tir::run_passes): each pass timed, then the verifier when asked, then the IR printed
// when --print-after names the pass.
#pragma once

#include <algorithm>
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "uma/graph/pass.h"

namespace uma {

// What run_pipeline needs of one IR, specialized beside that IR's passes:
//   static std::string_view name(const PassT&);
//   static Expected<bool> run(PassT&, IR&);       // whether the pass changed the IR
//   static Status verify(const IR&);
//   static void print(std::ostream&, const IR&);
//   static std::string subject(const IR&);      // names the IR in errors: "the module"
//   static std::string context(const IR&);      // put before "pass '<name>'" on a failure
template <typename IR>
struct PipelineTraits;

// Runs `passes` in order on `ir`; whether any changed it. The first failure stops the run,
// its error naming the pass; an IR the verifier rejects after a pass is reported as a bug
// of that pass. Each pass's timing goes to `timings` and to options.timings (those not null).
template <typename IR, typename Passes>
Expected<bool> run_pipeline(IR& ir, Passes& passes, const PipelineOptions& options,
                            std::vector<PassTiming>* timings = nullptr) {
  using Traits = PipelineTraits<IR>;
  bool any_change = false;
  for (auto& pass : passes) {
    const std::string name(Traits::name(pass));
    auto start = std::chrono::steady_clock::now();
    Expected<bool> changed = Traits::run(pass, ir);
    auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - start);
    if (!changed)
      return changed.error().with_context(fmt::format("{}pass '{}'", Traits::context(ir), name));
    for (std::vector<PassTiming>* sink : {timings, options.timings})
      if (sink != nullptr) sink->push_back({name, elapsed, *changed});
    any_change |= *changed;
    if (options.verify_each) {
      Status verified = Traits::verify(ir);
      if (!verified)
        return make_error("{} is invalid after pass '{}' (a bug in that pass): {}",
                          Traits::subject(ir), name, verified.error().message());
    }
    bool print = std::any_of(options.print_after.begin(), options.print_after.end(),
                             [&](const std::string& p) { return p == "all" || p == name; });
    if (print) {
      UMA_CHECK(options.print_stream != nullptr, "print_after needs a print_stream");
      *options.print_stream << "// -----// IR after " << name << (*changed ? "" : " (no change)")
                            << " //----- //\n";
      Traits::print(*options.print_stream, ir);
    }
  }
  return any_change;
}

}  // namespace uma
