// Graph passes, the registry that names them, and the pipeline that runs them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "uma/support/error.h"

namespace uma {

class Module;
class PassRegistry;

// A pass has a name (its command-line name) and says whether it changed the module.
// Failure is a value: an Error naming the place at fault.
class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<bool> run(Module& module) = 0;
};

// The options a pipeline gives one pass, written as in MLIR:
// `annotate-target{targets=test_conv,test_dense merge=false}` (space-separated key=value
// pairs; a value may hold commas). The pass's factory reads them through the typed
// getters; an option it did not read is an error naming it, so a typo never passes
// silently.
class PassOptions {
 public:
  // Parses the text between the braces.
  static Expected<PassOptions> parse(std::string_view text);

  bool empty() const { return values_.empty(); }
  std::string get_string(std::string_view key, std::string fallback);
  Expected<std::int64_t> get_int(std::string_view key, std::int64_t fallback);
  Expected<bool> get_bool(std::string_view key, bool fallback);
  // A comma-separated list; empty when the option is absent.
  std::vector<std::string> get_list(std::string_view key);
  // Errors naming the first option no getter read.
  Status check_all_read(std::string_view pass) const;

 private:
  const std::string* take(std::string_view key);
  std::map<std::string, std::string, std::less<>> values_;
  std::map<std::string, bool, std::less<>> read_;
};

// A pipeline written as text, split into its items: "dce,annotate-target{targets=a,b}" gives
// ("dce", "") and ("annotate-target", "targets=a,b"). Errors on an empty name or an
// unclosed brace, quoting the pipeline.
struct PipelineItem {
  std::string_view name;
  std::string_view options;  // the text between the braces
};
Expected<std::vector<PipelineItem>> split_pipeline(std::string_view pipeline);

// Passes of one IR by name, for pipelines written as text; `P` is what create() makes (a
// graph pass: std::unique_ptr<Pass>; a loop-IR pass: tir::FuncPass). Safe to use from
// several threads.
template <typename P>
class NamedPassRegistry {
 public:
  using Factory = std::function<P()>;
  using FactoryWithOptions = std::function<Expected<P>(PassOptions&)>;

  // Errors when a pass of that name exists already.
  Status add(std::string name, std::string summary, Factory factory);
  // A pass that takes options.
  Status add(std::string name, std::string summary, FactoryWithOptions factory);
  // `options` is the text between the braces of `name{...}`; a pass registered without
  // options refuses any.
  Expected<P> create(std::string_view name, std::string_view options = {}) const;
  // The passes of a pipeline written as text (see split_pipeline); unknown names are an
  // error that lists the known ones.
  Expected<std::vector<P>> create_pipeline(std::string_view pipeline) const;
  // (name, summary) pairs, sorted by name.
  std::vector<std::pair<std::string, std::string>> list() const;

 private:
  struct Entry {
    std::string summary;
    FactoryWithOptions factory;
    bool takes_options = false;
  };
  Status add_entry(std::string name, Entry entry);
  mutable std::shared_mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;
};

using PassFactory = NamedPassRegistry<std::unique_ptr<Pass>>::Factory;
using PassFactoryWithOptions = NamedPassRegistry<std::unique_ptr<Pass>>::FactoryWithOptions;

// The graph passes by name (a class, not an alias, so that it can be declared ahead).
class PassRegistry : public NamedPassRegistry<std::unique_ptr<Pass>> {};

struct PassTiming {
  std::string pass;
  std::chrono::nanoseconds elapsed{0};
  bool changed = false;
};

struct PipelineOptions {
  // Run the verifier after each pass (on in tests and debug builds).
  bool verify_each = false;
  // Print the module after these passes; "all" prints after every pass.
  std::vector<std::string> print_after;
  // Where --print-after output goes (required when print_after is not empty).
  std::ostream* print_stream = nullptr;
  // Where each pass run appends its timing, when not null: one list for every pipeline of
  // a build (graph and loop-IR passes alike).
  std::vector<PassTiming>* timings = nullptr;
};

// Runs passes in order. The first failure stops the pipeline; its error names the pass.
class PassManager {
 public:
  explicit PassManager(PipelineOptions options = {}) : options_(std::move(options)) {}

  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  std::size_t size() const { return passes_.size(); }
  // Whether any pass changed the module.
  Expected<bool> run(Module& module);

