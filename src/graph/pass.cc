// The pass registry and the pipeline that runs graph passes.
#include "uma/graph/pass.h"

#include <algorithm>
#include <charconv>
#include <mutex>

#include "uma/graph/ir.h"
#include "uma/graph/printer.h"
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

Status PassRegistry::add_entry(std::string name, Entry entry) {
  std::unique_lock lock(mutex_);
  if (entries_.count(name)) return make_error("pass '{}' is registered twice", name);
  entries_.emplace(std::move(name), std::move(entry));
  return Status::success();
}

Status PassRegistry::add(std::string name, std::string summary, PassFactory factory) {
  auto wrapped = [factory = std::move(factory)](PassOptions&) -> Expected<std::unique_ptr<Pass>> {
    return factory();
  };
  return add_entry(std::move(name), Entry{std::move(summary), std::move(wrapped), false});
}

Status PassRegistry::add(std::string name, std::string summary, PassFactoryWithOptions factory) {
  return add_entry(std::move(name), Entry{std::move(summary), std::move(factory), true});
}

Expected<std::unique_ptr<Pass>> PassRegistry::create(std::string_view name,
                                                     std::string_view options_text) const {
  Entry entry;
  {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      std::string known;
      for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
      return make_error("unknown pass '{}' (known passes: {})", name, known);
    }
    entry = it->second;
  }
  UMA_TRY_ASSIGN(PassOptions options, PassOptions::parse(options_text));
  if (!entry.takes_options && !options.empty())
    return make_error("pass '{}' takes no options", name);
  UMA_TRY_ASSIGN(auto pass, entry.factory(options));
  UMA_TRY(options.check_all_read(name));
  return pass;
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
    // The item ends at the first comma outside braces.
    std::size_t end = start;
    while (end < names.size() && names[end] != ',' && names[end] != '{') ++end;
    std::string_view options;
    std::size_t next = end;
    if (end < names.size() && names[end] == '{') {
      std::size_t close = names.find('}', end);
      if (close == std::string_view::npos)
        return make_error("pipeline '{}': '{{' without a closing '}}'", names);
      options = names.substr(end + 1, close - end - 1);
      next = close + 1;
      while (next < names.size() && names[next] == ' ') ++next;
      if (next < names.size() && names[next] != ',')
        return make_error("pipeline '{}': expected ',' after '}}'", names);
    }
    std::string_view name = names.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) {
      if (names.empty()) break;
      return make_error("empty pass name in pipeline '{}'", names);
    }
    UMA_TRY_ASSIGN(auto pass, registry.create(name, options));
    manager.add(std::move(pass));
    start = next + 1;
  }
  return manager;
}

}  // namespace uma
