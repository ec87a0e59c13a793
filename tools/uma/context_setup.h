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

// Loads one plugin: a shared library (uma/uma/plugin.h), or a Python file (.py) that
// registers backends (python_plugin.h).
Status load_any_plugin(Context& context, const std::string& path);

// --plugin path.so or path.py, repeatable.
void add_plugin_option(CLI::App& command, std::vector<std::string>& plugins);

}  // namespace uma::tool
