// Reading and writing whole files, with errors that name the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "uma/support/error.h"

namespace uma {

// The most bytes read_file reads: far beyond any model's text, short of what a mistaken
// path (a disk image, a log that grows) would take.
inline constexpr std::uint64_t kMaxReadBytes = std::uint64_t{8} << 30;

// Reads a regular file (see open_regular_file), or standard input when `path` is "-".
Expected<std::string> read_file(const std::string& path);
// A regular file open for reading, closed when the object goes.
class RegularFile {
 public:
  RegularFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  RegularFile(RegularFile&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}
  RegularFile& operator=(RegularFile&&) = delete;
  ~RegularFile();
  int fd() const { return fd_; }
  // Its size when opened, as stat gives it (0 for the files of /proc, which have content).
  std::uint64_t size() const { return size_; }

 private:
  int fd_;
  std::uint64_t size_;
};

// Opens a file for reading, refusing anything but a regular file: a folder, a FIFO (which
// would wait for a writer), a device such as /dev/zero (which never ends).
Expected<RegularFile> open_regular_file(const std::string& path);
// Writes a file, or standard output when `path` is "-".
Status write_file(const std::string& path, std::string_view contents);

}  // namespace uma
