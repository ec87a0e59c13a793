// The graph IR text form's tokens and the quoting rules that keep any name printable.
#include "lexer.h"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "uma/support/printable.h"

namespace uma::text {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_id_start(char c) { return is_letter(c) || c == '_'; }
bool is_id_char(char c) {
  return is_id_start(c) || is_digit(c) || c == '.' || c == '$' || c == '-';
}
bool is_shape_char(char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '-'; }

}  // namespace

void Lexer::skip_whitespace_and_comments() {
  while (!at_end()) {
    char c = peek();
    if (c == '\n') {
      advance_by(1);
      ++pos_.line;
      pos_.line_start = pos_.offset;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      advance_by(1);
    } else if (c == '/' && peek(1) == '/') {
      std::size_t end = text_.find('\n', pos_.offset);
      pos_.offset = end == std::string_view::npos ? text_.size() : end;
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind kind, Position start) const {
  return Token{kind, text_.substr(start.offset, pos_.offset - start.offset), start, {}};
}

Token Lexer::error(Position where, std::string message) {
  return Token{TokenKind::error, text_.substr(where.offset, 1), where, std::move(message)};
}

Token Lexer::next() {
  skip_whitespace_and_comments();
  Position start = pos_;
  if (at_end()) return make(TokenKind::eof, start);
  char c = peek();
  auto single = [&](TokenKind kind) {
    advance_by(1);
    return make(kind, start);
  };
  switch (c) {
    case '(':
      return single(TokenKind::l_paren);
    case ')':
      return single(TokenKind::r_paren);
    case '{':
      return single(TokenKind::l_brace);
    case '}':
      return single(TokenKind::r_brace);
    case '[':
      return single(TokenKind::l_square);
    case ']':
      return single(TokenKind::r_square);
    case '<':
      return single(TokenKind::less);
    case '>':
      return single(TokenKind::greater);
    case ',':
      return single(TokenKind::comma);
    case ':':
      return single(TokenKind::colon);
    case '=':
      return single(TokenKind::equal);
    case '#':
      return single(TokenKind::hash);
    case '"':
      return lex_string(start);
    default:
      break;
  }
  if (c == '-' && peek(1) == '>') {
    advance_by(2);
    return make(TokenKind::arrow, start);
  }
  if (c == '-' && peek(1) == 'i' && peek(2) == 'n' && peek(3) == 'f' && !is_id_char(peek(4))) {
    advance_by(4);
    return make(TokenKind::floating, start);
  }
  if (is_digit(c) || (c == '-' && is_digit(peek(1)))) return lex_number(start);
  if (c == '%' || c == '@') {
    advance_by(1);
    TokenKind kind = c == '%' ? TokenKind::local_name : TokenKind::global_name;
    if (is_id_start(peek())) {
      while (is_id_char(peek())) advance_by(1);
      return make(kind, start);
    }
    if (c == '%' && is_digit(peek())) {
      while (is_digit(peek())) advance_by(1);
      return make(kind, start);
    }
    if (peek() == '"') {
      Token token = lex_string(start);
      if (token.kind != TokenKind::error) token.kind = kind;
      return token;
    }
    return error(start, fmt::format("expected a name after '{}'", c));
  }
  if (is_id_start(c)) {
    while (is_id_char(peek())) advance_by(1);
    return make(TokenKind::bare_id, start);
  }
  advance_by(1);
  return error(start, fmt::format("unexpected character '{}'", printable(std::string_view(&c, 1))));
}

Token Lexer::next_shape() {
  skip_whitespace_and_comments();
  Position start = pos_;
  while (is_shape_char(peek())) advance_by(1);
  return make(TokenKind::shape, start);
}

// The string starts at the current position (after any sigil, which `start` includes).
// A bad escape is reported only once the string's end is found, so that lexing resumes
// after the whole string.
Token Lexer::lex_string(Position start) {
  Position open = pos_;
  advance_by(1);
  std::optional<Token> bad_escape;
  while (true) {
    if (at_end() || peek() == '\n') return error(open, "unterminated string");
    char c = peek();
    if (c == '"') {
      advance_by(1);
      break;
    }
    if (c != '\\') {
      // Plain bytes in a tight loop: a weight's hex string can be hundreds of megabytes.
      std::size_t end = pos_.offset + 1;
      while (end < text_.size() && text_[end] != '"' && text_[end] != '\\' && text_[end] != '\n')
        ++end;
      pos_.offset = end;
      continue;
    }
    Position escape = pos_;
    char kind = peek(1);
    if (kind == '"' || kind == '\\' || kind == 'n') {
      advance_by(2);
    } else if (kind == 'x' && hex_digit_value(peek(2)) >= 0 && hex_digit_value(peek(3)) >= 0) {
      advance_by(4);
    } else if (kind == '\n' || pos_.offset + 1 >= text_.size()) {
      advance_by(1);  // the loop reports the unterminated string
    } else {
      if (!bad_escape) {
        std::string message = kind == 'x' ? "escape '\\x' needs two hex digits"
                                          : fmt::format("unknown escape '\\{}' in string",
                                                        printable(std::string_view(&kind, 1)));
        bad_escape = error(escape, std::move(message));
      }
      advance_by(2);
    }
  }
  if (bad_escape) return *bad_escape;
  return make(TokenKind::string, start);
}

Token Lexer::lex_number(Position start) {
  if (peek() == '-') advance_by(1);
  while (is_digit(peek())) advance_by(1);
  bool is_float = false;
  if (peek() == '.') {
    is_float = true;
    advance_by(1);
    while (is_digit(peek())) advance_by(1);
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
    is_float = true;
    advance_by(2);
    while (is_digit(peek())) advance_by(1);
  }
  return make(is_float ? TokenKind::floating : TokenKind::integer, start);
}

int hex_digit_value(char c) {
  // A table, because data sections decode hundreds of megabytes of hex digits.
  static constexpr std::array<std::int8_t, 256> kValues = [] {
    std::array<std::int8_t, 256> table{};
    table.fill(-1);
    for (int d = 0; d < 10; ++d) table['0' + d] = static_cast<std::int8_t>(d);
    for (int d = 0; d < 6; ++d) {
      table['a' + d] = static_cast<std::int8_t>(10 + d);
      table['A' + d] = static_cast<std::int8_t>(10 + d);
    }
    return table;
  }();
  return kValues[static_cast<unsigned char>(c)];
}

bool is_bare_id(std::string_view name) {
  if (name.empty() || !is_id_start(name[0])) return false;
  for (char c : name)
    if (!is_id_char(c)) return false;
  return true;
}

std::string quote(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (is_printable(static_cast<unsigned char>(c))) {
      out += c;
    } else {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out + "\"";
}

std::string spell_name(std::string_view name) {
  return is_bare_id(name) ? std::string(name) : quote(name);
}

std::string unquote(std::string_view spelling) {
  std::string out;
  std::string_view body = spelling.substr(1, spelling.size() - 2);
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') {
      out += body[i];
      continue;
    }
    char kind = body[++i];
    if (kind == 'n') {
      out += '\n';
    } else if (kind == 'x') {
      out += static_cast<char>(hex_digit_value(body[i + 1]) * 16 + hex_digit_value(body[i + 2]));
      i += 2;
    } else {
      out += kind;
    }
  }
  return out;
}

std::string name_of(const Token& token) {
  std::string_view name = token.spelling.substr(1);
  return !name.empty() && name[0] == '"' ? unquote(name) : std::string(name);
}

std::string describe(TokenKind kind, std::string_view spelling) {
  if (kind == TokenKind::eof) return "end of input";
  constexpr std::size_t kMaxShown = 40;
  // fmt rather than "'" + ...: GCC 12 at -O3 reports a false -Wrestrict on the operator+ form.
  if (spelling.size() > kMaxShown)
    return fmt::format("'{}...'", printable(spelling.substr(0, kMaxShown)));
  return fmt::format("'{}'", printable(spelling));
}

}  // namespace uma::text
