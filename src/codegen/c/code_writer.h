// Lines of C with indentation.
#pragma once

#include <string>
#include <string_view>

namespace uma::codegen {

class CodeWriter {
 public:
  explicit CodeWriter(std::size_t depth = 0) : depth_(depth) {}

  void line(std::string_view text) {
    if (!text.empty()) out_.append(2 * depth_, ' ').append(text);
    out_ += '\n';
  }
  // "head {" (or "{" for an empty head) and one level deeper.
  void open(std::string_view head) {
    line(head.empty() ? std::string("{") : std::string(head) + " {");
    ++depth_;
  }
  // "{ /* comment */" and one level deeper; `comment` must be comment-safe already.
  void open_commented(std::string_view comment) {
    line("{ /* " + std::string(comment) + " */");
    ++depth_;
  }
  // One level shallower and "}".
  void close() {
    --depth_;
    line("}");
  }
  // A line one level shallower that continues the construct: "} else {".
  void reopen(std::string_view text) {
    --depth_;
    line(text);
    ++depth_;
  }
  // Text written by another writer (already indented).
  void append(std::string_view text) { out_ += text; }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
  std::size_t depth_;
};

}  // namespace uma::codegen
