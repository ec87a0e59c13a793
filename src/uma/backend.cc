// The backend's declarations and register_backend (see uma/uma/backend.h).
#include "uma/uma/backend.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "uma/tiling/fit.h"
#include "uma/uma/context.h"
#include "uma/uma/layer_plan.h"
#include "uma/uma/partition_policy.h"

namespace uma {

std::string_view graph_phase_name(GraphPhase phase) {
  switch (phase) {
    case GraphPhase::kPrePartitioning:
      return "PRE_PARTITIONING";
    case GraphPhase::kPostPartitioning0:
      return "POST_PARTITIONING_0";
    case GraphPhase::kPostPartitioning1:
      return "POST_PARTITIONING_1";
  }
  return "?";
}

// ---- Declarations ----

void Backend::declare_host() { spec_.host = true; }
void Backend::add_string_attr(std::string name, std::string default_value, std::string help) {
  spec_.attrs.push_back({std::move(name), std::move(default_value), std::move(help)});
}
void Backend::add_int_attr(std::string name, std::int64_t default_value, std::string help) {
  spec_.attrs.push_back({std::move(name), default_value, std::move(help)});
}
void Backend::add_bool_attr(std::string name, bool default_value, std::string help) {
  spec_.attrs.push_back({std::move(name), default_value, std::move(help)});
}
void Backend::set_target_check(BackendTargetCheck check) { spec_.check_target = std::move(check); }
void Backend::add_pattern(std::string name, PatternPtr pattern, BackendPredicate predicate) {
  spec_.patterns.push_back({std::move(name), std::move(pattern), std::move(predicate)});
}
void Backend::set_op_support(BackendOpSupport supports_op) {
  spec_.supports_op = std::move(supports_op);
}
void Backend::add_composite_lowering(std::string pattern, BackendCompositeLowering lower) {
  spec_.composite_lowerings.push_back({std::move(pattern), std::move(lower)});
}
void Backend::add_memory(tiling::MemoryDecl memory) { spec_.memories.push_back(std::move(memory)); }
void Backend::set_dma(tiling::DmaDecl dma) { spec_.dma = std::move(dma); }
void Backend::set_max_immediate_elements(std::int64_t count) {
  spec_.max_immediate_elements = count;
}
void Backend::set_cost(BackendCost cost) { spec_.cost = std::move(cost); }
void Backend::set_tolerance(DType dtype, Tolerance tolerance) {
  spec_.tolerances[dtype] = tolerance;
}
Tolerance BackendSpec::tolerance(DType dtype) const {
  auto it = tolerances.find(dtype);
  return it != tolerances.end() ? it->second : default_tolerance(dtype);
}
void Backend::keep_reductions_whole(std::string pattern) {
  spec_.whole_reductions.insert(std::move(pattern));
}
void Backend::set_estimate(BackendEstimate estimate) { spec_.estimate = std::move(estimate); }
void Backend::count_events(std::vector<std::string> events, std::vector<std::string> functions) {
  spec_.events = std::move(events);
  spec_.event_functions = std::move(functions);
}
void Backend::add_graph_pass(GraphPhase phase, std::string name, BackendGraphPass pass) {
  spec_.graph_passes.push_back({phase, std::move(name), std::move(pass)});
}
void Backend::add_strategy(std::string op, BackendComputeRule compute, BackendSchedule schedule) {
  spec_.strategies.push_back({std::move(op), std::move(compute), std::move(schedule)});
}
void Backend::add_schedule(std::string block_name, BackendBlockSchedule schedule) {
  spec_.schedules.push_back({std::move(block_name), std::move(schedule)});
}
void Backend::add_tir_pass(TirPhase phase, std::string name, BackendTirPass pass) {
  spec_.tir_passes.push_back({phase, std::move(name), std::move(pass)});
}
void Backend::add_include(std::string header) {
  spec_.codegen.includes.push_back(std::move(header));
}
void Backend::add_include_dir(std::string dir) {
  spec_.codegen.include_dirs.push_back(std::move(dir));
}
void Backend::add_c_source(std::string name, std::string code) {
  spec_.codegen.sources.push_back({std::move(name), std::move(code)});
}
void Backend::add_c_source_file(std::string path) {
  spec_.codegen.source_files.push_back(std::move(path));
}
void Backend::add_library(std::string link_argument) {
  spec_.codegen.libraries.push_back(std::move(link_argument));
}
void Backend::set_extern_printer(BackendExternPrinter printer) {
  spec_.codegen.print_extern_call = std::move(printer);
}
void Backend::set_declare_externs(bool declare) { spec_.codegen.declare_externs = declare; }
void Backend::set_extern_status(bool returns_status) {
  spec_.codegen.extern_status = returns_status;
}

// ---- Registration ----

namespace {

// The declarations' own consistency, before anything is registered.
Status check_spec(const Context& context, const BackendSpec& spec) {
  std::set<std::string, std::less<>> names;
  for (const BackendPattern& pattern : spec.patterns) {
    if (pattern.name.empty() || pattern.name.find('.') != std::string::npos)
      return make_error("pattern name '{}' is empty or holds a '.'", pattern.name);
    if (!names.insert(pattern.name).second)
      return make_error("pattern '{}' is declared twice", pattern.name);
    if (pattern.pattern == nullptr) return make_error("pattern '{}' is null", pattern.name);
  }
  std::set<std::string, std::less<>> lowered;
  for (const BackendCompositeLoweringEntry& entry : spec.composite_lowerings) {
    if (!names.count(entry.pattern))
      return make_error("composite lowering for '{}': no such pattern", entry.pattern);
    if (!lowered.insert(entry.pattern).second)
      return make_error("pattern '{}' has two composite lowerings", entry.pattern);
    if (!entry.lower)
      return make_error("composite lowering for '{}' has no function", entry.pattern);
  }
  for (const std::string& pattern : spec.whole_reductions)
    if (!lowered.count(pattern))
      return make_error("keep_reductions_whole('{}'): no composite lowering of that pattern",
                        pattern);
  if (spec.max_immediate_elements < 0)
    return make_error("the limit on immediates is negative ({})", spec.max_immediate_elements);
  std::set<std::string, std::less<>> ops;
  for (const BackendStrategy& strategy : spec.strategies) {
    if (!ops.insert(strategy.op).second)
      return make_error("op '{}' has two strategies", strategy.op);
    if (context.ops().find(strategy.op) == nullptr)
      return make_error("strategy for '{}': no such op", strategy.op);
    if (!strategy.compute) return make_error("strategy for '{}' has no compute", strategy.op);
  }
  std::set<std::string, std::less<>> blocks;
  for (const BackendBlockScheduleEntry& schedule : spec.schedules) {
    if (schedule.block.empty() || !schedule.run)
      return make_error("a schedule of block '{}' has no block name or no function",
                        schedule.block);
    if (!blocks.insert(schedule.block).second)
      return make_error("block '{}' has two schedules", schedule.block);
  }
  if (spec.host && (!spec.patterns.empty() || spec.supports_op))
    return make_error("the host's backend takes what no other takes: it declares no patterns");
  for (const BackendGraphPassEntry& pass : spec.graph_passes)
    if (pass.name.empty() || !pass.run)
      return make_error("a graph pass at {} has no name or no function",
                        graph_phase_name(pass.phase));
  for (const BackendTirPassEntry& pass : spec.tir_passes)
    if (pass.name.empty() || !pass.run)
      return make_error("a loop-IR pass at TIR_PHASE_{} has no name or no function",
                        static_cast<int>(pass.phase));
  for (const TargetAttrDef& attr : spec.attrs)
    if (!spec.host && attr.name == kNoFallbackAttr)
      return make_error("attribute '{}' is every accelerator's: the core declares it", attr.name);
  if (spec.host && !spec.memories.empty())
    return make_error("the host's backend declares memories; only an accelerator has them");
  if (spec.dma && spec.memories.empty())
    return make_error("it declares a DMA engine but no memory for it to fill");
  if ((spec.estimate || !spec.events.empty()) && spec.memories.empty())
    return make_error("it declares a performance model or events but no memory: only layers "
                      "run in tiles are simulated");
  if (spec.events.empty() != spec.event_functions.empty())
    return make_error("it counts events without the functions that count them, or the reverse");
  return tiling::check_decls(spec.memories, spec.dma);
}

}  // namespace

Expected<tiling::MemoryModel> memory_model(const BackendSpec& spec, const Target& target) {
  return tiling::resolve(spec.memories, spec.dma, target);
}

PartitionTarget partition_target(const BackendSpec& spec, const Target& target,
                                 std::shared_ptr<const CostPolicy> costs) {
  PartitionTarget partition{spec.target_name, {}, {}};
  // With memories, a composite that the backend lowers is offloaded only if its tiles fit.
  std::shared_ptr<const tiling::MemoryModel> memories;
  if (Expected<tiling::MemoryModel> model = memory_model(spec, target); model && !model->empty())
    memories = std::make_shared<const tiling::MemoryModel>(std::move(*model));
  // A backend with a performance model and no cost of its own is costed by its model.
  BackendCost cost = spec.cost;
  if (costs && !cost && spec.estimate && memories) cost = estimated_cost(spec, *memories);
  if (!cost) costs = nullptr;
  for (const BackendPattern& pattern : spec.patterns) {
    // The checks in order: the backend's predicate, the fit, the cost; the first to refuse
    // gives the reason.
    std::vector<std::function<Status(const Match&)>> checks;
    if (pattern.predicate)
      checks.push_back(
          [check = pattern.predicate, target](const Match& m) { return check(m, target); });
    bool lowered = std::any_of(
        spec.composite_lowerings.begin(), spec.composite_lowerings.end(),
        [&](const BackendCompositeLoweringEntry& entry) { return entry.pattern == pattern.name; });
    if (memories && lowered) {
      auto fit = std::make_shared<const tiling::MemoryModel>(
          planning_memories(spec, *memories, spec.target_name + "." + pattern.name));
      checks.push_back([fit](const Match& m) { return tiling::check_fits(m, *fit); });
    }
    if (costs)
      checks.push_back([costs, cost, target,
                        composite = spec.target_name + "." + pattern.name](const Match& m) {
        return costs->check(m, composite, cost, target);
      });
    std::function<Status(const Match&)> predicate;
    if (checks.size() == 1) predicate = std::move(checks.front());
    if (checks.size() > 1)
      predicate = [checks = std::move(checks)](const Match& m) -> Status {
        for (const auto& check : checks) UMA_TRY(check(m));
        return Status::success();
      };
    partition.patterns.push_back({pattern.name, pattern.pattern, std::move(predicate)});
  }
  if (spec.supports_op)
    partition.supports_op = [check = spec.supports_op, target](const Node& node) {
      return check(node, target);
    };
  return partition;
}

lower::CompositeLowerings composite_lowerings(const BackendSpec& spec, const Target& target) {
  lower::CompositeLowerings lowerings;
  for (const BackendCompositeLoweringEntry& entry : spec.composite_lowerings) {
    std::string composite = spec.target_name + "." + entry.pattern;
    lowerings.emplace(composite,
                      [lower = entry.lower, target, backend = spec.target_name](
                          const lower::CompositeOperands& operands) -> Expected<lower::ExternCall> {
                        Expected<lower::ExternCall> call = lower(operands, target);
                        if (!call)
                          return call.error().with_context(fmt::format("backend '{}'", backend));
                        return call;
                      });
  }
  return lowerings;
}

std::shared_ptr<const Backend> BackendRegistry::find(std::string_view target_name) const {
  std::shared_lock lock(mutex_);
  auto it = backends_.find(target_name);
  return it == backends_.end() ? nullptr : it->second;
}

std::vector<std::string> BackendRegistry::names() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, _] : backends_) names.push_back(name);
  return names;
}