  // One entry per pass run, in order, from the last run().
  const std::vector<PassTiming>& timings() const { return timings_; }
  // A table of the timings, with each pass's share of the total.
  void print_timings(std::ostream& os) const;

 private:
  PipelineOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassTiming> timings_;
};

// Builds a pipeline from comma-separated pass names, each with optional options in
// braces ("dce,annotate-target{targets=a,b},partition-graph"); unknown names are an
// error that lists the known ones.
Expected<PassManager> parse_pipeline(const PassRegistry& registry, std::string_view names,
                                     PipelineOptions options = {});

// The core graph passes, one per file in src/graph/passes/.
std::unique_ptr<Pass> create_infer_types_pass();
std::unique_ptr<Pass> create_dce_pass();
std::unique_ptr<Pass> create_cse_pass();
std::unique_ptr<Pass> create_fold_constant_pass();

struct FoldConstantOptions {
  // A node whose results would hold more elements than this in total is not folded, so
  // that folding never blows a model up (a broadcast to a large shape stays a broadcast).
  std::int64_t max_elements = std::int64_t{1} << 20;
};
// fold-constant with options other than the defaults. (A separate name: an overload would
// make the plain factory ambiguous where it is taken as a PassFactory.)
std::unique_ptr<Pass> create_fold_constant_pass_with_options(const FoldConstantOptions& options);

// Canonicalizations run after import, one file each: they turn what exporters emit into
// the ops backends look for.
std::unique_ptr<Pass> create_fold_batch_norm_pass();
std::unique_ptr<Pass> create_fuse_layer_norm_pass();
std::unique_ptr<Pass> create_fuse_gelu_pass();
std::unique_ptr<Pass> create_drop_identities_pass();

// The host's limit on constants written into the loop IR as immediates (and bound by
// fuse-ops into the fused functions); larger ones are buffers. A backend sets its own
// (lower::LowerOptions::max_immediate_elements).
inline constexpr std::int64_t kMaxImmediateElements = 8;

// fuse-ops: groups the nodes of host functions into Primitive functions, an anchor with the
// pointwise ops after it or a chain of pointwise ops, by the ops' fusion categories
// (OpDef::fusion); each lowers to one loop nest per anchor (uma/lower/lower.h).
std::unique_ptr<Pass> create_fuse_ops_pass();

// The pipeline a freshly imported model goes through, in order: fold constants (shape
// computations included), fold batch norms into convolutions, recognise layer norms and
// GELUs, merge duplicates, remove what is dead.
PassManager create_canonicalize_pipeline(PipelineOptions options = {});

// Registers the core graph passes.
void register_core_passes(PassRegistry& registry);

// NamedPassRegistry's members, here because the registry is a template.

template <typename P>
Status NamedPassRegistry<P>::add_entry(std::string name, Entry entry) {
  std::unique_lock lock(mutex_);
  if (entries_.count(name)) return make_error("pass '{}' is registered twice", name);
  entries_.emplace(std::move(name), std::move(entry));
  return Status::success();
}

template <typename P>
Status NamedPassRegistry<P>::add(std::string name, std::string summary, Factory factory) {
  auto wrapped = [factory = std::move(factory)](PassOptions&) -> Expected<P> { return factory(); };
  return add_entry(std::move(name), Entry{std::move(summary), std::move(wrapped), false});
}

template <typename P>
Status NamedPassRegistry<P>::add(std::string name, std::string summary,
                                 FactoryWithOptions factory) {
  return add_entry(std::move(name), Entry{std::move(summary), std::move(factory), true});
}

template <typename P>
Expected<P> NamedPassRegistry<P>::create(std::string_view name,
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
  UMA_TRY_ASSIGN(P pass, entry.factory(options));
  UMA_TRY(options.check_all_read(name));
  return pass;
}

template <typename P>
Expected<std::vector<P>> NamedPassRegistry<P>::create_pipeline(std::string_view pipeline) const {
  UMA_TRY_ASSIGN(std::vector<PipelineItem> items, split_pipeline(pipeline));
  std::vector<P> passes;
  for (const PipelineItem& item : items) {
    UMA_TRY_ASSIGN(P pass, create(item.name, item.options));
    passes.push_back(std::move(pass));
  }
  return passes;
}

template <typename P>
std::vector<std::pair<std::string, std::string>> NamedPassRegistry<P>::list() const {
  std::shared_lock lock(mutex_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, entry] : entries_) out.emplace_back(name, entry.summary);
  return out;
}

}  // namespace uma
