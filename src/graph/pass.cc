// Pass options, pipelines written as text, and the pipeline that runs graph passes.
#include "uma/graph/pass.h"

#include <charconv>

#include "uma/graph/ir.h"
#include "uma/graph/printer.h"
#include "uma/graph/run_pipeline.h"
#include "uma/graph/verifier.h"

namespace uma {

Expected<PassOptions> PassOptions::parse(std::string_view text) {
  PassOptions options;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    std::size_t equal = item.find('=');
    if (equal == std::string_view::npos || equal == 0)
      return make_error("pass option '{}' is not of the form key=value", item);
    std::string key(item.substr(0, equal));
    if (options.values_.count(key)) return make_error("pass option '{}' is given twice", key);
    options.values_.emplace(std::move(key), std::string(item.substr(equal + 1)));
    pos = end;
  }
  return options;
}

const std::string* PassOptions::take(std::string_view key) {
  auto it = values_.find(key);
  if (it == values_.end()) return nullptr;
  read_[it->first] = true;
  return &it->second;
}

std::string PassOptions::get_string(std::string_view key, std::string fallback) {
  const std::string* value = take(key);
  return value != nullptr ? *value : std::move(fallback);
}

Expected<std::int64_t> PassOptions::get_int(std::string_view key, std::int64_t fallback) {
  const std::string* value = take(key);
  if (value == nullptr) return fallback;
  std::int64_t parsed = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), parsed);
  if (ec != std::errc() || end != value->data() + value->size())
    return make_error("pass option '{}' must be an integer, not '{}'", key, *value);
  return parsed;
}

Expected<bool> PassOptions::get_bool(std::string_view key, bool fallback) {
  const std::string* value = take(key);
  if (value == nullptr) return fallback;
  if (*value == "true" || *value == "1") return true;
  if (*value == "false" || *value == "0") return false;
  return make_error("pass option '{}' must be true or false, not '{}'", key, *value);
}

std::vector<std::string> PassOptions::get_list(std::string_view key) {
  std::vector<std::string> items;
  const std::string* value = take(key);
  if (value == nullptr) return items;
  std::size_t start = 0;
  while (start <= value->size()) {
    std::size_t comma = value->find(',', start);
    if (comma == std::string::npos) comma = value->size();
    if (comma > start) items.push_back(value->substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

Status PassOptions::check_all_read(std::string_view pass) const {
  for (const auto& [key, value] : values_)
    if (!read_.count(key)) return make_error("pass '{}' has no option '{}'", pass, key);
  return Status::success();
}

template <>
struct PipelineTraits<Module> {
  static std::string_view name(const std::unique_ptr<Pass>& pass) { return pass->name(); }
  static Expected<bool> run(std::unique_ptr<Pass>& pass, Module& module) {
    return pass->run(module);
  }
  static Status verify(const Module& module) { return uma::verify(module); }
  static void print(std::ostream& os, const Module& module) {
    uma::print(os, module, {.elide_data = true});
  }
  static std::string subject(const Module&) { return "the module"; }
  static std::string context(const Module&) { return ""; }
};

Expected<bool> PassManager::run(Module& module) {
  timings_.clear();
  return run_pipeline(module, passes_, options_, &timings_);
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

Expected<std::vector<PipelineItem>> split_pipeline(std::string_view pipeline) {
  std::vector<PipelineItem> items;
  std::size_t start = 0;
  while (start <= pipeline.size()) {
    // The item ends at the first comma outside braces.
    std::size_t end = start;
    while (end < pipeline.size() && pipeline[end] != ',' && pipeline[end] != '{') ++end;
    std::string_view options;
    std::size_t next = end;
    if (end < pipeline.size() && pipeline[end] == '{') {
      std::size_t close = pipeline.find('}', end);
      if (close == std::string_view::npos)
        return make_error("pipeline '{}': '{{' without a closing '}}'", pipeline);
      options = pipeline.substr(end + 1, close - end - 1);
      next = close + 1;
      while (next < pipeline.size() && pipeline[next] == ' ') ++next;
      if (next < pipeline.size() && pipeline[next] != ',')
        return make_error("pipeline '{}': expected ',' after '}}'", pipeline);
    }
    std::string_view name = pipeline.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) {
      if (pipeline.empty()) break;
      return make_error("empty pass name in pipeline '{}'", pipeline);
    }
    items.push_back({name, options});
    start = next + 1;
  }
  return items;
}

Expected<PassManager> parse_pipeline(const PassRegistry& registry, std::string_view names,
                                     PipelineOptions options) {
  UMA_TRY_ASSIGN(std::vector<std::unique_ptr<Pass>> passes, registry.create_pipeline(names));
  PassManager manager(std::move(options));
  for (std::unique_ptr<Pass>& pass : passes) manager.add(std::move(pass));
  return manager;
}

}  // namespace uma
