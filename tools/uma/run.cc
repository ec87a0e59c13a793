// `uma run`: run a model's @main (ONNX or graph IR text) through the reference interpreter,
// or compiled (--compiled for the host alone; --target for backends' targets, which take
// what they claim, the host the rest), checked against the interpreter with --check; print
// its outputs, optionally write them as .npy and compare them with expected tensors. A compiled
// build can be seen through: --print-after prints the IR after its graph and loop-IR passes,
// --timing times each stage and pass, --emit-c writes its C.
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.h"
#include "compile.h"
#include "context_setup.h"
#include "model_io.h"
#include "progress.h"
#include "uma/partition/report.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/interpreter.h"
#include "uma/runtime/memory_budget.h"
#include "uma/runtime/npy.h"
#include "uma/support/file.h"
#include "uma/support/printable.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"

namespace uma::tool {
namespace {

struct RunOptions {
  std::string model;
  ImportArgs import;
  std::vector<std::string> inputs;
  std::uint64_t seed = 0;
  std::size_t print_limit = 16;
  std::string output_dir;
  std::vector<std::string> expect;
  double rtol = 1e-3;
  double atol = 1e-7;
  bool compiled = false;
  bool check = false;
  // Override the tolerance of the backends that ran (default_tolerance's when none declares
  // one), when given.
  std::optional<double> check_rtol, check_atol;
  bool bisect = false;
  CompileOptions compile;
  std::vector<std::string> plugins;
  std::uint64_t memory_budget = 0;  // 0: the machine's memory
};

// The first `limit` elements, row-major, and the count of those left out.
std::string format_values(const Tensor& tensor, std::size_t limit) {
  std::string out = "[";
  auto count = static_cast<std::size_t>(tensor.num_elements());
  for (std::size_t i = 0; i < count && i < limit; ++i)
    out += fmt::format("{}{:.6g}", i ? ", " : "", tensor.get(static_cast<std::int64_t>(i)));
  if (count > limit) out += fmt::format(", ... ({} more)", count - limit);
  return out + "]";
}

// The arguments of @main: files named by --input (name=path, or a bare path for the next
// parameter in order), random tensors from the seed for the rest. Prints where each came from.
Expected<std::vector<TensorPtr>> make_inputs(const Function& main, const RunOptions& options) {
  std::vector<TensorPtr> inputs = random_inputs(main, options.seed);
  if (inputs.size() != main.num_params())
    return make_error("@main takes tuples, which --input cannot give; only random inputs work");
  std::vector<std::string> sources(main.num_params(),
                                   fmt::format("random (seed {})", options.seed));
  std::vector<bool> given(main.num_params(), false);
  std::size_t next_positional = 0;
  for (const std::string& text : options.inputs) {
    std::size_t index = main.num_params();
    std::string path = text;
    if (std::size_t equals = text.find('='); equals != std::string::npos) {
      for (std::size_t i = 0; i < main.num_params(); ++i)
        if (main.param(i)->name() == text.substr(0, equals)) index = i;
      if (index < main.num_params()) path = text.substr(equals + 1);
    }
    if (index == main.num_params()) {
      while (next_positional < given.size() && given[next_positional]) ++next_positional;
      if (text.find('=') != std::string::npos && !std::filesystem::exists(text))
        return make_error("--input {}: @main has no input named '{}'", text,
                          text.substr(0, text.find('=')));
      if (next_positional == given.size())
        return make_error("--input {}: @main has only {} input(s)", text, main.num_params());
      index = next_positional;
    }
    if (given[index]) return make_error("--input {}: input {} is given twice", text, index);
    UMA_TRY_ASSIGN(auto tensor, read_tensor_file(path));
    const Value* param = main.param(index);
    if (!(Type(tensor->type()) == param->type()))
      return make_error("{}: holds {}, but input {} (%{}) is {}", path,
                        to_string(Type(tensor->type())), index, printable(param->name()),
                        to_string(param->type()));
    inputs[index] = std::move(tensor);
    given[index] = true;
    sources[index] = fmt::format("from {}", path);
  }
  for (std::size_t i = 0; i < main.num_params(); ++i) {
    const Value* p = main.param(i);
    std::cout << fmt::format("input {} %{}: {}, {}\n", i, printable(p->name()),
                             to_string(p->type()), sources[i]);
  }
  return inputs;
}

// The tensors of the --input files given by name (name=path), for the import: a node that
// needs one of them at build time (a Reshape's shape) is built for it, so a model that takes
// such a value as an input runs without --bind.
Expected<std::map<std::string, TensorPtr, std::less<>>> named_inputs(const RunOptions& options) {
  std::map<std::string, TensorPtr, std::less<>> named;
  for (const std::string& text : options.inputs) {
    std::size_t equals = text.find('=');
    if (equals == std::string::npos || std::filesystem::exists(text)) continue;
    UMA_TRY_ASSIGN(named[text.substr(0, equals)], read_tensor_file(text.substr(equals + 1)));
  }
  return named;
}

// Compares each output with its --expect file; prints the errors. False on a mismatch.
Expected<bool> check_expected(const std::vector<TensorPtr>& outputs, const RunOptions& options) {
  if (options.expect.size() != outputs.size())
    return make_error("--expect gives {} file(s), but the model has {} output(s)",
                      options.expect.size(), outputs.size());
  bool all_ok = true;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    UMA_TRY_ASSIGN(auto expected, read_tensor_file(options.expect[i]));
    TensorComparison result = compare_tensors(*outputs[i], *expected, options.rtol, options.atol);
    if (!result.same_type) {
      std::cout << fmt::format("output {}: MISMATCH: computed {}, but {} holds {}\n", i,
                               to_string(Type(outputs[i]->type())), options.expect[i],
                               to_string(Type(expected->type())));
      all_ok = false;
      continue;
    }
    std::cout << fmt::format("output {}: max abs error {:.3g}, max rel error {:.3g}", i,
                             result.max_abs_error, result.max_rel_error);
    if (result.ok()) {
      std::cout << ": ok\n";
      continue;
    }
    all_ok = false;
    std::int64_t at = result.first_mismatch;
    std::cout << fmt::format(
        ": MISMATCH: {} of {} element(s) differ by more than atol {} + rtol {} * |expected|; "
        "first at index {}: {:.9g}, expected {:.9g}\n",
        result.mismatches, outputs[i]->num_elements(), options.atol, options.rtol, at,
        outputs[i]->get(at), expected->get(at));
  }
  return all_ok;
}

Status write_outputs(const std::vector<TensorPtr>& outputs, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error("{}: cannot create the folder: {}", printable_utf8(dir), ec.message());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    // Numbered, not named after the model's outputs: those names are arbitrary strings.
    std::string path = (std::filesystem::path(dir) / fmt::format("output_{}.npy", i)).string();
    UMA_TRY(write_npy_file(path, *outputs[i]));
    std::cout << fmt::format("wrote {}\n", printable_utf8(path));
  }
  return Status::success();
}

