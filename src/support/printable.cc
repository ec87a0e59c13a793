// Escaping bytes for human-readable output (see uma/support/printable.h).
#include "uma/support/printable.h"

#include <fmt/format.h>

#include <cstdint>

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

// The length of the well-formed UTF-8 sequence of a character past ASCII at the start of
// `bytes`, or 0: no overlong forms, no surrogates, nothing above U+10FFFF, and none of the
// C1 controls U+0080 to U+009F, which some terminals obey.
std::size_t utf8_sequence(std::string_view bytes) {
  auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  unsigned char lead = at(0);
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || bytes.size() < length) return 0;
  std::uint32_t code = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((at(i) & 0xC0) != 0x80) return 0;
    code = code << 6 | (at(i) & 0x3F);
  }
  static constexpr std::uint32_t kLeast[] = {0, 0, 0xA0, 0x800, 0x10000};
  if (code < kLeast[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::string printable(std::string_view bytes) { return escape(bytes, false); }

std::string printable_lines(std::string_view text) { return escape(text, true); }

std::string printable_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte >= 0x80 ? utf8_sequence(text.substr(i)) : 0;
    if (length > 0) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    out += escape(text.substr(i, 1), byte < 0x80);
    ++i;
  }
  return out;
}

}  // namespace uma
