// Escaping bytes for human-readable output (see uma/support/printable.h).
#include "uma/support/printable.h"

#include <fmt/format.h>

namespace uma {

namespace {

std::string escape(std::string_view bytes, bool keep_lines) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    auto byte = static_cast<unsigned char>(c);
    // Bytes of UTF-8 sequences (0x80 and up) are kept in messages: paths may be UTF-8.
    if (is_printable(byte) || (keep_lines && (c == '\n' || c == '\t' || byte >= 0x80)))
      out += c;
    else
      out += fmt::format("\\x{:02X}", byte);
  }
  return out;
}

}  // namespace

std::string printable(std::string_view bytes) { return escape(bytes, false); }

std::string printable_lines(std::string_view text) { return escape(text, true); }

}  // namespace uma