// A compiled run: its outputs, the functions of its build and where its nodes went.
struct CompiledRun {
  std::vector<TensorPtr> outputs;
  std::vector<build::BuiltFunction> functions;
  PartitionReport report;
};

// Builds @main for --target's targets (the host alone when none is given: one build either
// way), prints what the build did, and runs it.
Expected<CompiledRun> run_compiled(Module& module, const std::vector<TensorPtr>& inputs,
                                   const RunOptions& options) {
  CompiledRun result;
  UMA_TRY_ASSIGN(build::HostBuild built, compile_model(module, options.compile, &result.report));
  result.functions = built.built;
  UMA_TRY_ASSIGN(LoadedProgram loaded, load_program(built));
  auto start = std::chrono::steady_clock::now();
  UMA_TRY_ASSIGN(auto outputs, loaded.executor->run(inputs));
  std::chrono::nanoseconds run = std::chrono::steady_clock::now() - start;
  std::cout << fmt::format(
      "executor: load {:.1f} ms (library {:.1f} ms, init {:.1f} ms), run {:.1f} ms\n",
      to_ms(loaded.library + loaded.init), to_ms(loaded.library), to_ms(loaded.init), to_ms(run));
  result.outputs = std::move(outputs);
  return result;
}

// The tolerance of an output in `dtype`: the loosest of default_tolerance's and those the
// backends that ran a function of the build declare; --check-rtol and --check-atol override it.
Tolerance check_tolerance(const Context& context,
                          const std::vector<build::BuiltFunction>& functions, DType dtype,
                          const RunOptions& options) {
  Tolerance tolerance = default_tolerance(dtype);
  for (const build::BuiltFunction& function : functions)
    if (std::shared_ptr<const Backend> backend = context.backends().find(function.target))
      tolerance = loosest(tolerance, backend->spec().tolerance(dtype));
  return {.rtol = options.check_rtol.value_or(tolerance.rtol),
          .atol = options.check_atol.value_or(tolerance.atol)};
}

