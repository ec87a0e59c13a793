// The commands' context (see context_setup.h).
#include "context_setup.h"

#include <cstdio>
#include <cstdlib>

#include "backends/register.h"
#include "python_plugin.h"
#include "uma/support/printable.h"
#include "uma/uma/plugin.h"

namespace uma::tool {

Status prepare_context(Context& context, const std::vector<std::string>& plugins) {
  UMA_TRY(backends::register_builtin_backends(context));
  for (const std::string& plugin : plugins) UMA_TRY(load_any_plugin(context, plugin));
  return Status::success();
}

namespace {

// The plugin being loaded, for the exit handler.
const std::string* loading = nullptr;

// A plugin that calls exit() while it loads would end the command with the status it chose
// and no word of why: the handler says so, and makes the status 1. (_exit() cannot be
// caught; a Python plugin's os._exit raises while it loads, python_plugin.cc.)
void exit_while_loading() {
  if (loading == nullptr) return;
  std::fflush(stdout);
  std::fprintf(stderr,
               "error: plugin '%s' ended the process while it was loading (it called exit); a "
               "plugin registers its backends and returns\n",
               printable_utf8(*loading).c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

Status load_any_plugin(Context& context, const std::string& path) {
  static const bool handler = std::atexit(exit_while_loading) == 0;
  (void)handler;
  loading = &path;
  Status loaded =
      is_python_plugin(path) ? load_python_plugin(context, path) : load_plugin(context, path);
  loading = nullptr;
  return loaded;
}

void add_plugin_option(CLI::App& command, std::vector<std::string>& plugins) {
  command
      .add_option("--plugin", plugins,
                  "Load a backend plugin: a shared library defining uma_plugin_entry, or a Python "
                  "file (.py) calling uma.register_backend; repeatable")
      ->allow_extra_args(false);
}

}  // namespace uma::tool
