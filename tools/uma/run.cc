// `uma run`: run a model's @main through the reference interpreter and print its outputs.
#include <iostream>

#include "commands.h"
#include "uma/graph/parser.h"
#include "uma/graph/verifier.h"
#include "uma/runtime/interpreter.h"
#include "uma/support/file.h"

namespace uma::tool {
namespace {

struct RunOptions {
  std::string input;
  std::uint64_t seed = 0;
  std::size_t print_limit = 16;
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

Status run(const RunOptions& options) {
  Context context;
  UMA_TRY_ASSIGN(std::string text, read_file(options.input));
  UMA_TRY_ASSIGN(auto module, parse_module(context, text, options.input));
  UMA_TRY(verify(*module));
  const Function* main = module->find_function("main");
  if (main == nullptr) return make_error("{}: the module has no function @main to run", options.input);

  std::vector<TensorPtr> inputs = random_inputs(*main, options.seed);
  for (std::size_t i = 0; i < main->num_params(); ++i) {
    const Value* p = main->param(i);
    std::cout << fmt::format("input {} %{}: {}, random (seed {})\n", i, p->name(),
                             to_string(p->type()), options.seed);
  }
  UMA_TRY_ASSIGN(auto outputs, interpret(*module, inputs));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = *outputs[i];
    std::cout << fmt::format("output {}: {} = {}\n", i, to_string(Type(out.type())),
                             format_values(out, options.print_limit));
  }
  return Status::success();
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a model's @main with the reference interpreter");
  cmd->add_option("model", options->input, "Graph IR text file")->required();
  cmd->add_option("--seed", options->seed, "Seed of the random inputs");
  cmd->add_option("--print-limit", options->print_limit, "How many values of each output to print");
  cmd->callback([options, &exit_code] {
    Status status = run(*options);
    if (!status) {
      report(status.error());
      exit_code = 1;
    }
  });
}

}  // namespace uma::tool
