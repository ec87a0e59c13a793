// The subcommands of the uma tool, one file each.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "uma/support/error.h"

namespace uma::tool {

// Each adds its subcommand to `app`; the callback sets the process exit code in `exit_code`.
void add_opt_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_import_command(CLI::App& app, int& exit_code);
void add_partition_command(CLI::App& app, int& exit_code);
void add_lower_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_compile_command(CLI::App& app, int& exit_code);
void add_new_backend_command(CLI::App& app, int& exit_code);
void add_test_backend_command(CLI::App& app, int& exit_code);
void add_sim_command(CLI::App& app, int& exit_code);

// Ends `command`'s --help with its examples (one command a line) and the exit codes.
void add_examples(CLI::App& command, const std::vector<std::string>& examples);

// Prints an error to standard error as "error: <message>", unless the message already
// starts with a "file:line:column: error:" location, which editors jump to.
void report(const Error& error);
// A command's exit code: its own, or 1 after reporting its error.
int exit_code_of(const Expected<int>& status);
// Reports an exception that reached main, naming the command that was running.
void report_exception(const CLI::App& app, std::string_view what);

}  // namespace uma::tool
