// The progress line of the tool's long steps (see progress.h).
#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

namespace uma::tool {

Progress::Progress(std::string what) : what_(std::move(what)), shown_(isatty(STDERR_FILENO) == 1) {
  if (shown_) draw(what_ + "...");
}

Progress::~Progress() { clear(); }

void Progress::clear() {
  if (!shown_ || width_ == 0) return;
  std::cerr << "\r" << std::string(width_, ' ') << "\r" << std::flush;
  width_ = 0;
  last_ = {};
}

void Progress::update(std::size_t done, std::size_t total, const std::string& item) {
  if (!shown_) return;
  auto now = std::chrono::steady_clock::now();
  if (done != total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string count = total ? fmt::format("{}/{}", done, total) : fmt::format("{}", done);
  draw(fmt::format("{}: {}{}{}", what_, count, item.empty() ? "" : " ", item));
}

void Progress::draw(const std::string& line) {
  // Cut to a terminal's usual width, so that the line never wraps and \r reaches its start.
  std::string shown = line.substr(0, 79);
  std::cerr << "\r" << shown;
  if (shown.size() < width_) std::cerr << std::string(width_ - shown.size(), ' ');
  std::cerr << std::flush;
  width_ = shown.size();
}

}  // namespace uma::tool
