// Out-of-tree backends: a shared library with one versioned entry point, loaded at run time
// (`uma run --plugin path.so`, or load_plugin).
//
// A plugin is built against these headers and defines its entry point with UMA_PLUGIN:
//
//   uma::Status register_my_npu(uma::Context& context) {
//     return uma::register_backend(context, std::make_unique<MyNpu>());
//   }
//   UMA_PLUGIN("my_npu", register_my_npu)
//
// It does not link the compiler: its references to uma's functions resolve against the
// process that loads it (the `uma` tool and the test programs export their symbols).
// UMA_PLUGIN defines the entry point and a constant, uma_plugin_api_version, holding the
// plugin API version it was built for. The loader reads that constant before it calls any of
// the plugin's functions, and refuses a plugin of another version; the entry point's
// PluginInfo repeats the version. The version changes whenever PluginInfo, Backend or
// anything a Backend declares changes incompatibly.
//
// What is trusted: loading a plugin runs its code with the compiler's rights. The loader
// can keep a plugin of another version from being called, but not from running the static
// constructors the system's loader runs when it maps the file; a plugin is trusted as much
// as the compiler itself. An exception thrown by its entry point or its registration is
// reported as an error naming the plugin.
#pragma once

#include <cstdint>
#include <string>

#include "uma/support/error.h"

namespace uma {

class Context;

inline constexpr std::uint32_t kPluginApiVersion = 6;
inline constexpr const char* kPluginEntryPoint = "uma_plugin_entry";
inline constexpr const char* kPluginVersionSymbol = "uma_plugin_api_version";

struct PluginInfo {
  std::uint32_t api_version;  // first, so that any version can read it
  const char* name;
  Status (*register_backends)(Context& context);
};

// Loads the plugin and registers its backends in `context`. Errors name the file: it cannot
// be loaded (the loader's message), has no entry point or version constant, was built for
// another API version, or its entry point or registration failed or threw. A loaded plugin stays
// loaded for the life of the process (its code runs whenever a backend it registered is used).
Status load_plugin(Context& context, const std::string& path);

}  // namespace uma

#define UMA_PLUGIN(name, register_function)                                                       \
  extern "C" __attribute__((visibility("default"))) const std::uint32_t uma_plugin_api_version =  \
      ::uma::kPluginApiVersion;                                                                   \
  extern "C" __attribute__((visibility("default"))) const ::uma::PluginInfo* uma_plugin_entry() { \
    static const ::uma::PluginInfo info{::uma::kPluginApiVersion, name, register_function};       \
    return &info;                                                                                 \
  }
