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
// A regular file's bytes, mapped read-only and faulted in at once rather than page by page
// (a 100 MB model is 25,000 faults otherwise), unmapped when the object goes. A file whose
// size stat does not know (those of /proc) is read instead.
class MappedFile {
 public:
  MappedFile(const void* data, std::size_t size, std::string read)
      : data_(data), size_(size), read_(std::move(read)) {}
  MappedFile(MappedFile&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        read_(std::move(other.read_)) {}
  MappedFile& operator=(MappedFile&&) = delete;
  ~MappedFile();
  std::string_view bytes() const {
    return data_ != nullptr ? std::string_view(static_cast<const char*>(data_), size_) : read_;
  }

 private:
  const void* data_;  // the mapping, or null when the file was read into read_
  std::size_t size_;
  std::string read_;
};
// Maps `file`, opened from `path`.
Expected<MappedFile> map_file(const RegularFile& file, const std::string& path);
// Writes a file, or standard output when `path` is "-".
Status write_file(const std::string& path, std::string_view contents);
// A temporary name next to `path`, unique in this process and across processes: for a file
// that is renamed to `path` once written whole.
std::string temporary_path(const std::string& path);
// Writes through a temporary file and a rename, so that no reader (of this process or
// another) sees a half-written file.
Status write_atomically(const std::string& path, std::string_view contents);

}  // namespace uma