// Compares compiled outputs with the interpreter's by compare_scaled's rule, and prints the
// result of each when `print`. The first output that differs, described; nullopt when all
// match.
std::optional<std::string> check_against_reference(const Context& context, const CompiledRun& run,
                                                   const std::vector<TensorPtr>& reference,
                                                   const RunOptions& options, bool print) {
  std::optional<std::string> first;
  for (std::size_t i = 0; i < run.outputs.size(); ++i) {
    const Tensor& output = *run.outputs[i];
    Tolerance tolerance =
        check_tolerance(context, run.functions, reference[i]->type().dtype, options);
    TensorComparison result = compare_scaled(output, *reference[i], tolerance.rtol, tolerance.atol);
    std::string line = fmt::format("max abs error {:.3g} against max |reference| {:.3g}",
                                   result.max_abs_error, result.max_expected);
    if (result.ok()) {
      if (print) std::cout << fmt::format("check output {}: {}: ok\n", i, line);
      continue;
    }
    std::string mismatch =
        !result.same_type
            ? fmt::format("the interpreter gives {}", to_string(Type(reference[i]->type())))
            : fmt::format(
                  "{} of {} element(s) differ by more than {} * |reference| + {} * max "
                  "|reference|; first at index {}: {:.9g}, the interpreter gives {:.9g}",
                  result.mismatches, output.num_elements(), tolerance.rtol, tolerance.atol,
                  result.first_mismatch, output.get(result.first_mismatch),
                  reference[i]->get(result.first_mismatch));
    if (print) std::cout << fmt::format("check output {}: {}: MISMATCH: {}\n", i, line, mismatch);
    if (!first) first = fmt::format("output {}: {}", i, mismatch);
  }
  return first;
}

// The nodes of the model that went into `function`, as "op 'name'", for messages.
std::string nodes_of(const PartitionReport& report, const std::string& function) {
  std::vector<std::string> nodes;
  for (const NodeRecord& record : report.records())
    if (record.region == function)
      nodes.push_back(record.name.empty()
                          ? record.op
                          : fmt::format("{} '{}'", record.op, printable(record.name)));
  return fmt::format("{}", fmt::join(nodes, ", "));
}

