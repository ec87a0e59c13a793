// Loading shared libraries with dlopen.
#include "uma/runtime/library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <map>
#include <mutex>
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

// The files that live Libraries were loaded from, each with its count of Libraries. Never
// destroyed, so that a Library destroyed at exit still finds them.
struct LoadedFiles {
  std::mutex mutex;
  std::map<std::pair<std::uint64_t, std::uint64_t>, int> counts;
};
LoadedFiles& loaded_files() {
  static auto* files = new LoadedFiles;
  return *files;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> file_id(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return std::pair<std::uint64_t, std::uint64_t>(info.st_dev, info.st_ino);
}

}  // namespace

Expected<Library> Library::open(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* message = dlerror();
    return make_error("cannot load {}: {}", path, message ? message : "unknown error");
  }
  pin_openmp_runtimes();
  std::optional<FileId> file = file_id(path);
  if (file) {
    std::lock_guard lock(loaded_files().mutex);
    ++loaded_files().counts[*file];
  }
  return Library(handle, path, file);
}

bool Library::is_loaded(const std::string& path) {
  std::optional<FileId> file = file_id(path);
  std::lock_guard lock(loaded_files().mutex);
  return file && loaded_files().counts.count(*file) != 0;
}

void Library::release() {
  if (handle_ != nullptr) dlclose(std::exchange(handle_, nullptr));
  if (file_) {
    std::lock_guard lock(loaded_files().mutex);
    if (--loaded_files().counts[*file_] == 0) loaded_files().counts.erase(*file_);
    file_.reset();
  }
}

Library::Library(Library&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      file_(std::exchange(other.file_, std::nullopt)) {}

Library& Library::operator=(Library&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    file_ = std::exchange(other.file_, std::nullopt);
  }
  return *this;
}

Library::~Library() { release(); }

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
