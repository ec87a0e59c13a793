// The commands' context (see context_setup.h).
#include "context_setup.h"

#include "backends/register.h"
#include "python_plugin.h"
#include "uma/uma/plugin.h"

namespace uma::tool {

Status prepare_context(Context& context, const std::vector<std::string>& plugins) {
  UMA_TRY(backends::register_builtin_backends(context));
  for (const std::string& plugin : plugins) UMA_TRY(load_any_plugin(context, plugin));
  return Status::success();
}

Status load_any_plugin(Context& context, const std::string& path) {
  return is_python_plugin(path) ? load_python_plugin(context, path) : load_plugin(context, path);
}

void add_plugin_option(CLI::App& command, std::vector<std::string>& plugins) {
  command
      .add_option("--plugin", plugins,
                  "Load a backend plugin: a shared library defining uma_plugin_entry, or a Python "
                  "file (.py) calling uma.register_backend; repeatable")
      ->allow_extra_args(false);
}

}  // namespace uma::tool
