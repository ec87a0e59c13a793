// The context every command works in: the built-in test targets, the in-tree backends and
// the backends of the plugins named with --plugin.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "uma/uma/context.h"

namespace uma::tool {

// Registers the test targets and in-tree backends, then loads each plugin in order.
Status prepare_context(Context& context, const std::vector<std::string>& plugins);

// --plugin path.so, repeatable.
void add_plugin_option(CLI::App& command, std::vector<std::string>& plugins);

}  // namespace uma::tool
