// The stages of a build after the graph (see uma/uma/build_stages.h): build_program lists
// them in order.
#include "uma/uma/build_stages.h"

#include <algorithm>
#include <unordered_set>

#include "uma/lower/lower.h"
#include "uma/tir/passes.h"
#include "uma/tir/printer.h"

namespace uma::build {
namespace {

using Clock = std::chrono::steady_clock;

class StageTimer {
 public:
  explicit StageTimer(std::vector<StageTiming>& timings) : timings_(timings) {}
  // Ends the stage that started at the previous call (or at construction).
  void stage(std::string name) {
    Clock::time_point now = Clock::now();
    timings_.push_back({std::move(name), now - start_});
    start_ = now;
  }

 private:
  std::vector<StageTiming>& timings_;
  Clock::time_point start_ = Clock::now();
};

bool is_lowerable(const Function& function) {
  return function.attrs().has("Primitive") || function.attrs().has("Compiler");
}

// The pipeline of the target the function was partitioned for, or of the host for a fused
// one, if it is one of `targets`.
std::optional<std::size_t> target_of(const Function& function,
                                     const std::vector<TargetPipeline>& targets) {
  std::optional<std::string> compiler = function.attrs().string_or_none("Compiler");
  for (std::size_t t = 0; t < targets.size(); ++t)
    if (compiler ? targets[t].target == *compiler : targets[t].host) return t;
  return std::nullopt;
}

}  // namespace

Status fuse_host_functions(Module& module, const PipelineOptions& options) {
  PassManager passes(options);
  passes.add(create_fuse_ops_pass());
  UMA_TRY_ASSIGN(bool changed, passes.run(module));
  (void)changed;
  return Status::success();
}

Expected<std::vector<LoweredCall>> lower_calls(const Function& host,
                                               const std::vector<TargetPipeline>& targets,
                                               const PipelineOptions& options) {
  bool print = std::any_of(options.print_after.begin(), options.print_after.end(),
                           [](const std::string& p) { return p == "all" || p == "lower"; });
  std::vector<LoweredCall> lowered;
  std::unordered_set<const Function*> seen;
  for (const auto& node : host.nodes()) {
    if (!node->is_op("call") || !seen.insert(node->callee()).second) continue;
    const Function& callee = *node->callee();
    if (!is_lowerable(callee))
      return make_error(
          "{}: calls @{}, which is neither a fused (Primitive) nor a partitioned function; "
          "the host runs only those",
          node->location(), callee.name());
    std::optional<std::size_t> target = target_of(callee, targets);
    lower::LowerOptions lower_options;
    if (target) {
      lower_options.overrides = targets[*target].overrides;
      lower_options.composite_lowerings = &targets[*target].composite_lowerings;
      if (targets[*target].tiler) lower_options.tiler = &targets[*target].tiler;
      lower_options.max_immediate_elements = targets[*target].max_immediate_elements;
    }
    Expected<tir::PrimFunc> func = lower::lower_function(callee, lower_options);
    if (func && target && targets[*target].after_lower)
      func = targets[*target].after_lower(callee, std::move(*func));
    if (!func) return func.error().with_context(fmt::format("lowering @{}", callee.name()));
    if (print) {
      UMA_CHECK(options.print_stream != nullptr, "print_after needs a print_stream");
      *options.print_stream << "// -----// IR after lower //----- //\n";
      tir::print(*options.print_stream, *func);
    }
    lowered.push_back({&callee, std::move(*func), target});
  }
  return lowered;
}

Status run_tir_phases(std::vector<LoweredCall>& lowered, const tir::TirPipeline& core,
                      const std::vector<TargetPipeline>& targets, const PipelineOptions& options) {
  std::vector<tir::TirPipeline> pipelines;
  for (const TargetPipeline& target : targets) {
    tir::TirPipeline& pipeline = pipelines.emplace_back(core);
    for (std::size_t phase = 0; phase < tir::kNumTirPhases; ++phase)
      pipeline[phase].insert(pipeline[phase].end(), target.passes[phase].begin(),
                             target.passes[phase].end());
  }
  for (LoweredCall& call : lowered) {
    const tir::TirPipeline& pipeline = call.target ? pipelines[*call.target] : core;
    UMA_TRY_ASSIGN(call.func, tir::run_tir_pipeline(std::move(call.func), pipeline, options));
  }
  return Status::success();
}

Expected<GeneratedC> generate_sources(const std::vector<LoweredCall>& lowered,
                                      const codegen::CCodegenOptions& options,
                                      std::size_t functions_per_file,
                                      const std::vector<TargetPipeline>& targets) {
  UMA_CHECK(functions_per_file > 0, "functions_per_file is 0");
  GeneratedC generated;
  generated.symbols.resize(lowered.size());
  generated.init_symbols.resize(lowered.size());
  generated.fini_symbols.resize(lowered.size());
  std::unordered_set<std::string> symbols;
  // The host's functions, then each target's: a file holds one target's, with its hooks.
  for (std::size_t group = 0; group <= targets.size(); ++group) {
    std::optional<std::size_t> target;
    if (group > 0) target = group - 1;
    codegen::CCodegenOptions group_options = options;
    if (target) group_options.hooks = targets[*target].hooks;
    const std::string prefix = target && !targets[*target].host ? targets[*target].target : "host";
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < lowered.size(); ++i)
      if (lowered[i].target == target) members.push_back(i);
    for (std::size_t begin = 0, file = 0; begin < members.size();
         begin += functions_per_file, ++file) {
      std::vector<tir::PrimFunc> funcs;
      std::size_t end = std::min(members.size(), begin + functions_per_file);
      for (std::size_t m = begin; m < end; ++m) funcs.push_back(lowered[members[m]].func);
      UMA_TRY_ASSIGN(codegen::CSource source, codegen::generate_c(funcs, group_options));
      for (std::size_t f = 0; f < source.functions.size(); ++f) {
        const codegen::CFunction& function = source.functions[f];
        // Each file makes its own symbols unique; across files two names that sanitize
        // alike would clash when linked.
        if (!symbols.insert(function.symbol).second)
          return make_error("func @{}: its C symbol '{}' is another function's too", function.name,
                            function.symbol);
        // Its init and fini are unique within the file too, and checked across files.
        for (const std::string* symbol : {&function.init_symbol, &function.fini_symbol})
          if (!symbol->empty() && !symbols.insert(*symbol).second)
            return make_error("func @{}: its C symbol '{}' is another function's too",
                              function.name, *symbol);
        generated.symbols[members[begin + f]] = function.symbol;
        generated.init_symbols[members[begin + f]] = function.init_symbol;
        generated.fini_symbols[members[begin + f]] = function.fini_symbol;
      }
      generated.files.push_back({fmt::format("{}_{}", prefix, file), std::move(source.code)});
    }
  }
  return generated;
}

