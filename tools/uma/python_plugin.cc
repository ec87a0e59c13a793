// Loading Python backend plugins (see python_plugin.h).
#include "python_plugin.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include <filesystem>

#include "uma/uma/plugin.h"

namespace uma::tool {
namespace {

#ifdef UMA_PYTHON_PLUGIN_BUILT
// The build tree's library for the tool built beside it, else the one installed with the
// Python package, found from the tool's folder (<prefix>/bin).
std::string python_plugin_library() {
  std::error_code error;
  std::filesystem::path tool = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || tool == std::filesystem::path(UMA_TOOL_BUILT)) return UMA_PYTHON_PLUGIN_BUILT;
  return (tool.parent_path() / UMA_PYTHON_PLUGIN_INSTALLED).lexically_normal().string();
}
#endif

// The Python support library, once a Python plugin loaded it.
void* python_support = nullptr;

}  // namespace

bool is_python_plugin(const std::string& path) {
  return std::filesystem::path(path).extension() == ".py";
}

Status load_python_plugin(Context& context, const std::string& path) {
  auto fail = [&](const std::string& message) {
    return Error(fmt::format("plugin '{}': {}", path, message));
  };
#ifndef UMA_PYTHON_PLUGIN_BUILT
  (void)context;
  return fail(
      "this uma was built without Python (it needs pybind11-dev and python3-dev), so it "
      "cannot run a Python backend");
#else
  std::string library = python_plugin_library();
  // Kept loaded: the backends the file registers call into the interpreter it holds.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return fail(fmt::format("cannot load Python support: {}", dlerror()));
  auto version = static_cast<const std::uint32_t*>(dlsym(handle, kPluginVersionSymbol));
  if (version == nullptr || *version != kPluginApiVersion)
    return fail(fmt::format("{} was built for another uma", library));
  using Load = Status (*)(Context&, const std::string&);
  auto load = reinterpret_cast<Load>(dlsym(handle, "uma_python_plugin_load"));
  if (load == nullptr) return fail(fmt::format("{} has no uma_python_plugin_load", library));
  if (Status loaded = load(context, path); !loaded) return fail(loaded.error().message());
  python_support = handle;
  return Status::success();
#endif
}

Status python_callback_failure() {
  if (python_support == nullptr) return Status::success();
  using Failure = Status (*)();
  auto failure = reinterpret_cast<Failure>(dlsym(python_support, "uma_python_plugin_failure"));
  return failure != nullptr ? failure() : Status::success();
}

}  // namespace uma::tool
