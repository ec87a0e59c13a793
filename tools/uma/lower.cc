// `uma lower`: read graph IR text (or an ONNX model), optionally run graph passes (fuse-ops),
// lower functions to the loop IR, optionally run loop-IR passes on them, and print the loop
// IR. What the golden tests of lowering and of loop-IR passes run.
#include <sstream>

#include "commands.h"
#include "context_setup.h"
#include "model_io.h"
#include "uma/lower/lower.h"
#include "uma/support/file.h"
#include "uma/tir/passes.h"
#include "uma/tir/printer.h"
#include "uma/tir/verifier.h"

namespace uma::tool {
namespace {

struct LowerCommandOptions {
  std::string input;
  std::string output = "-";
  std::string passes;
  std::string tir_passes;
  std::vector<std::string> print_after;
  std::vector<std::string> functions;
  ImportArgs import;
  std::vector<std::string> plugins;
};

// The functions to lower: those named, else every Primitive function, else @main.
Expected<std::vector<const Function*>> selected(const Module& module,
                                                const std::vector<std::string>& names) {
  std::vector<const Function*> functions;
  for (const std::string& name : names) {
    const Function* function = module.find_function(name);
    if (function == nullptr) return make_error("the module has no function @{}", name);
    functions.push_back(function);
  }
  if (!names.empty()) return functions;
  for (const Function* function : module.functions())
    if (function->attrs().has("Primitive")) functions.push_back(function);
  if (functions.empty()) {
    const Function* main = module.find_function("main");
    if (main == nullptr) return make_error("the module has no Primitive function and no @main");
    functions.push_back(main);
  }
  return functions;
}

Expected<std::string> lower_module(const LowerCommandOptions& options) {
  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  UMA_TRY_ASSIGN(auto module, load_model(context, options.input, options.import));
  // --print-after output goes ahead of the result, as in `uma opt`.
  std::ostringstream out;
  PipelineOptions pipeline_options{
      .verify_each = true, .print_after = options.print_after, .print_stream = &out};
  if (!options.passes.empty()) {
    UMA_TRY_ASSIGN(auto pipeline,
                   parse_pipeline(context.passes(), options.passes, pipeline_options));
    UMA_TRY_ASSIGN(bool changed, pipeline.run(*module));
    (void)changed;
  }
  tir::FuncPassRegistry tir_registry;
  tir::register_core_passes(tir_registry);
  UMA_TRY_ASSIGN(std::vector<tir::FuncPass> tir_passes,
                 tir_registry.create_pipeline(options.tir_passes));
  UMA_TRY_ASSIGN(std::vector<const Function*> functions, selected(*module, options.functions));
  std::ostringstream lowered;
  for (std::size_t i = 0; i < functions.size(); ++i) {
    UMA_TRY_ASSIGN(tir::PrimFunc func, lower::lower_function(*functions[i]));
    UMA_TRY(tir::verify(func));
    UMA_TRY_ASSIGN(func, tir::run_passes(std::move(func), tir_passes, pipeline_options));
    if (i) lowered << "\n";
    tir::print(lowered, func);
  }
  return out.str() + lowered.str();
}

}  // namespace

void add_lower_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LowerCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lower", "Lower graph functions to the loop IR and print it (after optional graph passes)");
  cmd->add_option("model", options->input, "ONNX model (.onnx) or graph IR text file")->required();
  cmd->add_option("-o,--output", options->output,
                  "Where to write the loop IR ('-' for standard output)");
  cmd->add_option("--passes", options->passes,
                  "Graph passes to run first, comma-separated (e.g. fuse-ops)");
  cmd->add_option("--tir-passes", options->tir_passes,
                  "Loop-IR passes to run on each lowered function, comma-separated, with options "
                  "in braces (e.g. flatten-buffers,simplify,unroll{max-extent=4})");
  cmd->add_option("--print-after", options->print_after,
                  "Print the IR after this graph or loop-IR pass ('all': after every pass)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--function", options->functions,
                  "A function to lower (repeatable); default: every Primitive function, else "
                  "@main")
      ->allow_extra_args(false);
  add_import_options(*cmd, options->import);
  add_plugin_option(*cmd, options->plugins);
  add_examples(*cmd,
               {"uma lower model.uma --passes=fuse-ops --tir-passes=flatten-buffers,simplify"});
  cmd->callback([options, &exit_code] {
    auto text = lower_module(*options);
    if (!text) {
      report(text.error());
      exit_code = 1;
      return;
    }
    if (Status written = write_file(options->output, *text); !written) {
      report(written.error());
      exit_code = 1;
    }
  });
}

}  // namespace uma::tool
