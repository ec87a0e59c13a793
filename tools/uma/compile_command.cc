// `uma compile`: build a model's @main for targets, as `uma run --target` does, and keep what
// the build made in a folder: the shared library of the generated functions, their C, the
// partition report (report.json, report.dot, and report.html with the graph and the build's
// times) and the time of each phase of the build (build.json).
#include <cctype>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "compile.h"
#include "context_setup.h"
#include "model_io.h"
#include "report_html.h"
#include "uma/runtime/library.h"
#include "uma/support/file.h"
#include "uma/support/printable.h"

namespace uma::tool {
namespace {

using Clock = std::chrono::steady_clock;

struct CompileCommandOptions {
  std::string model;
  std::string output;
  ImportArgs import;
  CompileOptions compile;
  std::vector<std::string> plugins;
};

// The phases of the build, in order: the import, what build::build does before its timed
// stages (partitioning and the backends' graph passes), then its stages.
std::vector<std::pair<std::string, double>> phases(std::chrono::nanoseconds import,
                                                   std::chrono::nanoseconds build,
                                                   const std::vector<build::StageTiming>& stages) {
  std::chrono::nanoseconds staged{0};
  for (const build::StageTiming& t : stages) staged += t.elapsed;
  std::vector<std::pair<std::string, double>> rows{{"import", to_ms(import)},
                                                   {"partition", to_ms(build - staged)}};
  for (const build::StageTiming& t : stages) rows.emplace_back(t.stage, to_ms(t.elapsed));
  return rows;
}

// The library's name after the model file's: its stem with every byte but letters, digits,
// '.', '-' and '_' made '_', so that no control byte or shell character reaches a file name.
std::string library_stem(const std::string& model) {
  std::string stem = std::filesystem::path(model).stem().string();
  for (char& c : stem) {
    auto u = static_cast<unsigned char>(c);
    if (!(u < 0x80 && (std::isalnum(u) || c == '.' || c == '-' || c == '_'))) c = '_';
  }
  return stem.empty() ? "model" : stem;
}

Expected<int> compile_command(CompileCommandOptions options) {
  namespace fs = std::filesystem;
  const fs::path dir = options.output;
  // An existing folder is refused rather than mixed with an earlier build's files.
  if (fs::exists(dir) && !(fs::is_directory(dir) && fs::is_empty(dir)))
    return make_error("{}: exists and is not an empty folder; give a new one to -o",
                      printable_utf8(options.output));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return make_error("{}: cannot create the folder: {}", printable_utf8(options.output),
                      ec.message());

  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  Clock::time_point start = Clock::now();
  UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import));
  std::chrono::nanoseconds import = Clock::now() - start;

  options.compile.emit_c = (dir / "c").string();
  PartitionReport report;
  start = Clock::now();
  UMA_TRY_ASSIGN(build::HostBuild built, compile_model(*module, options.compile, &report));
  std::chrono::nanoseconds build_time = Clock::now() - start;

  std::string library;
  if (built.program->library) {
    library = (dir / ("lib" + library_stem(options.model) + ".so")).string();
    fs::copy_file(built.program->library->path(), library, ec);
    if (ec)
      return make_error("{}: cannot copy the library {} there: {}", printable_utf8(library),
                        built.program->library->path(), ec.message());
    std::cout << fmt::format("wrote {}\n", printable_utf8(library));
  }
  std::vector<std::pair<std::string, double>> times = phases(import, build_time, built.timings);
  std::string json_path = (dir / "report.json").string(), dot_path = (dir / "report.dot").string(),
              html_path = (dir / "report.html").string();
  UMA_TRY(write_file(json_path, report.to_json()));
  UMA_TRY(write_file(dot_path, report.to_dot()));
  UMA_TRY(write_file(html_path, report_html(report, options.model, times, dot_path)));
  std::cout << fmt::format("wrote {}, {} and {}\n", printable_utf8(json_path),
                           printable_utf8(dot_path), printable_utf8(html_path));

  nlohmann::json phase_rows = nlohmann::json::array();
  for (const auto& [phase, ms] : times) phase_rows.push_back({{"phase", phase}, {"ms", ms}});
  nlohmann::json functions = nlohmann::json::array();
  for (const build::BuiltFunction& function : built.built)
    functions.push_back(
        {{"function", function.name}, {"symbol", function.symbol}, {"target", function.target}});
  nlohmann::json summary = {
      {"model", options.model},
      {"targets", options.compile.targets},
      {"library",
       library.empty() ? nlohmann::json() : nlohmann::json(fs::path(library).filename())},
      {"functions", functions},
      {"phases", phase_rows},
      {"arena_bytes", built.memory.arena_size},
      {"weights_bytes", built.program->weights.size()},
      {"c_files", built.sources.size()},
      {"c_compiled", built.compiler_stats.compiled},
      {"c_cached", built.compiler_stats.cache_hits}};
  std::string summary_path = (dir / "build.json").string();
  // A file name need not be UTF-8: its bytes that are not become U+FFFD in the JSON.
  UMA_TRY(write_file(summary_path,
                     summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  std::cout << fmt::format("wrote {}\n", printable_utf8(summary_path));
  return 0;
}

}  // namespace

void add_compile_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CompileCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile a model for targets and write the library, its C, the partition report and the "
      "build's times to a folder");
  cmd->add_option("model", options->model, "ONNX model (.onnx) or graph IR text file")->required();
  cmd->add_option("-o,--output", options->output,
                  "The folder to write (made; refused when it exists and is not empty)")
      ->required();
  add_import_options(*cmd, options->import);
  add_compile_options(*cmd, options->compile);
  add_plugin_option(*cmd, options->plugins);
  add_examples(*cmd, {"uma compile model.onnx --target \"vanilla --dimension=8\" -o out/"});
  cmd->callback([options, &exit_code] { exit_code = exit_code_of(compile_command(*options)); });
}

}  // namespace uma::tool