// When compiled outputs differ from the reference: builds the model again with all the
// offloaded functions kept on the host, then with each alone left to its backend, and names
// those that make the outputs differ by themselves, with their nodes.
Status bisect(Context& context, const CompiledRun& failed, const std::vector<TensorPtr>& inputs,
              const std::vector<TensorPtr>& reference, const RunOptions& options) {
  std::vector<build::BuiltFunction> offloaded;
  for (const build::BuiltFunction& function : failed.functions)
    if (context.backends().find(function.target) != nullptr &&
        !context.backends().find(function.target)->spec().host)
      offloaded.push_back(function);
  if (offloaded.empty()) {
    std::cout << "bisect: no function was offloaded: the host's code differs from the "
                 "reference\n";
    return Status::success();
  }
  std::vector<std::string> all;
  for (const build::BuiltFunction& function : offloaded) all.push_back(function.name);
  // One build, its outputs checked; the IR printing and C files of the first build are not
  // repeated.
  Progress progress("bisect: build");
  std::size_t trials = 0;
  auto trial = [&](std::vector<std::string> host_regions) -> Expected<std::optional<std::string>> {
    progress.update(++trials, offloaded.size() + 1);
    UMA_TRY_ASSIGN(auto run_inputs, named_inputs(options));
    UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import, run_inputs));
    CompileOptions compile = options.compile;
    compile.print_after.clear();
    compile.emit_c.clear();
    compile.host_regions = std::move(host_regions);
    CompiledRun run;
    UMA_TRY_ASSIGN(build::HostBuild built, build_model(*module, compile, run.report));
    run.functions = built.built;
    UMA_TRY_ASSIGN(LoadedProgram loaded, load_program(built));
    UMA_TRY_ASSIGN(run.outputs, loaded.executor->run(inputs));
    progress.clear();
    return check_against_reference(context, run, reference, options, false);
  };
  std::cout << fmt::format(
      "bisect: {} offloaded function(s); building with all on the host, then with each alone "
      "on its backend\n",
      offloaded.size());
  UMA_TRY_ASSIGN(std::optional<std::string> on_host, trial(all));
  if (on_host) {
    std::cout << fmt::format(
        "bisect: all on the host: MISMATCH ({}): the host's code differs from the reference\n",
        *on_host);
    return Status::success();
  }
  std::cout << "bisect: all on the host: ok\n";
  std::vector<const build::BuiltFunction*> faulty;
  for (const build::BuiltFunction& function : offloaded) {
    std::vector<std::string> others;
    for (const std::string& name : all)
      if (name != function.name) others.push_back(name);
    UMA_TRY_ASSIGN(std::optional<std::string> alone, trial(others));
    std::cout << fmt::format("bisect: @{} on {} alone: {}\n", printable(function.name),
                             function.target, alone ? "MISMATCH (" + *alone + ")" : "ok");
    if (alone) faulty.push_back(&function);
  }
  for (const build::BuiltFunction* function : faulty)
    std::cout << fmt::format("bisect: at fault: @{} on {}, its node(s): {}\n",
                             printable(function->name), function->target,
                             nodes_of(failed.report, function->name));
  if (faulty.empty())
    std::cout << "bisect: no function differs alone: the offloaded functions differ together\n";
  return Status::success();
}

