// The uma command-line tool.
#include "commands.h"

#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <string_view>

#include "uma/support/printable.h"

namespace uma::tool {
namespace {

// Strips trailing digits and then `suffix`; false when either is missing.
bool strip_number_then(std::string_view& text, char suffix) {
  std::size_t end = text.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(text[end - 1]))) --end;
  if (end == text.size() || end == 0 || text[end - 1] != suffix) return false;
  text.remove_suffix(text.size() - end + 1);
  return true;
}

// The message starts with "<file>:<line>:<column>: error: " on its first line.
bool has_location(std::string_view message) {
  std::size_t marker = message.find(": error: ");
  if (marker == std::string_view::npos ||
      message.substr(0, marker).find('\n') != std::string_view::npos)
    return false;
  std::string_view location = message.substr(0, marker);
  return strip_number_then(location, ':') && strip_number_then(location, ':') && !location.empty();
}

}  // namespace

void add_examples(CLI::App& command, const std::vector<std::string>& examples) {
  std::string footer = examples.size() == 1 ? "Example:\n" : "Examples:\n";
  for (const std::string& example : examples) footer += "  " + example + "\n";
  command.footer(footer + "Exit code: 0 ok, 1 error, 2 bad usage.");
}

void report(const Error& error) {
  if (!has_location(error.message())) std::cerr << "error: ";
  std::cerr << printable_lines(error.message()) << "\n";
}

int exit_code_of(const Expected<int>& status) {
  if (status) return *status;
  report(status.error());
  return 1;
}

void report_exception(const CLI::App& app, std::string_view what) {
  std::string command = "uma";
  for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
  report(Error(fmt::format("{}: stopped by an unexpected exception: {}", command, what)));
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
  uma::tool::add_partition_command(app, exit_code);
  uma::tool::add_lower_command(app, exit_code);
  uma::tool::add_bench_command(app, exit_code);
  uma::tool::add_compile_command(app, exit_code);
  uma::tool::add_new_backend_command(app, exit_code);
  uma::tool::add_test_backend_command(app, exit_code);
  uma::tool::add_sim_command(app, exit_code);
  // Errors are values throughout, but the standard library reports a few as exceptions
  // (allocation, filesystem, a plugin's or a backend's own code): never an abort.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // Printed as CLI11 does (--help on standard output); any other parse error is bad usage.
    return app.exit(error) == 0 ? 0 : 2;
  } catch (const std::exception& error) {
    uma::tool::report_exception(app, error.what());
    return 1;
  } catch (...) {
    uma::tool::report_exception(app, "an exception that is not a std::exception");
    return 1;
  }
  return exit_code;
}
