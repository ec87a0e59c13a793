// The UMA build driver (see uma/uma/build.h): build() lists the stages in order.
#include "uma/uma/build.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <set>

#include "uma/lower/lower.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/sim/count_events.h"
#include "uma/support/file.h"
#include "uma/tiling/lower_tiled.h"
#include "uma/tiling/passes.h"
#include "uma/tiling/plan.h"
#include "uma/tir/functor.h"
#include "uma/tir/passes.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/layer_plan.h"

namespace uma::build {
namespace {

// A backend's graph pass with the build's target, so that a PassManager verifies, prints
// and times it like a core pass.
class BoundGraphPass : public Pass {
 public:
  BoundGraphPass(const BackendGraphPassEntry& entry, const Target& target)
      : entry_(entry), target_(target) {}
  std::string_view name() const override { return entry_.name; }
  Expected<bool> run(Module& module) override { return entry_.run(module, target_); }

 private:
  const BackendGraphPassEntry& entry_;
  const Target& target_;
};

struct BoundBackend {
  std::shared_ptr<const Backend> backend;
  const Target* target;
};

// The backends of the targets, the host's last. Errors when a target has no backend or its
// backend's check refuses it (BuildTargets made without parse_targets).
Expected<std::vector<BoundBackend>> bind_backends(const Context& context,
                                                  const BuildTargets& targets) {
  std::vector<BoundBackend> bound;
  std::vector<const Target*> all;
  for (const Target& target : targets.backends) all.push_back(&target);
  all.push_back(&targets.host);
  for (const Target* target : all) {
    std::shared_ptr<const Backend> backend = context.backends().find(target->name());
    if (backend == nullptr)
      return make_error("target '{}': target kind '{}' has no backend", target->str(),
                        target->name());
    if (backend->spec().check_target) {
      Status checked = backend->spec().check_target(*target);
      if (!checked) return make_error("target '{}': {}", target->str(), checked.error().message());
    }
    bound.push_back({std::move(backend), target});
  }
  return bound;
}

// The targets that may not leave a node their patterns match on the host: all of them with
// BuildOptions::no_fallback, else those whose no_fallback is set.
Expected<std::vector<std::string>> strict_targets(const std::vector<BoundBackend>& partitioned,
                                                  const BuildOptions& options) {
  std::vector<std::string> strict;
  for (const BoundBackend& bound : partitioned) {
    UMA_TRY_ASSIGN(bool no_fallback, bound.target->get_bool(kNoFallbackAttr));
    if (no_fallback || options.no_fallback) strict.push_back(bound.target->name());
  }
  return strict;
}

// Each backend's passes of `phase`, in the order of the targets (the host's last), then of
// registration. Each is verified after it runs, always: a plugin's pass (or a Python one)
// that breaks the IR's rules is an error naming it, before the core's passes rely on them.
Status run_graph_phase(Module& module, const std::vector<BoundBackend>& backends, GraphPhase phase,
                       const PipelineOptions& options) {
  PipelineOptions verified = options;
  verified.verify_each = true;
  PassManager passes(verified);
  for (const BoundBackend& bound : backends)
    for (const BackendGraphPassEntry& entry : bound.backend->spec().graph_passes)
      if (entry.phase == phase) passes.add(std::make_unique<BoundGraphPass>(entry, *bound.target));
  UMA_TRY_ASSIGN(bool changed, passes.run(module));
  (void)changed;
  return Status::success();
}

// The ops of a function, those inside its composites included.
void collect_ops(const Function& function, std::set<std::string, std::less<>>& ops) {
  for (const auto& node : function.nodes()) {
    if (node->is_op("call"))
      collect_ops(*node->callee(), ops);
    else
      ops.insert(node->op_name());
  }
}

// The names of the function's blocks.
class BlockNames : public tir::Visitor {
 public:
  using Visitor::visit;
  std::set<std::string, std::less<>> names;

