// The pass registry and the pipeline that runs graph passes.
#include "uma/graph/pass.h"

#include <algorithm>
#include <mutex>

#include "uma/graph/ir.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"

namespace uma {

Status PassRegistry::add(std::string name, std::string summary, PassFactory factory) {
  std::unique_lock lock(mutex_);
  if (entries_.count(name)) return make_error("pass '{}' is registered twice", name);
  entries_.emplace(std::move(name), Entry{std::move(summary), std::move(factory)});
  return Status::success();
}

Expected<std::unique_ptr<Pass>> PassRegistry::create(std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
    return make_error("unknown pass '{}' (known passes: {})", name, known);
  }
  return it->second.factory();
}

std::vector<std::pair<std::string, std::string>> PassRegistry::list() const {
  std::shared_lock lock(mutex_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, entry] : entries_) out.emplace_back(name, entry.summary);
  return out;
}

Expected<bool> PassManager::run(Module& module) {
  timings_.clear();
  bool any_change = false;
  auto wants_print = [&](std::string_view name) {
    return std::any_of(options_.print_after.begin(), options_.print_after.end(),
                       [&](const std::string& p) { return p == "all" || p == name; });
  };
  for (auto& pass : passes_) {
    auto start = std::chrono::steady_clock::now();
    Expected<bool> changed = pass->run(module);
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (!changed) return changed.error().with_context(fmt::format("pass '{}'", pass->name()));
    timings_.push_back({std::string(pass->name()),
                        std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed), *changed});
    any_change |= *changed;
    if (options_.verify_each) {
      Status verified = verify(module);
      if (!verified)
        return make_error("the module is invalid after pass '{}' (a bug in that pass): {}",
                          pass->name(), verified.error().message());
    }
    if (wants_print(pass->name())) {
      UMA_CHECK(options_.print_stream != nullptr, "print_after needs a print_stream");
      *options_.print_stream << "// -----// IR after " << pass->name()
                             << (*changed ? "" : " (no change)") << " //----- //\n";
      print(*options_.print_stream, module, {.elide_data = true});
    }
  }
  return any_change;
}

void PassManager::print_timings(std::ostream& os) const {
  std::chrono::nanoseconds total{0};
  for (const PassTiming& t : timings_) total += t.elapsed;
  os << "===-------------------------------------------===\n"
     << "  pass execution timing report\n"
     << "===-------------------------------------------===\n"
     << fmt::format("  total: {:.3f} ms\n", static_cast<double>(total.count()) / 1e6)
     << "   wall (ms)    share  changed  pass\n";
  for (const PassTiming& t : timings_) {
    double ms = static_cast<double>(t.elapsed.count()) / 1e6;
    double share = total.count() ? 100.0 * static_cast<double>(t.elapsed.count()) /
                                       static_cast<double>(total.count())
                                 : 0.0;
    os << fmt::format("  {:10.3f}  {:6.1f}%  {:>7}  {}\n", ms, share, t.changed ? "yes" : "no",
                      t.pass);
  }
}

Expected<PassManager> parse_pipeline(const PassRegistry& registry, std::string_view names,
                                     PipelineOptions options) {
  PassManager manager(std::move(options));
  std::size_t start = 0;
  while (start <= names.size()) {
    std::size_t comma = names.find(',', start);
    if (comma == std::string_view::npos) comma = names.size();
    std::string_view name = names.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) {
      if (names.empty()) break;
      return make_error("empty pass name in pipeline '{}'", names);
    }
    UMA_TRY_ASSIGN(auto pass, registry.create(name));
    manager.add(std::move(pass));
    start = comma + 1;
  }
  return manager;
}

}  // namespace uma
