// `uma bench`: time a model's compiled @main. Builds it as `uma run --compiled` does, runs
// the executor alone on random inputs allocated once, W warm-up runs then K timed ones, and
// prints the load time, the warm-up time, the runs' median, minimum, maximum and spread, and
// GFLOP/s where the model's multiply-accumulates are known. --profile times each call of the
// timed runs and prints their time per op family; --json writes every figure for scripts.
#include <algorithm>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "compile.h"
#include "context_setup.h"
#include "model_io.h"
#include "uma/op/cost.h"
#include "uma/uma/profile.h"

namespace uma::tool {
namespace {

struct BenchOptions {
  std::string model;
  ImportArgs import;
  std::uint64_t seed = 0;
  int runs = 10;
  int warmup = 3;
  bool profile = false;
  std::string json;
  CompileOptions compile;
  std::vector<std::string> plugins;
};

using Clock = std::chrono::steady_clock;

// The multiply-accumulates of one run of @main, counted on the module before the build.
std::int64_t model_macs(const Function& main) {
  std::int64_t macs = 0;
  for (const auto& node : main.nodes()) macs = saturating_add(macs, node_cost(*node).macs);
  return macs;
}

double gflops(std::int64_t macs, double ms) { return ms > 0 ? 2.0 * macs / (ms * 1e6) : 0.0; }

// The profile of the timed runs, per run, and the same rows for --json.
nlohmann::json print_profile(const std::vector<FamilyProfile>& families, int runs) {
  std::chrono::nanoseconds total{0};
  for (const FamilyProfile& family : families) total += family.time;
  std::cout << fmt::format("profile of the {} timed run(s), mean per run, by op family:\n", runs)
            << fmt::format("  {:<14} {:>7} {:>10} {:>7} {:>9}\n", "family", "calls", "ms", "share",
                           "GFLOP/s");
  nlohmann::json rows = nlohmann::json::array();
  for (const FamilyProfile& family : families) {
    double ms = to_ms(family.time) / runs;
    double share = total.count() ? 100.0 * static_cast<double>(family.time.count()) /
                                       static_cast<double>(total.count())
                                 : 0.0;
    std::string rate =
        family.macs > 0 ? fmt::format("{:.2f}", gflops(family.macs / runs, ms)) : "-";
    std::cout << fmt::format("  {:<14} {:>7} {:>10.3f} {:>6.1f}% {:>9}\n",
                             op_family_name(family.family), family.calls / runs, ms, share, rate);
    rows.push_back({{"family", op_family_name(family.family)},
                    {"calls", family.calls / runs},
                    {"ms", ms},
                    {"macs", family.macs / runs}});
  }
  std::cout << fmt::format("  {:<14} {:>7} {:>10.3f} {:>6.1f}%\n", "total", "", to_ms(total) / runs,
                           100.0);
  return rows;
}

Expected<int> bench(const BenchOptions& options) {
  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import));
  UMA_TRY_ASSIGN(std::vector<TensorPtr> inputs,
                 random_main_inputs(*module, options.model, options.seed, "bench"));
  std::int64_t macs = model_macs(*module->find_function("main"));

  UMA_TRY_ASSIGN(build::HostBuild built, compile_model(*module, options.compile));
  UMA_TRY_ASSIGN(LoadedProgram loaded, load_program(built));
  runtime::Executor& executor = *loaded.executor;
  std::cout << fmt::format("load: {:.1f} ms (library {:.1f} ms, init {:.1f} ms)\n",
                           to_ms(loaded.library + loaded.init), to_ms(loaded.library),
                           to_ms(loaded.init));

  // The inputs and outputs are allocated once: the runs time the executor alone.
  std::vector<const void*> input_data;
  for (const TensorPtr& input : inputs) input_data.push_back(input->bytes().data());
  std::vector<std::shared_ptr<Tensor>> outputs;
  std::vector<void*> output_data;
  for (const TensorType& type : built.program->outputs) {
    outputs.push_back(std::make_shared<Tensor>(type));
    output_data.push_back(outputs.back()->bytes().data());
  }
  auto time_runs = [&](int count) -> Expected<std::vector<double>> {
    std::vector<double> ms;
    for (int run = 0; run < count; ++run) {
      Clock::time_point start = Clock::now();
      UMA_TRY(executor.run(input_data, output_data));
      ms.push_back(to_ms(Clock::now() - start));
    }
    return ms;
  };

