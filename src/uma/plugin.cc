// Loading a backend plugin (see uma/uma/plugin.h).
#include "uma/uma/plugin.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace uma {

Status load_plugin(Context& context, const std::string& path) {
  auto fail = [&](std::string message) {
    return Error(fmt::format("plugin '{}': {}", path, message));
  };
  // A path without a '/' would make dlopen search the library path: name the file itself.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fail(fmt::format("cannot be loaded: {}", why != nullptr ? why : "unknown error"));
  }
  using Entry = const PluginInfo* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kPluginEntryPoint));
  if (entry == nullptr) {
    dlclose(handle);
    return fail(fmt::format("has no entry point '{}': not a uma plugin (define it with UMA_PLUGIN)",
                            kPluginEntryPoint));
  }
  const PluginInfo* info = entry();
  if (info == nullptr || info->api_version != kPluginApiVersion ||
      info->register_backends == nullptr) {
    std::string why =
        info == nullptr ? "its entry point returned no plugin information"
        : info->api_version != kPluginApiVersion
            ? fmt::format("built for plugin API version {}; this uma loads version {}",
                          info->api_version, kPluginApiVersion)
            : std::string("it has no registration function");
    dlclose(handle);
    return fail(why);
  }
  // Never closed from here on: the backends it registers run its code.
  Status registered = info->register_backends(context);
  if (!registered)
    return fail(fmt::format("registering its backends failed: {}", registered.error().message()));
  return Status::success();
}

}  // namespace uma
