// Unit tests of printable text (uma/support/printable.h): what reaches a terminal, a web page
// or a Python string.
#include <gtest/gtest.h>

#include "uma/support/printable.h"

namespace uma {
namespace {

TEST(Printable, EscapesControlAndNonAsciiBytes) {
  EXPECT_EQ(printable("relu\x1B[2J\n\xC3\xA9"), "relu\\x1B[2J\\x0A\\xC3\\xA9");
  EXPECT_EQ(printable_lines("a\tb\nc\x07\xC3\xA9"), "a\tb\nc\\x07\xC3\xA9");
}

TEST(Printable, Utf8KeepsWellFormedCharactersOnly) {
  // Two, three and four bytes, kept; line breaks and tabs kept, other controls escaped.
  EXPECT_EQ(printable_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n\t\x01"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n\t\\x01");
  // A byte that starts nothing, a truncated sequence, a sequence cut by ASCII.
  EXPECT_EQ(printable_utf8("\xFF\x80"), "\\xFF\\x80");
  EXPECT_EQ(printable_utf8("a\xE2\x82"), "a\\xE2\\x82");
  EXPECT_EQ(printable_utf8("\xE2x\xAC"), "\\xE2x\\xAC");
  // Overlong forms, a surrogate, past U+10FFFF, and the C1 controls (U+0085, NEL).
  EXPECT_EQ(printable_utf8("\xC0\xAF"), "\\xC0\\xAF");
  EXPECT_EQ(printable_utf8("\xE0\x80\xAF"), "\\xE0\\x80\\xAF");
  EXPECT_EQ(printable_utf8("\xED\xA0\x80"), "\\xED\\xA0\\x80");
  EXPECT_EQ(printable_utf8("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");
  EXPECT_EQ(printable_utf8("\xC2\x85"), "\\xC2\\x85");
  EXPECT_EQ(printable_utf8("\xC2\xA0"), "\xC2\xA0");
}

}  // namespace
}  // namespace uma
