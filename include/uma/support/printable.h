// Bytes from a model (names, strings) made safe to show on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace uma {

// Whether `c` is printable ASCII (0x20 to 0x7E), which a terminal shows as itself.
inline bool is_printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }

// `bytes` with every byte outside printable ASCII written as \xNN: a name cannot move the
// cursor, recolour the terminal or start a line of its own in a message or a report.
std::string printable(std::string_view bytes);

// The same for a message of several lines, which keeps its line breaks and tabs: the last
// guard before a terminal, for text that may quote what a compiler or a library printed.
std::string printable_lines(std::string_view text);

// Text that must be valid UTF-8 (a web page, a Python string): like printable_lines, but
// only well-formed UTF-8 sequences of characters past ASCII are kept; any other byte at or
// above 0x80 is written \xNN too.
std::string printable_utf8(std::string_view text);

}  // namespace uma
