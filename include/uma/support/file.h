// Reading and writing whole files, with errors that name the file.
#pragma once

#include <string>
#include <string_view>

#include "uma/support/error.h"

namespace uma {

// Reads a file, or standard input when `path` is "-".
Expected<std::string> read_file(const std::string& path);
// Writes a file, or standard output when `path` is "-".
Status write_file(const std::string& path, std::string_view contents);

}  // namespace uma
