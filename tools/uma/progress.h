// A progress line on standard error for the tool's long steps (importing a large model,
// compiling C, the conformance kit): redrawn in place on a terminal, absent otherwise, so
// that logs and pipes get the commands' output alone.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace uma::tool {

class Progress {
 public:
  // Shows "<what>..." at once when standard error is a terminal; otherwise the object does
  // nothing.
  explicit Progress(std::string what);
  // Clears the line.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // "<what>: <done>/<total> <item>" (a total of 0: not known, "<what>: <done> <item>");
  // redrawn at most every 100 ms, and at the last.
  void update(std::size_t done, std::size_t total, const std::string& item = {});
  // Erases the line, before other output to the terminal; the next update draws it again.
  void clear();

 private:
  void draw(const std::string& line);

  std::string what_;
  bool shown_ = false;
  std::size_t width_ = 0;  // of the line drawn last
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace uma::tool