 protected:
  void visit(const tir::BlockNode& block) override {
    names.insert(block.name);
    Visitor::visit(block);
  }
};

// The backend's schedules on a lowered function of its target: each strategy's whose op the
// function holds, then each block schedule whose block it holds.
Expected<tir::PrimFunc> apply_schedules(const BackendSpec& spec, const Target& target,
                                        const Function& function, tir::PrimFunc func) {
  std::set<std::string, std::less<>> ops;
  collect_ops(function, ops);
  tir::Schedule schedule(std::move(func));
  for (const BackendStrategy& strategy : spec.strategies) {
    if (!strategy.schedule || !ops.count(strategy.op)) continue;
    Status scheduled = strategy.schedule(schedule, target);
    if (!scheduled)
      return scheduled.error().with_context(
          fmt::format("the schedule of {}'s strategy for {}", spec.target_name, strategy.op));
  }
  BlockNames blocks;
  blocks.visit(schedule.func().body);
  for (const BackendBlockScheduleEntry& entry : spec.schedules) {
    if (!blocks.names.count(entry.block)) continue;
    // Every block of the name: a fused or partitioned function may hold several.
    UMA_TRY_ASSIGN(std::vector<tir::BlockRef> found, schedule.get_blocks(entry.block));
    for (const tir::BlockRef& block : found) {
      Status scheduled = entry.run(schedule, block, target);
      if (!scheduled)
        return scheduled.error().with_context(
            fmt::format("the schedule of {}'s block {}", spec.target_name, entry.block));
    }
  }
  return schedule.func();
}

// What the build needs of one backend's target. `overrides` keeps the strategies' registry
// alive for the build.
// The tiler of a target with memories: each call of a composite with a lowering planned
// (and the plan recorded in `report`, when there is one) and lowered tile by tile.
lower::CompositeTiler tiler(std::shared_ptr<const tiling::MemoryModel> model,
                            PartitionReport* report, const BoundBackend& bound) {
  return [model, report, &spec = bound.backend->spec(), target = bound.target](
             const lower::CompositeOperands& operands,
             const lower::CompositeLowering& lowering) -> Expected<tir::Stmt> {
    UMA_TRY_ASSIGN(tiling::TileSpace space, tiling::TileSpace::derive(operands.composite()));
    const std::string& composite = operands.composite().attrs().get_string("Composite");
    tiling::MemoryModel memories = planning_memories(spec, *model, composite);
    UMA_TRY_ASSIGN(tiling::TilePlan plan,
                   plan_layer(spec, *target, memories, operands.composite(), space));
    UMA_TRY_ASSIGN(tir::Stmt lowered,
                   tiling::lower_tiled(operands, lowering, space, plan, memories));
    if (report != nullptr) {
      std::string layer;
      for (const auto& node : operands.composite().nodes())
        if (!node->is_op("constant")) {
          layer = node->name();
          break;
        }
      std::optional<sim::LayerEstimate> estimated;
      if (spec.estimate) {
        Expected<sim::LayerEstimate> layer_estimate =
            spec.estimate(operands.composite(), plan, *target);
        if (!layer_estimate)
          return layer_estimate.error().with_context(fmt::format("the estimate of {}", layer));
        estimated = std::move(*layer_estimate);
      }
      report->tiled({operands.call().function()->name(), composite, std::move(layer),
                     std::move(plan), std::move(estimated)});
    }
    return lowered;
  };
}

Expected<TargetPipeline> target_pipeline(const BoundBackend& bound,
                                         std::unique_ptr<lower::ComputeRegistry>& overrides,
                                         PartitionReport* report) {
  const BackendSpec& spec = bound.backend->spec();
  const Target& target = *bound.target;
  TargetPipeline pipeline;
  pipeline.target = spec.target_name;
  pipeline.host = spec.host;

  overrides = std::make_unique<lower::ComputeRegistry>();
  for (const BackendStrategy& strategy : spec.strategies) {
    lower::ComputeRule rule = [compute = strategy.compute, &target](
                                  const Node& node, const std::vector<lower::TensorView>& inputs,
                                  lower::ComputeBuilder& builder) {
      return compute(node, inputs, builder, target);
    };
    UMA_TRY(overrides->add(strategy.op, std::move(rule)));
  }
  pipeline.overrides = overrides.get();
  pipeline.composite_lowerings = composite_lowerings(spec, target);
  pipeline.max_immediate_elements = spec.max_immediate_elements;
  // Only a backend with schedules needs each lowered function's ops and blocks looked up.
  bool schedules =
      !spec.schedules.empty() ||
      std::any_of(spec.strategies.begin(), spec.strategies.end(),
                  [](const BackendStrategy& strategy) { return bool(strategy.schedule); });
  if (schedules)
    pipeline.after_lower = [&spec, &target](const Function& function, tir::PrimFunc func) {
      return apply_schedules(spec, target, function, std::move(func));
    };

  if (!spec.memories.empty()) {
    UMA_TRY_ASSIGN(tiling::MemoryModel model, memory_model(spec, target));
    if (!model.empty()) {
      pipeline.passes[0].push_back(tir::pipeline_dma_pass());
      pipeline.passes[0].push_back(tiling::lower_dma_pass(model.dma));
      if (!spec.events.empty())
        pipeline.passes[0].push_back(
            sim::count_events_pass(spec.events.size(), spec.event_functions));
      pipeline.passes[2].push_back(tiling::check_memories_pass(model));
      pipeline.tiler =
          tiler(std::make_shared<const tiling::MemoryModel>(std::move(model)), report, bound);
    }
  }
  for (const BackendTirPassEntry& entry : spec.tir_passes) {
    tir::FuncPass pass{entry.name, [run = entry.run, &target](const tir::PrimFunc& func) {
                         return run(func, target);
                       }};
    pipeline.passes[static_cast<std::size_t>(entry.phase)].push_back(std::move(pass));
  }

  const BackendCodegen& codegen = spec.codegen;
  pipeline.hooks.includes = codegen.includes;
  pipeline.hooks.declare_externs = codegen.declare_externs;
  pipeline.hooks.extern_status = codegen.extern_status;
  if (codegen.print_extern_call)
    pipeline.hooks.print_extern_call = [print = codegen.print_extern_call, &target](
                                           const tir::CallNode& call,
                                           const codegen::CExprPrinter& printer) {
      return print(call, printer, target);
    };
  pipeline.sources = codegen.sources;
  for (const std::string& path : codegen.source_files) {
    Expected<std::string> code = read_file(path);
    if (!code)
      return code.error().with_context(fmt::format("backend '{}': C source", spec.target_name));
    pipeline.sources.push_back({spec.target_name + "_source", std::move(*code)});
  }
  pipeline.include_dirs = codegen.include_dirs;
  pipeline.libraries = codegen.libraries;
  return pipeline;
}

}  // namespace

Expected<runtime::CCompilerOptions> host_compiler_options(const Target& host,
                                                          runtime::CCompilerOptions compiler) {
  UMA_TRY_ASSIGN(std::string mcpu, host.get_string("mcpu"));
  UMA_TRY_ASSIGN(std::string mattr, host.get_string("mattr"));
  if (!mcpu.empty()) compiler.cpu = mcpu;
  for (std::size_t begin = 0; begin < mattr.size();) {
    std::size_t end = std::min(mattr.find(',', begin), mattr.size());
    if (end > begin) compiler.features.push_back(mattr.substr(begin, end - begin));
    begin = end + 1;
  }
  return compiler;
}

Expected<BuildTargets> parse_targets(const Context& context,
                                     const std::vector<std::string>& texts) {
  std::vector<Target> backends;
  std::optional<Target> host;
  for (const std::string& text : texts) {
    UMA_TRY_ASSIGN(Target target, context.target_kinds().parse(text));
    auto fail = [&](std::string message) {
      return Error(fmt::format("target '{}': {}", text, message));
    };
    std::shared_ptr<const Backend> backend = context.backends().find(target.name());
    if (backend == nullptr)
      return fail(fmt::format("target kind '{}' has no backend", target.name()));
    if (backend->spec().check_target) {
      Status checked = backend->spec().check_target(target);
      if (!checked) return fail(checked.error().message());
    }
    if (Expected<tiling::MemoryModel> memories = memory_model(backend->spec(), target); !memories)
      return memories.error();
    if (target.is_host()) {
      if (host) return fail(fmt::format("a second host target (the first is '{}')", host->str()));
      host = std::move(target);
      continue;
    }
    for (const Target& earlier : backends)
      if (earlier.name() == target.name())
        return fail(fmt::format("target kind '{}' is named twice", target.name()));
    backends.push_back(std::move(target));
  }
  if (!host) {
    UMA_TRY_ASSIGN(Target target, context.target_kinds().parse(kHostTargetKind));
    host = std::move(target);
  }
  return BuildTargets{std::move(backends), std::move(*host)};
}

Status partition_for_targets(Module& module, const BuildTargets& targets,
                             const BuildOptions& options) {
  UMA_TRY_ASSIGN(std::vector<BoundBackend> backends, bind_backends(module.context(), targets));
  UMA_TRY(run_graph_phase(module, backends, GraphPhase::kPrePartitioning, options.passes));
  // The host takes what the others leave: it has no partition target.
  std::vector<BoundBackend> partitioned;
  std::copy_if(backends.begin(), backends.end(), std::back_inserter(partitioned),
               [](const BoundBackend& bound) { return !bound.backend->spec().host; });
  UMA_TRY_ASSIGN(std::vector<std::string> strict, strict_targets(partitioned, options));
  // The strict check reads the report: a build that asked for none gets one of its own.
  PartitionReport own_report;
  PartitionReport* report = options.report;
  if (report == nullptr && !strict.empty()) report = &own_report;
  if (report != nullptr) {
    std::vector<std::string> names;
    for (const BoundBackend& bound : partitioned) names.push_back(bound.target->name());
    report->begin(module, std::move(names));
  }
  if (!partitioned.empty()) {
    std::shared_ptr<const CostPolicy> costs;
    if (options.partition == PartitionPolicy::kCost) {
      const BackendSpec& host = backends.back().backend->spec();
      if (!host.cost)
        return make_error(
            "the cost policy compares each target's cost with the host's, but the host's "
            "backend '{}' declares no cost",
            host.target_name);
      costs = std::make_shared<const CostPolicy>(host.cost, targets.host);
    }
    PartitionOptions partition_options{.merge_regions = options.merge_regions,
                                       .bind_constants = options.bind_constants,
                                       .min_region_size = options.min_region_size,
                                       .host_regions = options.host_regions,
                                       .report = report};
    for (const BoundBackend& bound : partitioned) {
      partition_options.targets.push_back(bound.target->name());
      partition_options.resolved.push_back(std::make_shared<const PartitionTarget>(
          partition_target(bound.backend->spec(), *bound.target, costs)));
    }
    PassManager partition = create_partition_pipeline(partition_options, options.passes);
    UMA_TRY_ASSIGN(bool changed, partition.run(module));
    (void)changed;
    if (costs) UMA_TRY(costs->failure());
  }
  if (!strict.empty()) UMA_TRY(check_no_fallback(*report, strict));
  return run_graph_phase(module, backends, GraphPhase::kPostPartitioning0, options.passes);
}

Expected<HostBuild> build(Module& module, const BuildTargets& targets,
                          const BuildOptions& options) {
  // Binding checks every target (the host's threads too) before any work.
  UMA_TRY_ASSIGN(std::vector<BoundBackend> backends, bind_backends(module.context(), targets));
  UMA_TRY_ASSIGN(std::int64_t threads, targets.host.get_int("threads"));
  UMA_TRY(partition_for_targets(module, targets, options));
  std::chrono::steady_clock::time_point fuse_start = std::chrono::steady_clock::now();
  UMA_TRY(fuse_host_functions(module, options.passes));
  std::chrono::nanoseconds fuse_time = std::chrono::steady_clock::now() - fuse_start;
  UMA_TRY(run_graph_phase(module, backends, GraphPhase::kPostPartitioning1, options.passes));

  HostBuildOptions program_options{.threads = static_cast<int>(threads),
                                   .compiler = options.compiler,
                                   .passes = options.passes,
                                   .emit_c = options.emit_c,
                                   .functions_per_file = options.functions_per_file,
                                   .compile = options.compile};
  UMA_TRY_ASSIGN(program_options.compiler, host_compiler_options(targets.host, options.compiler));
  // The host's pipeline first: its C files come first.
  std::rotate(backends.begin(), backends.end() - 1, backends.end());
  std::vector<std::unique_ptr<lower::ComputeRegistry>> overrides(backends.size());
  for (std::size_t b = 0; b < backends.size(); ++b) {
    UMA_TRY_ASSIGN(TargetPipeline pipeline, target_pipeline(backends[b], overrides[b], options.report));
    program_options.targets.push_back(std::move(pipeline));
  }
  UMA_TRY_ASSIGN(HostBuild built, build_program(module, program_options));
  built.timings.insert(built.timings.begin(), {"fuse-ops", fuse_time});
  return built;
}

Expected<HostBuild> build(Module& module, const std::vector<std::string>& targets,
                          const BuildOptions& options) {
  UMA_TRY_ASSIGN(BuildTargets parsed, parse_targets(module.context(), targets));
  return build(module, parsed, options);
}

}  // namespace uma::build
