// Reading and writing whole files.
#include "uma/support/file.h"

#include <cerrno>
#include <cstring>
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
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("{}: cannot open: {}", path, std::strerror(errno));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return make_error("{}: cannot read: {}", path, std::strerror(errno));
  return contents.str();
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

}  // namespace uma
