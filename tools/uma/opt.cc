// `uma opt`: read graph IR text, run a pipeline of passes, print graph IR text.
// What golden tests run.
#include <iostream>
#include <sstream>

#include "commands.h"
#include "context_setup.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"
#include "uma/partition/partition.h"
#include "uma/support/file.h"

namespace uma::tool {
namespace {

struct OptOptions {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  std::vector<std::string> print_after;
  bool verify_each = true;
  bool timing = false;
  bool elide_data = false;
  bool split_input_file = false;
  std::vector<std::string> plugins;
};

// Runs the pipeline on one module's text. `first_line` is where the text starts in the
// file, so that errors point at the right line of a split file.
Expected<std::string> run_one(const OptOptions& options, std::string_view text,
                              std::size_t first_line, std::ostream& log) {
  Context context;
  // The partition passes take targets by name: the backends' and the plugins' (the tests'
  // test targets come from a plugin).
  UMA_TRY(prepare_context(context, options.plugins));
  // Padding with newlines keeps the parser's line numbers those of the whole file.
  std::string padded(first_line - 1, '\n');
  padded += text;
  UMA_TRY_ASSIGN(auto module,
                 parse_module(context, padded, options.input == "-" ? "<stdin>" : options.input));
  if (Status verified = verify(*module); !verified) return verified.error();
  PipelineOptions pipeline_options{
      .verify_each = options.verify_each, .print_after = options.print_after, .print_stream = &log};
  UMA_TRY_ASSIGN(auto pipeline, parse_pipeline(context.passes(), options.passes, pipeline_options));
  UMA_TRY_ASSIGN(bool changed, pipeline.run(*module));
  (void)changed;
  if (options.timing) pipeline.print_timings(std::cerr);
  return to_string(*module, {.elide_data = options.elide_data});
}

// Splits on lines that are exactly "// -----", as MLIR's --split-input-file does.
std::vector<std::pair<std::string_view, std::size_t>> split_chunks(std::string_view text) {
  std::vector<std::pair<std::string_view, std::size_t>> chunks;
  std::size_t chunk_start = 0, chunk_line = 1, line = 1, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view current = text.substr(pos, end - pos);
    if (current == "// -----") {
      chunks.emplace_back(text.substr(chunk_start, pos - chunk_start), chunk_line);
      chunk_start = end + 1;
      chunk_line = line + 1;
    }
    pos = end + 1;
    ++line;
  }
  if (chunk_start <= text.size())
    chunks.emplace_back(text.substr(std::min(chunk_start, text.size())), chunk_line);
  return chunks;
}

int run_opt(const OptOptions& options) {
  auto text = read_file(options.input);
  if (!text) {
    report(text.error());
    return 1;
  }
  std::vector<std::pair<std::string_view, std::size_t>> chunks;
  if (options.split_input_file)
    chunks = split_chunks(*text);
  else
    chunks.emplace_back(*text, 1);
  // --print-after output goes to standard output, ahead of the result, as in MLIR's tools.
  std::ostringstream out;
  int exit_code = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i) out << "// -----\n";
    auto result = run_one(options, chunks[i].first, chunks[i].second, out);
    if (!result) {
      // Errors go to stderr right away; with split input the other chunks still run.
      report(result.error());
      exit_code = 1;
      continue;
    }
    out << *result;
  }
  if (Status written = write_file(options.output, out.str()); !written) {
    report(written.error());
    return 1;
  }
  return exit_code;
}

}  // namespace

void add_opt_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<OptOptions>();
  CLI::App* cmd =
      app.add_subcommand("opt", "Run graph passes on graph IR text and print the result");
  cmd->add_option("input", options->input, "Graph IR text file ('-' for standard input)");
  cmd->add_option("-o,--output", options->output,
                  "Where to write the result ('-' for standard output)");
  cmd->add_option("--passes", options->passes, "Comma-separated pass names, run in order");
  cmd->add_option("--print-after", options->print_after,
                  "Print the module after this pass ('all': after every pass)")
      ->delimiter(',')
      // One value per occurrence, so that a file name after it is not taken as a pass.
      ->allow_extra_args(false);
  cmd->add_flag("!--no-verify-each", options->verify_each,
                "Do not run the verifier after each pass");
  cmd->add_flag("--timing", options->timing, "Print each pass's time to standard error");
  cmd->add_flag("--elide-data", options->elide_data, "Leave the bytes of large tensors out");
  cmd->add_flag("--split-input-file", options->split_input_file,
                "Treat each part between '// -----' lines as its own module");
  add_plugin_option(*cmd, options->plugins);
  add_examples(*cmd, {"uma opt model.uma --passes=fold-constant,cse,dce --print-after=all"});
  cmd->callback([options, &exit_code] { exit_code = run_opt(*options); });
}

}  // namespace uma::tool
