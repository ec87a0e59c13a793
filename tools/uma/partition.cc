// `uma partition`: partition a model (ONNX or graph IR text) for backends' targets (with
// their graph passes of PRE_PARTITIONING and POST_PARTITIONING_0) or partition targets
// without a backend (the tests', from a plugin), and say where every node went and why: the
// partitioned module as graph IR text, and the partition report as a table, JSON or a Graphviz
// picture. With --check, the reference interpreter runs @main before and after partitioning, and
// the outputs must be the same bits.
#include <iostream>

#include "commands.h"
#include "context_setup.h"
#include "model_io.h"
#include "policy_option.h"
#include "python_plugin.h"
#include "report_output.h"
#include "target_option.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/runtime/interpreter.h"
#include "uma/support/file.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"

namespace uma::tool {
namespace {

struct PartitionCommandOptions {
  std::string model;
  std::vector<std::string> targets;
  bool merge_regions = true;
  bool bind_constants = true;
  std::int64_t min_region_size = 0;
  ImportArgs import;
  std::string output;
  bool elide_data = false;
  ReportOutput report{.format = "table"};
  PolicyOptions policy;
  bool check = false;
  std::uint64_t seed = 0;
  std::vector<std::string> plugins;
};

// The first word of a target's text: its kind or partition target's name.
std::string target_name(const std::string& text) {
  std::size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find(' ', begin) - begin);
}

// Partitions for backends' targets when the targets name backends, else for partition
// targets.
Status partition_module(Module& module, const PartitionCommandOptions& options,
                        PartitionReport& report) {
  std::vector<std::string> names;
  std::size_t backends = 0;
  for (const std::string& text : options.targets) {
    names.push_back(target_name(text));
    if (module.context().backends().find(names.back()) != nullptr) ++backends;
  }
  if (backends == 0) {
    if (!options.policy.is_default())
      return make_error(
          "--partition=cost and --no-fallback need backends' targets, which declare costs and "
          "attributes; partition targets have neither");
    report.begin(module, names);
    PartitionOptions partition_options{.targets = options.targets,
                                       .merge_regions = options.merge_regions,
                                       .bind_constants = options.bind_constants,
                                       .min_region_size = options.min_region_size,
                                       .report = &report};
    UMA_TRY_ASSIGN(bool changed, partition(module, partition_options));
    (void)changed;
    return python_callback_failure();
  }
  if (backends != names.size())
    return make_error("the targets mix backends' targets and partition targets: use one kind");
  UMA_TRY_ASSIGN(build::BuildTargets targets,
                 build::parse_targets(module.context(), options.targets));
  build::BuildOptions build_options{.merge_regions = options.merge_regions,
                                    .bind_constants = options.bind_constants,
                                    .min_region_size = options.min_region_size,
                                    .partition = options.policy.partition,
                                    .no_fallback = options.policy.no_fallback,
                                    .report = &report};
  UMA_TRY(build::partition_for_targets(module, targets, build_options));
  return python_callback_failure();
}

// Runs @main on the seed's random inputs.
Expected<std::vector<TensorPtr>> run_main(const Module& module, const std::string& path,
                                          std::uint64_t seed) {
  const Function* main = module.find_function("main");
  if (main == nullptr) return make_error("{}: the module has no function @main to run", path);
  return interpret(module, random_inputs(*main, seed));
}

// Prints one line per output; false when one differs in any bit.
bool same_bits(const std::vector<TensorPtr>& before, const std::vector<TensorPtr>& after) {
  bool all_same = before.size() == after.size();
  if (!all_same)
    std::cout << fmt::format("check: MISMATCH: {} output(s) before partitioning, {} after\n",
                             before.size(), after.size());
  for (std::size_t i = 0; i < before.size() && i < after.size(); ++i) {
    bool same = before[i]->same_contents(*after[i]);
    std::cout << fmt::format("check: output {}: {}\n", i,
                             same ? "bit-identical" : "MISMATCH: the partitioned module differs");
    all_same &= same;
  }
  return all_same;
}

Expected<int> partition_command(const PartitionCommandOptions& options) {
  if (options.output == "-" && options.report.format != "none" && options.report.file == "-")
    return make_error(
        "-o - and the report would both go to standard output; give --report-file or "
        "--report=none");
  if (options.min_region_size < 0)
    return make_error("--min-region-size must not be negative, not {}", options.min_region_size);
  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import));

  std::vector<TensorPtr> before;
  if (options.check) {
    UMA_TRY_ASSIGN(before, run_main(*module, options.model, options.seed));
  }

  PartitionReport report;
  UMA_TRY(partition_module(*module, options, report));
  if (Status verified = verify(*module); !verified)
    return verified.error().with_context("the partitioned module is not valid");

  if (!options.output.empty())
    UMA_TRY(write_file(options.output, to_string(*module, {.elide_data = options.elide_data})));
  UMA_TRY(write_report(report, options.report));
  if (!options.check) return 0;
  UMA_TRY_ASSIGN(auto after, run_main(*module, options.model, options.seed));
  return same_bits(before, after) ? 0 : 1;
}

}  // namespace

void add_partition_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PartitionCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "partition",
      "Partition a model for backends' targets or partition targets and report where each "
      "node went");
  cmd->add_option("model", options->model, "ONNX model (.onnx) or graph IR text file")->required();
  add_target_option(*cmd, options->targets,
                    "A backend's target (vanilla, \"ultra_trail --dimension=4\", a plugin's) or "
                    "a partition target without a backend (the tests' test_conv, test_dense, "
                    "test_elem, from their plugin)",
                    /*required=*/true);
  cmd->add_flag("!--no-merge-regions", options->merge_regions,
                "Leave one region per claimed node or composite");
  cmd->add_option("--bind-constants", options->bind_constants,
                  "Bind the constants at a region's boundary into its function (true) or pass "
                  "them as arguments (false)");
  cmd->add_option("--min-region-size", options->min_region_size,
                  "Regions with fewer nodes go back to the host");
  add_policy_options(*cmd, options->policy);
  add_import_options(*cmd, options->import);
  cmd->add_option("-o,--output", options->output,
                  "Write the partitioned module there as graph IR text ('-' for standard output)");
  cmd->add_flag("--elide-data", options->elide_data,
                "Leave the bytes of large tensors out of the module's text");
  add_report_options(*cmd, options->report, "Report format");
  cmd->add_flag("--check", options->check,
                "Run @main with the reference interpreter before and after partitioning, on "
                "random inputs, and exit 1 unless the outputs are bit-identical");
  cmd->add_option("--seed", options->seed, "Seed of the random inputs of --check");
  add_plugin_option(*cmd, options->plugins);
  add_examples(*cmd, {"uma partition model.onnx --target vanilla --target ultra_trail "
                      "--report=table -o partitioned.uma"});
  cmd->callback([options, &exit_code] { exit_code = exit_code_of(partition_command(*options)); });
}

}  // namespace uma::tool
