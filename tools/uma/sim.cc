// `uma sim`: what a model costs on a simulated accelerator (npu_sim, or any backend with a
// performance model). Builds @main for the targets, runs it once on random inputs (the
// functional model computing every offloaded tile and counting what it does), and prints per
// layer the performance model's cycles (compute, DMA, stall), roofline and bound,
// utilisation, host-memory traffic and energy, whether the run counted what the model
// predicted, and the totals. --json writes the same for scripts and plots; --emit-scalesim
// writes SCALE-Sim's config and topology of the same layers for cross-checking.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "compile.h"
#include "context_setup.h"
#include "model_io.h"
#include "uma/sim/scalesim.h"
#include "uma/sim/simulation.h"
#include "uma/support/file.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"

namespace uma::tool {
namespace {

struct SimOptions {
  std::string model;
  ImportArgs import;
  std::uint64_t seed = 0;
  std::string json;
  std::string scalesim;
  CompileOptions compile;
  std::vector<std::string> plugins;
};

// SCALE-Sim's array from the first target that has one (rows, cols, dataflow).
Expected<sim::ScaleSimArray> scalesim_array(const Context& context,
                                            const std::vector<std::string>& targets) {
  UMA_TRY_ASSIGN(build::BuildTargets parsed, build::parse_targets(context, targets));
  for (const Target& target : parsed.backends) {
    if (!target.kind().find_attr("rows") || !target.kind().find_attr("dataflow")) continue;
    sim::ScaleSimArray array;
    UMA_TRY_ASSIGN(array.rows, target.get_int("rows"));
    UMA_TRY_ASSIGN(array.cols, target.get_int("cols"));
    UMA_TRY_ASSIGN(array.dataflow, target.get_string("dataflow"));
    UMA_TRY_ASSIGN(array.ifmap_kb, target.get_int("ifmap_kb"));
    UMA_TRY_ASSIGN(array.filter_kb, target.get_int("filter_kb"));
    UMA_TRY_ASSIGN(array.ofmap_kb, target.get_int("ofmap_kb"));
    UMA_TRY_ASSIGN(std::int64_t bytes, target.get_int("dma_bytes_per_cycle"));
    array.words_per_cycle = std::max<std::int64_t>(bytes / 4, 1);  // f32 words
    return array;
  }
  return make_error("--emit-scalesim: no target is a systolic array (rows, cols, dataflow, "
                    "ifmap_kb, filter_kb, ofmap_kb), as npu_sim is");
}

Status emit_scalesim(const Context& context, const SimOptions& options, const Module& module,
                     const sim::Simulation& simulation) {
  namespace fs = std::filesystem;
  UMA_TRY_ASSIGN(sim::ScaleSimArray array, scalesim_array(context, options.compile.targets));
  UMA_TRY_ASSIGN(std::string topology, sim::scalesim_topology(module, simulation));
  std::error_code ec;
  fs::create_directories(options.scalesim, ec);
  if (ec) return make_error("{}: cannot create the folder: {}", options.scalesim, ec.message());
  std::string run = fs::path(options.model).stem().string();
  UMA_TRY(write_file((fs::path(options.scalesim) / "scale.cfg").string(),
                     sim::scalesim_config(array, run.empty() ? "uma" : run)));
  UMA_TRY(write_file((fs::path(options.scalesim) / "topology.csv").string(), topology));
  std::cout << fmt::format("wrote SCALE-Sim's scale.cfg and topology.csv to {}\n",
                           options.scalesim);
  return Status::success();
}

Expected<int> simulate(const SimOptions& options) {
  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import));
  UMA_TRY_ASSIGN(std::vector<TensorPtr> inputs,
                 random_main_inputs(*module, options.model, options.seed, "sim"));

  PartitionReport report;
  UMA_TRY_ASSIGN(build::HostBuild built, build_model(*module, options.compile, report));
  UMA_TRY(write_report(report, options.compile.report));
  UMA_TRY_ASSIGN(LoadedProgram loaded, load_program(built));
  UMA_TRY_ASSIGN(std::vector<TensorPtr> outputs, loaded.executor->run(inputs));
  (void)outputs;

  std::map<std::string, std::vector<std::string>> events;
  for (const std::string& target : report.targets())
    if (auto backend = context.backends().find(target)) events[target] = backend->spec().events;
  UMA_TRY_ASSIGN(sim::Simulation simulation, sim::simulate(report, events, loaded.executor.get()));
  if (simulation.layers.empty())
    return make_error("{}: no layer ran on a target with a performance model (npu_sim has one)",
                      options.model);
  if (options.json != "-") std::cout << sim::to_table(simulation);
  if (!options.json.empty()) {
    std::string json = sim::to_json(simulation);
    if (options.json == "-")
      std::cout << json;
    else
      UMA_TRY(write_file(options.json, json));
  }
  if (!options.scalesim.empty()) UMA_TRY(emit_scalesim(context, options, *module, simulation));
  // A difference is a bug of the backend: its two models of one design disagree.
  if (std::vector<std::string> differ = simulation.disagreements(); !differ.empty()) {
    std::string lines;
    for (const std::string& d : differ) lines += "\n  " + d;
    return make_error("the functional model counted other events than the performance model "
                      "estimated:{}",
                      lines);
  }
  return 0;
}

}  // namespace

void add_sim_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SimOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sim", "Simulate a model on an accelerator's models: cycles, traffic and energy per layer");
  add_examples(*cmd, {"uma sim resnet18.onnx --target \"npu_sim --rows=16 --cols=16\"",
                      "uma sim kws.onnx --target \"npu_sim --dataflow=os --ifmap_kb=16\" --json "
                      "sim.json --emit-scalesim scalesim/"});
  cmd->add_option("model", options->model, "ONNX model (.onnx) or graph IR text file")->required();
  add_import_options(*cmd, options->import);
  cmd->add_option("--seed", options->seed, "Seed of the random inputs of the run");
  cmd->add_option("--json", options->json,
                  "Write every figure per layer and the totals to this file as JSON (- for "
                  "standard output, instead of the table)");
  cmd->add_option("--emit-scalesim", options->scalesim,
                  "Write SCALE-Sim's scale.cfg and topology.csv of the same layers to this folder");
  add_compile_options(*cmd, options->compile);
  add_plugin_option(*cmd, options->plugins);
  cmd->callback([options, &exit_code] { exit_code = exit_code_of(simulate(*options)); });
}

}  // namespace uma::tool