Status register_backend(Context& context, std::unique_ptr<Backend> backend) {
  if (backend == nullptr) return make_error("register_backend: the backend is null");
  const BackendSpec& spec = backend->spec();
  auto fail = [&](const Error& error) {
    return error.with_context(fmt::format("backend '{}'", spec.target_name));
  };
  if (Status checked = check_spec(context, spec); !checked) return fail(checked.error());
  // One registration at a time, so that the checks below still hold when it is made.
  BackendRegistry& registry = context.backends();
  std::unique_lock lock(registry.mutex_);
  if (spec.host)
    for (const auto& [name, registered] : registry.backends_)
      if (registered->spec().host)
        return fail(make_error("the context's host backend is '{}' already", name));
  if (context.partition_targets().find(spec.target_name))
    return fail(make_error("a partition target of that name is registered already"));
  std::vector<TargetAttrDef> attrs = spec.attrs;
  for (TargetAttrDef& attr : tiling::memory_attrs(spec.memories, spec.dma))
    attrs.push_back(std::move(attr));
  if (!spec.host)
    for (TargetAttrDef& attr : accelerator_attrs()) attrs.push_back(std::move(attr));
  if (Status added = context.target_kinds().add({spec.target_name, std::move(attrs), spec.host});
      !added)
    return fail(added.error());
  if (!spec.host) {
    // The kind is valid, so the partition target's name is too.
    Expected<std::shared_ptr<const TargetKind>> kind =
        context.target_kinds().find(spec.target_name);
    UMA_CHECK(kind.ok());
    Target defaults(*kind, {});
    UMA_CHECK(context.partition_targets().add(partition_target(spec, defaults)).ok());
  }
  std::string name = spec.target_name;
  registry.backends_.emplace(std::move(name), std::shared_ptr<const Backend>(std::move(backend)));
  return Status::success();
}

}  // namespace uma
