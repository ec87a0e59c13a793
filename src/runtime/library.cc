// Loading shared libraries with dlopen.
#include "uma/runtime/library.h"

#include <dlfcn.h>

#include <utility>

namespace uma::runtime {
namespace {

// OpenMP runtimes keep worker threads alive between parallel regions. If closing a library
// built with -fopenmp also unloaded the runtime it brought in, those threads would run
// unmapped code; so a runtime that is loaded is pinned for the life of the process
// (RTLD_NOLOAD only promotes an already loaded library to RTLD_NODELETE).
void pin_openmp_runtimes() {
  for (const char* name : {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"})
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

}  // namespace

Expected<Library> Library::open(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* message = dlerror();
    return make_error("cannot load {}: {}", path, message ? message : "unknown error");
  }
  pin_openmp_runtimes();
  return Library(handle, path);
}

Library::Library(Library&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

Library& Library::operator=(Library&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Library::~Library() {
  if (handle_ != nullptr) dlclose(handle_);
}

Expected<void*> Library::symbol(std::string_view name) const {
  if (handle_ == nullptr) return make_error("symbol '{}': no library is loaded", name);
  std::string symbol_name(name);
  dlerror();  // clear an earlier error
  void* address = dlsym(handle_, symbol_name.c_str());
  if (address == nullptr && dlerror() != nullptr)
    return make_error("symbol '{}' not found in {}", name, path_);
  return address;
}

Expected<PackedFunction> Library::function(std::string_view name) const {
  UMA_TRY_ASSIGN(void* address, symbol(name));
  if (address == nullptr) return make_error("symbol '{}' in {} is null", name, path_);
  return reinterpret_cast<PackedFunction>(address);
}

}  // namespace uma::runtime