Expected<int> run(const RunOptions& options) {
  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  UMA_TRY_ASSIGN(auto run_inputs, named_inputs(options));
  UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import, run_inputs));
  UMA_TRY(runtime::check_memory_budget(
      *module, options.memory_budget ? options.memory_budget : runtime::default_memory_budget()));
  const Function* main = module->find_function("main");
  if (main == nullptr)
    return make_error("{}: the module has no function @main to run", options.model);
  UMA_TRY_ASSIGN(auto inputs, make_inputs(*main, options));
  std::vector<TensorPtr> reference;
  if (options.check) {
    // On the module as loaded: the build changes it (fuses its nodes into functions).
    UMA_TRY_ASSIGN(reference, interpret(*module, inputs));
  }
  CompiledRun compiled;
  if (options.compiled) {
    UMA_TRY_ASSIGN(compiled, run_compiled(*module, inputs, options));
  } else {
    UMA_TRY_ASSIGN(compiled.outputs, interpret(*module, inputs));
  }
  const std::vector<TensorPtr>& outputs = compiled.outputs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = *outputs[i];
    std::cout << fmt::format("output {}: {} = {}\n", i, to_string(Type(out.type())),
                             format_values(out, options.print_limit));
  }
  if (!options.output_dir.empty()) UMA_TRY(write_outputs(outputs, options.output_dir));
  bool matched = true;
  if (options.check) {
    matched = !check_against_reference(context, compiled, reference, options, true);
    if (!matched && options.bisect) UMA_TRY(bisect(context, compiled, inputs, reference, options));
  }
  if (!options.expect.empty()) {
    UMA_TRY_ASSIGN(bool expected, check_expected(outputs, options));
    matched &= expected;
  }
  return matched ? 0 : 1;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a model's @main with the reference interpreter, or compiled for the host");
  cmd->add_option("model", options->model, "ONNX model (.onnx) or graph IR text file")->required();
  add_import_options(*cmd, options->import);
  cmd->add_option(
         "--input", options->inputs,
         "An input tensor, name=path or path (next input in order); .npy or .pb. "
         "Inputs not given are random; one given by name also serves a node that needs its "
         "value at build time (a Reshape's shape), as --bind would")
      ->allow_extra_args(false);
  cmd->add_option("--seed", options->seed, "Seed of the random inputs");
  cmd->add_option("--print-limit", options->print_limit, "How many values of each output to print");
  cmd->add_option("--output-dir", options->output_dir, "Write the outputs there as output_<i>.npy");
  cmd->add_option("--expect", options->expect,
                  "Expected outputs in order (.npy or .pb); exit 1 when one differs")
      ->allow_extra_args(false);
  cmd->add_option("--rtol", options->rtol, "Relative tolerance of --expect");
  cmd->add_option("--atol", options->atol, "Absolute tolerance of --expect");
  cmd->add_flag("--compiled", options->compiled,
                "Compile @main for the host (generated C, built with the system C compiler) "
                "and run that");
  cmd->add_flag("--check", options->check,
                "With --compiled: run the reference interpreter too and compare; exit 1 when an "
                "element differs by more than --check-rtol times its value plus --check-atol "
                "times its output's max |value| (the real models' rule)");
  cmd->add_option("--check-rtol", options->check_rtol,
                  "Relative tolerance of --check (default: the loosest the backends that ran "
                  "declare for the output's dtype, else 1e-4; 1e-2 in f16 and bf16)");
  cmd->add_option("--check-atol", options->check_atol,
                  "Absolute tolerance of --check, times each output's max |value| (default: "
                  "as --check-rtol's, else 1e-5; 1e-2 in f16 and bf16)");
  cmd->add_flag("--bisect", options->bisect,
                "With --check, when the outputs differ: build again with the offloaded "
                "functions on the host, then each alone on its backend, and name those at "
                "fault with their nodes");
  cmd->add_option("--print-after", options->compile.print_after,
                  "Compiled: print the IR after this graph or loop-IR pass of the build ('lower': "
                  "each function as lowered, before the loop-IR passes; 'all': after every "
                  "pass), on every function it runs on")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--timing", options->compile.timing,
                "Compiled: print the time of each build stage and pass to standard error");
  cmd->add_option("--emit-c", options->compile.emit_c,
                  "Compiled: write the build's C files to this folder before compiling them");
  add_compile_options(*cmd, options->compile);
  cmd->add_option("--memory-budget", options->memory_budget,
                  "Refuse a model with a value of more bytes than this, before running it "
                  "(default: the machine's physical memory)");
  add_plugin_option(*cmd, options->plugins);
  add_examples(*cmd, {"uma run model.onnx --input input.npy --output-dir out/",
                      "uma run model.onnx --target \"vanilla --dimension=8\" --check "
                      "--report=table",
                      "uma run model.onnx --plugin libmy_npu.so --target my_npu --check --bisect"});
  cmd->callback([options, &exit_code] {
    const CompileOptions& compile = options->compile;
    if (options->bisect) options->check = true;
    if (options->check || !compile.targets.empty() || !compile.print_after.empty() ||
        compile.timing || !compile.emit_c.empty())
      options->compiled = true;
    exit_code = exit_code_of(run(*options));
  });
}

}  // namespace uma::tool