  UMA_TRY_ASSIGN(std::vector<double> warmup, time_runs(options.warmup));
  double warmup_total = 0;
  for (double ms : warmup) warmup_total += ms;
  if (!warmup.empty())
    std::cout << fmt::format("warm-up: {} run(s) in {:.3f} ms (first {:.3f} ms)\n", warmup.size(),
                             warmup_total, warmup.front());
  executor.set_profiling(options.profile);
  UMA_TRY_ASSIGN(std::vector<double> runs, time_runs(options.runs));
  std::vector<double> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  // The median of an even count: the mean of the two middle runs.
  std::size_t half = sorted.size() / 2;
  double median = sorted.size() % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
  double min = sorted.front(), max = sorted.back();
  int threads = built.program->threads;
  std::cout << fmt::format(
      "runs: {} on {} thread(s): median {:.3f} ms, min {:.3f} ms, max {:.3f} ms, spread {:.1f}% "
      "(max - min over median)\n",
      runs.size(), threads, median, min, max, median > 0 ? 100 * (max - min) / median : 0.0);
  if (macs > 0)
    std::cout << fmt::format(
        "work: {:.4g} GFLOP per run (2 x the multiply-accumulates of convolutions, dense and "
        "matmul): {:.2f} GFLOP/s at the median, {:.2f} at the min\n",
        2.0 * macs / 1e9, gflops(macs, median), gflops(macs, min));

  nlohmann::json report = {{"model", options.model},
                           {"threads", threads},
                           {"load_ms", to_ms(loaded.library + loaded.init)},
                           {"warmup_ms", warmup},
                           {"runs_ms", runs},
                           {"median_ms", median},
                           {"min_ms", min},
                           {"max_ms", max},
                           {"macs", macs}};
  if (options.profile) {
    UMA_TRY_ASSIGN(std::vector<FamilyProfile> families,
                   profile_by_family(*module, executor.call_timings()));
    report["profile"] = print_profile(families, options.runs);
  }
  if (!options.json.empty()) {
    std::ofstream out(options.json);
    // A file name need not be UTF-8: its bytes that are not become U+FFFD in the JSON.
    out << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) return make_error("{}: cannot write the JSON report", options.json);
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time a model's compiled @main: warm-up, then the median, min and spread of runs");
  cmd->footer(
      "Example:\n"
      "  uma bench resnet50.onnx --threads 2 --runs 20 --warmup 5 --profile\n"
      "Only the executor's runs are timed, on random inputs (--seed) allocated once; the\n"
      "build and the load are timed apart. Exit code: 0 ok, 1 error, 2 bad usage.");
  cmd->add_option("model", options->model, "ONNX model (.onnx) or graph IR text file")->required();
  add_import_options(*cmd, options->import);
  cmd->add_option("--seed", options->seed, "Seed of the random inputs");
  cmd->add_option("--runs", options->runs, "Timed runs")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--warmup", options->warmup, "Untimed runs before them")
      ->check(CLI::Range(0, 1'000'000))
      ->capture_default_str();
  cmd->add_flag("--profile", options->profile,
                "Time each call of the timed runs and print the time per op family (conv kxk, "
                "conv 1x1, depthwise, dense/matmul, elementwise, pool, softmax/norm, layout, "
                "other)");
  cmd->add_option("--json", options->json,
                  "Write the figures (every run's time, the profile) to this file as JSON");
  add_compile_options(*cmd, options->compile);
  add_plugin_option(*cmd, options->plugins);
  cmd->callback([options, &exit_code] { exit_code = exit_code_of(bench(*options)); });
}

}  // namespace uma::tool
