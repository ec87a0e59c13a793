// A plugin built for another plugin API version: the loader must refuse it without calling
// its registration.
#include <cstdlib>

#include "uma/uma/plugin.h"

namespace {
uma::Status never_called(uma::Context&) { std::abort(); }
}  // namespace

extern "C" __attribute__((visibility("default"))) const uma::PluginInfo* uma_plugin_entry() {
  static const uma::PluginInfo info{uma::kPluginApiVersion + 1, "old", never_called};
  return &info;
}
