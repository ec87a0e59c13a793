// Running loop-IR passes over a function.
#include "uma/tir/pass.h"

#include <algorithm>
#include <chrono>

#include "uma/tir/printer.h"
#include "uma/tir/verifier.h"

namespace uma::tir {
namespace {

bool same_function(const PrimFunc& a, const PrimFunc& b) {
  return a.body.same_as(b.body) && a.params == b.params && a.num_inputs == b.num_inputs &&
         a.name == b.name && a.attrs == b.attrs;
}

}  // namespace

Expected<PrimFunc> run_passes(PrimFunc func, const std::vector<FuncPass>& passes,
                              const PipelineOptions& options, std::vector<PassTiming>* timings) {
  auto wants_print = [&](std::string_view name) {
    return std::any_of(options.print_after.begin(), options.print_after.end(),
                       [&](const std::string& p) { return p == "all" || p == name; });
  };
  for (const FuncPass& pass : passes) {
    auto start = std::chrono::steady_clock::now();
    Expected<PrimFunc> result = pass.run(func);
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (!result)
      return result.error().with_context(fmt::format("func @{}: pass '{}'", func.name, pass.name));
    bool changed = !same_function(*result, func);
    func = std::move(*result);
    if (timings != nullptr)
      timings->push_back(
          {pass.name, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed), changed});
    if (options.verify_each) {
      Status verified = verify(func);
      if (!verified)
        return make_error("func @{} is invalid after pass '{}' (a bug in that pass): {}", func.name,
                          pass.name, verified.error().message());
    }
    if (wants_print(pass.name)) {
      UMA_CHECK(options.print_stream != nullptr, "print_after needs a print_stream");
      *options.print_stream << "// -----// IR after " << pass.name
                            << (changed ? "" : " (no change)") << " //----- //\n";
      print(*options.print_stream, func);
    }
  }
  return func;
}

}  // namespace uma::tir
