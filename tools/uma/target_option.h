// The one spelling of a command's targets: --target repeated, in priority order, or
// --targets=a,b comma-separated (the same list); a command takes one form or the other.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace uma::tool {

// Adds --target and --targets to `command`, both filling `targets`; `description` says what a
// target is there. With `required`, one of them must be given (else a usage error).
void add_target_option(CLI::App& command, std::vector<std::string>& targets,
                       const std::string& description, bool required = false);

}  // namespace uma::tool