Expected<HostBuild> build_program(const Module& module, const HostBuildOptions& options) {
  if (options.threads < 1)
    return make_error("the thread count must be at least 1, not {}", options.threads);
  const Function* main = module.find_function("main");
  if (main == nullptr) return make_error("the module has no function @main to build");
  const bool parallel = options.threads > 1;
  HostBuild build;
  StageTimer timer(build.timings);

  // Loop IR: each called function lowered, then TIR_PHASE_0..3.
  UMA_TRY_ASSIGN(std::vector<LoweredCall> lowered, lower_calls(*main, options.targets, options.passes));
  timer.stage("lower");
  const codegen::CCodegenOptions codegen_options{.openmp = parallel};
  tir::TirPipeline pipeline = tir::core_tir_pipeline({.parallel = parallel});
  // Intermediates too large for the C stack become workspace from the arena: the functions
  // then allocate nothing when they run.
  pipeline[3].push_back(
      tir::lift_allocations_pass(static_cast<std::int64_t>(codegen_options.stack_alloc_limit) + 1));
  UMA_TRY(run_tir_phases(lowered, pipeline, options.targets, options.passes));
  timer.stage("tir");
  // C source.
  UMA_TRY_ASSIGN(
      GeneratedC generated,
      generate_sources(lowered, codegen_options, options.functions_per_file, options.targets));
  timer.stage("codegen");
  // The host function as calls into the generated code, with the arena and weights.
  UMA_TRY_ASSIGN(PlannedHost planned, plan_host(*main, lowered));
  timer.stage("plan");
  // A shared library, loaded; the calls get their functions.
  runtime::CCompilerOptions compiler_options = options.compiler;
  compiler_options.openmp |= parallel;
  for (const TargetPipeline& target : options.targets) {
    generated.files.insert(generated.files.end(), target.sources.begin(), target.sources.end());
    for (const std::string& dir : target.include_dirs)
      compiler_options.compile_flags.push_back("-I" + dir);
    compiler_options.libraries.insert(compiler_options.libraries.begin(), target.libraries.begin(),
                                      target.libraries.end());
  }
  if (!options.emit_c.empty()) UMA_TRY(runtime::write_c_sources(generated.files, options.emit_c));
  if (!options.compile) {
    build.program = std::move(planned.program);
    build.sources = std::move(generated.files);
    return build;
  }
  runtime::CCompiler compiler(compiler_options);
  runtime::HostProgram& program = *planned.program;
  if (!generated.files.empty()) {
    UMA_TRY_ASSIGN(std::string path, compiler.build_shared_library(generated.files));
    timer.stage("compile");
    Expected<runtime::Library> library = runtime::Library::open(path);
    if (!library) {
      // A cached library that matches its digest but does not load (built by a compiler
      // since broken, say) is built anew once, rather than failing every build from now on.
      compiler_options.refresh = true;
      UMA_TRY_ASSIGN(path,
                     runtime::CCompiler(compiler_options).build_shared_library(generated.files));
      library = runtime::Library::open(path);
    }
    if (!library) return library.error();
    auto shared_library = std::make_shared<const runtime::Library>(std::move(*library));
    for (std::size_t c = 0; c < program.calls.size(); ++c) {
      runtime::HostCall& call = program.calls[c];
      std::size_t callee = planned.callee[c];
      UMA_TRY_ASSIGN(call.function, shared_library->function(generated.symbols[callee]));
      if (!generated.init_symbols[callee].empty()) {
        UMA_TRY_ASSIGN(call.init, shared_library->function(generated.init_symbols[callee]));
      }
      if (!generated.fini_symbols[callee].empty()) {
        UMA_TRY_ASSIGN(call.fini, shared_library->function(generated.fini_symbols[callee]));
      }
    }
    program.library = std::move(shared_library);
  } else {
    timer.stage("compile");  // nothing to compile: the outputs are inputs and weights
  }
  program.threads = options.threads;
  timer.stage("load");

  build.memory = {planned.memory.offsets.size(), planned.memory.arena_size,
                  planned.memory.lower_bound, planned.memory.total};
  build.functions = lowered.size();
  for (std::size_t i = 0; i < lowered.size(); ++i)
    build.built.push_back(
        {lowered[i].callee->name(), generated.symbols[i],
         lowered[i].target ? options.targets[*lowered[i].target].target : std::string("c")});
  build.compiler_stats = compiler.stats();
  build.sources = std::move(generated.files);
  build.program = std::move(planned.program);
  return build;
}

}  // namespace uma::build
