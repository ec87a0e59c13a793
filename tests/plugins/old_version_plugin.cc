// A plugin built for another plugin API version: the loader must refuse it without calling
// any of its functions, the entry point included.
#include <cstdlib>

#include "uma/uma/plugin.h"

extern "C" __attribute__((visibility("default"))) const std::uint32_t uma_plugin_api_version =
    uma::kPluginApiVersion + 1;

extern "C" __attribute__((visibility("default"))) const uma::PluginInfo* uma_plugin_entry() {
  std::abort();
}
