// The context every command works in: the in-tree backends and what the plugins named with
// --plugin register (backends, or partition targets such as the tests').
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "uma/uma/context.h"

namespace uma::tool {

// Registers the in-tree backends, then loads each plugin in order.
Status prepare_context(Context& context, const std::vector<std::string>& plugins);

// --plugin path.so, repeatable.
void add_plugin_option(CLI::App& command, std::vector<std::string>& plugins);

}  // namespace uma::tool
