// The uma command-line tool.
#include "commands.h"

#include <iostream>
#include <regex>

namespace uma::tool {

void report(const Error& error) {
  static const std::regex located(R"(^[^\n]*:\d+:\d+: error: )");
  if (!std::regex_search(error.message(), located)) std::cerr << "error: ";
  std::cerr << error.message() << "\n";
}

}  // namespace uma::tool

int main(int argc, char** argv) {
  CLI::App app{
      "uma: a deep-learning compiler built around the Universal Modular Accelerator interface"};
  app.require_subcommand(1);
  int exit_code = 0;
  uma::tool::add_opt_command(app, exit_code);
  uma::tool::add_run_command(app, exit_code);
  uma::tool::add_import_command(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
