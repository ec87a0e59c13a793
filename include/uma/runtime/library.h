// A loaded shared library (a built model's code), closed when the Library is destroyed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "uma/support/error.h"

namespace uma::runtime {

// The uniform signature of generated entry points (uma/codegen/c/c_codegen.h).
using PackedFunction = std::int32_t (*)(void* const* args);

class Library {
 public:
  // Loads the library with all its symbols resolved now, and private to it (RTLD_LOCAL):
  // its symbols never replace those of the process or of other libraries.
  static Expected<Library> open(const std::string& path);

  Library(Library&& other) noexcept;
  Library& operator=(Library&& other) noexcept;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library();

  // The address of a symbol; an Error naming the symbol and the file if it is missing.
  Expected<void*> symbol(std::string_view name) const;
  // A generated entry point.
  Expected<PackedFunction> function(std::string_view name) const;
  const std::string& path() const { return path_; }

  // Whether a live Library of this process was loaded from the file at `path` (under any
  // of its names: files are compared by device and inode). The object cache never removes
  // such a file.
  static bool is_loaded(const std::string& path);

 private:
  // The loaded file's device and inode.
  using FileId = std::pair<std::uint64_t, std::uint64_t>;
  Library(void* handle, std::string path, std::optional<FileId> file)
      : handle_(handle), path_(std::move(path)), file_(file) {}
  void release();

  void* handle_ = nullptr;
  std::string path_;
  std::optional<FileId> file_;
};

}  // namespace uma::runtime
