// Reading and writing whole files.
#include "uma/support/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace uma {

Expected<std::string> read_file(const std::string& path) {
  if (path == "-") {
    std::ostringstream contents;
    contents << std::cin.rdbuf();
    return contents.str();
  }
  UMA_TRY_ASSIGN(RegularFile file, open_regular_file(path));
  // The size is a hint (files of /proc give 0): the read stops at the cap anyway.
  if (file.size() > kMaxReadBytes)
    return make_error("{}: the file is {} bytes, more than the {} bytes a file read whole may have",
                      path, file.size(), kMaxReadBytes);
  std::string contents;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(file.fd(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error("{}: cannot read: {}", path, std::strerror(errno));
    if (n == 0) return contents;
    if (contents.size() + static_cast<std::size_t>(n) > kMaxReadBytes)
      return make_error("{}: the file grew past the {} bytes a file read whole may have", path,
                        kMaxReadBytes);
    contents.append(buffer, static_cast<std::size_t>(n));
  }
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<RegularFile> open_regular_file(const std::string& path) {
  // Non-blocking, so that opening a FIFO without a writer returns instead of waiting.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error("{}: cannot open: {}", path, std::strerror(errno));
  struct stat info {};
  std::string refusal;
  if (::fstat(fd, &info) != 0)
    refusal = fmt::format("{}: cannot read: {}", path, std::strerror(errno));
  else if (S_ISDIR(info.st_mode))
    refusal = fmt::format("{}: is a folder, not a file", path);
  else if (!S_ISREG(info.st_mode))
    refusal = fmt::format("{}: is not a regular file (a FIFO, a device or a socket)", path);
  else if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
    refusal = fmt::format("{}: cannot read: {}", path, std::strerror(errno));
  if (refusal.empty()) return RegularFile(fd, static_cast<std::uint64_t>(info.st_size));
  ::close(fd);
  return Error(std::move(refusal));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<void*>(data_), size_);
}

Expected<MappedFile> map_file(const RegularFile& file, const std::string& path) {
  if (file.size() == 0) {
    UMA_TRY_ASSIGN(std::string read, read_file(path));
    return MappedFile(nullptr, 0, std::move(read));
  }
  auto size = static_cast<std::size_t>(file.size());
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file.fd(), 0);
  if (data == MAP_FAILED) return make_error("{}: cannot map: {}", path, std::strerror(errno));
  return MappedFile(data, size, {});
}

Status write_file(const std::string& path, std::string_view contents) {
  if (path == "-") {
    std::cout << contents;
    std::cout.flush();
    return std::cout ? Status::success() : make_error("cannot write to standard output");
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) return make_error("{}: cannot open for writing: {}", path, std::strerror(errno));
  out << contents;
  out.close();
  if (!out) return make_error("{}: cannot write: {}", path, std::strerror(errno));
  return Status::success();
}

std::string temporary_path(const std::string& path) {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{}.tmp-{}-{}", path, getpid(), counter++);
}

Status write_atomically(const std::string& path, std::string_view contents) {
  std::string temporary = temporary_path(path);
  UMA_TRY(write_file(temporary, contents));
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return make_error("{}: cannot write: {}", path, error.message());
  }
  return Status::success();
}

}  // namespace uma
