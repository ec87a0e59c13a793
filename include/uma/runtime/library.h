// A loaded shared library (a built model's code), closed when the Library is destroyed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

 private:
  Library(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace uma::runtime
