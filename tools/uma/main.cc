// The uma command-line tool.
#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"uma: a deep-learning compiler built around the Universal Modular Accelerator interface"};
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
