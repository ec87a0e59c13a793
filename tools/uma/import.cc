// `uma import`: import an ONNX model and print it as graph IR text.
#include <iostream>

#include "commands.h"
#include "context_setup.h"
#include "model_io.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/graph/printer.h"
#include "uma/support/file.h"

namespace uma::tool {
namespace {

struct ImportOptions {
  std::string model;
  std::string output = "-";
  ImportArgs import;
  std::vector<std::string> plugins;
  bool elide_data = false;
  bool list_supported = false;
};

Status import(const ImportOptions& options) {
  if (options.list_supported) {
    for (const std::string& op : supported_onnx_ops()) std::cout << op << "\n";
    return Status::success();
  }
  if (options.model.empty()) return make_error("no model given (uma import model.onnx)");
  Context context;
  UMA_TRY(prepare_context(context, options.plugins));
  UMA_TRY_ASSIGN(auto module, load_model(context, options.model, options.import));
  return write_file(options.output, to_string(*module, {.elide_data = options.elide_data}));
}

}  // namespace

void add_import_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* cmd =
      app.add_subcommand("import", "Import an ONNX model and print it as graph IR text");
  cmd->add_option("model", options->model, "ONNX model (.onnx)");
  cmd->add_option("-o,--output", options->output,
                  "Where to write the text ('-' for standard output)");
  add_import_options(*cmd, options->import);
  cmd->add_flag("--elide-data", options->elide_data, "Leave the bytes of large tensors out");
  cmd->add_flag("--list-supported", options->list_supported,
                "List the ONNX op types the importer converts, one per line");
  add_plugin_option(*cmd, options->plugins);
  add_examples(*cmd, {"uma import model.onnx --input-shape input=1x3x224x224 --elide-data"});
  cmd->callback([options, &exit_code] {
    Status status = import(*options);
    if (!status) {
      report(status.error());
      exit_code = 1;
    }
  });
}

}  // namespace uma::tool
