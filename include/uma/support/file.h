// Reading and writing whole files, with errors that name the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "uma/support/error.h"

namespace uma {

// The most bytes read_file reads: far beyond any model's text, short of what a mistaken
// path (a disk image, a log that grows) would take.
inline constexpr std::uint64_t kMaxReadBytes = std::uint64_t{8} << 30;

// Reads a regular file (see open_regular_file), or standard input when `path` is "-".
Expected<std::string> read_file(const std::string& path);
// Opens a file for reading, refusing anything but a regular file: a folder, a FIFO (which
// would wait for a writer), a device such as /dev/zero (which never ends). The caller owns
// the descriptor.
Expected<int> open_regular_file(const std::string& path);
// Writes a file, or standard output when `path` is "-".
Status write_file(const std::string& path, std::string_view contents);

}  // namespace uma
