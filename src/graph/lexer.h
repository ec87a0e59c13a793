// Tokens and spelling rules of the graph IR's text form (docs/graph-text-format.md),
// shared by the parser and the printer so that what one writes the other reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace uma::text {

enum class TokenKind : std::uint8_t {
  eof,
  error,        // a malformed token; `message` says why
  bare_id,      // keywords, op names, dtypes, inf, nan, true, false
  local_name,   // %x, %0, %"a b"
  global_name,  // @f, @"a b"
  integer,      // -12
  floating,     // 1.5, 1e-05, -inf
  string,       // "..." with escapes
  shape,        // the inside of tensor<...>: 1x3xf32 (only from Lexer::next_shape)
  l_paren,
  r_paren,
  l_brace,
  r_brace,
  l_square,
  r_square,
  less,
  greater,
  comma,
  colon,
  equal,
  hash,
  arrow,
};

// Where a token starts; also enough to restart the lexer there.
struct Position {
  std::size_t offset = 0;
  std::size_t line = 1;
  std::size_t line_start = 0;  // offset of the line's first byte
  std::size_t column() const { return offset - line_start + 1; }
};

struct Token {
  TokenKind kind = TokenKind::eof;
  std::string_view spelling;  // the token's text in the source, sigils and quotes included
  Position pos;               // for error tokens: where exactly the problem is
  std::string message;        // error tokens only
};

// Splits text into tokens on demand. Never fails hard: a malformed token becomes an
// error token and lexing resumes after it, so a caller that skips text can go on.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token next();
  // Scans the run of [A-Za-z0-9_-] that spells a tensor's dimensions and dtype, which
  // the ordinary rules would split into a number and an identifier ("1x3xf32").
  Token next_shape();

  // Where the next token will be looked for; reset() goes back there.
  Position position() const { return pos_; }
  void reset(Position pos) { pos_ = pos; }

 private:
  void skip_whitespace_and_comments();
  Token make(TokenKind kind, Position start) const;
  Token error(Position where, std::string message);
  Token lex_string(Position start);
  Token lex_number(Position start);
  void advance_by(std::size_t n) { pos_.offset += n; }
  char peek(std::size_t ahead = 0) const {
    return pos_.offset + ahead < text_.size() ? text_[pos_.offset + ahead] : '\0';
  }
  bool at_end() const { return pos_.offset >= text_.size(); }

  std::string_view text_;
  Position pos_;
};

bool is_bare_id(std::string_view name);
// The value of a hex digit, or -1 for any other byte.
int hex_digit_value(char c);
// `name` as a C-style quoted string: \" \\ \n and \xNN for every other byte outside
// printable ASCII, so any byte string survives and nothing in it can end the string.
std::string quote(std::string_view name);
// `name` bare when it is an identifier, quoted otherwise: what follows % or @.
std::string spell_name(std::string_view name);
// The bytes a string token (quotes included) stands for; the lexer checked its escapes.
std::string unquote(std::string_view spelling);
// The name a % or @ token stands for.
std::string name_of(const Token& token);
// A token for an error message: 'spelling' (shortened and made printable), or
// "end of input".
std::string describe(TokenKind kind, std::string_view spelling);
inline std::string describe(const Token& token) { return describe(token.kind, token.spelling); }

}  // namespace uma::text
