// Loading a backend plugin (see uma/uma/plugin.h).
#include "uma/uma/plugin.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include <exception>

namespace uma {
namespace {

// What a call into the plugin returned, or the exception it threw as an error.
template <typename F>
auto call_plugin(F&& call, std::string_view what) -> Expected<decltype(call())> {
  try {
    return call();
  } catch (const std::exception& error) {
    return make_error("{} threw an exception: {}", what, error.what());
  } catch (...) {
    return make_error("{} threw an exception that is not a std::exception", what);
  }
}

}  // namespace

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
  auto refuse = [&](std::string message) {
    dlclose(handle);
    return fail(std::move(message));
  };
  using Entry = const PluginInfo* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kPluginEntryPoint));
  if (entry == nullptr)
    return refuse(
        fmt::format("has no entry point '{}': not a uma plugin (define it with UMA_PLUGIN)",
                    kPluginEntryPoint));
  // Read, not called: a plugin of another version runs none of its functions.
  auto version = static_cast<const std::uint32_t*>(dlsym(handle, kPluginVersionSymbol));
  if (version == nullptr)
    return refuse(
        fmt::format("has no '{}': built for a plugin API before version 3; this uma "
                    "loads version {}",
                    kPluginVersionSymbol, kPluginApiVersion));
  if (*version != kPluginApiVersion)
    return refuse(fmt::format("built for plugin API version {}; this uma loads version {}",
                              *version, kPluginApiVersion));
  Expected<const PluginInfo*> info = call_plugin(entry, "its entry point");
  if (!info) return refuse(info.error().message());
  if (*info == nullptr) return refuse("its entry point returned no plugin information");
  if ((*info)->api_version != kPluginApiVersion)
    return refuse(fmt::format("its entry point gives plugin API version {}, its constant {}",
                              (*info)->api_version, *version));
  if ((*info)->register_backends == nullptr) return refuse("it has no registration function");
  // Never closed from here on: the backends it registers run its code.
  Expected<Status> registered =
      call_plugin([&] { return (*info)->register_backends(context); }, "its registration");
  if (!registered) return fail(registered.error().message());
  if (!*registered)
    return fail(fmt::format("registering its backends failed: {}", registered->error().message()));
  return Status::success();
}

}  // namespace uma
