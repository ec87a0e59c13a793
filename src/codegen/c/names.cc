// Sanitizing model names into C identifiers.
#include "names.h"

#include <fmt/format.h>
#include <array>

namespace uma::codegen {
namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// Identifiers that C (up to C23), GNU C, and the headers the generated code includes
// (stdint.h, stddef.h, stdbool.h, math.h, stdlib.h) give a meaning. A local variable may
// shadow a library function, but not one the function body calls, and a file-scope
// symbol may not redeclare one; so all of them are avoided. Macros in capitals are
// caught by the all-capitals rule, names ending in `_t` by the suffix rule.
constexpr std::array kKeywords = {"alignas",
                                  "alignof",
                                  "asm",
                                  "auto",
                                  "bool",
                                  "break",
                                  "case",
                                  "char",
                                  "const",
                                  "constexpr",
                                  "continue",
                                  "default",
                                  "do",
                                  "double",
                                  "else",
                                  "enum",
                                  "extern",
                                  "false",
                                  "float",
                                  "for",
                                  "goto",
                                  "if",
                                  "inline",
                                  "int",
                                  "long",
                                  "nullptr",
                                  "register",
                                  "restrict",
                                  "return",
                                  "short",
                                  "signed",
                                  "sizeof",
                                  "static",
                                  "static_assert",
                                  "struct",
                                  "switch",
                                  "thread_local",
                                  "true",
                                  "typedef",
                                  "typeof",
                                  "typeof_unqual",
                                  "union",
                                  "unsigned",
                                  "void",
                                  "volatile",
                                  "while",
                                  "_Alignas",
                                  "_Alignof",
                                  "_Atomic",
                                  "_Bool",
                                  "_Complex",
                                  "_Generic",
                                  "_Imaginary",
                                  "_Noreturn",
                                  "_Static_assert",
                                  "_Thread_local",
                                  "__asm__",
                                  "__attribute__",
                                  "__typeof__"};

constexpr std::array kReserved = {
    "complex", "imaginary", "noreturn", "I",
    // Lower-case macros of the standard headers.
    "errno", "assert", "offsetof", "alloca", "math_errhandling", "fpclassify", "isfinite", "isinf",
    "isnan", "isnormal", "signbit", "isgreater", "isgreaterequal", "isless", "islessequal",
    "islessgreater", "isunordered", "iseqsig", "issignaling", "issubnormal", "iszero",
    "iscanonical",
    // stdlib.h.
    "abort", "abs", "aligned_alloc", "at_quick_exit", "atexit", "atof", "atoi", "atol", "atoll",
    "bsearch", "calloc", "div", "exit", "free", "getenv", "labs", "ldiv", "llabs", "lldiv",
    "malloc", "mblen", "mbstowcs", "mbtowc", "qsort", "quick_exit", "rand", "realloc", "srand",
    "strtod", "strtof", "strtol", "strtold", "strtoll", "strtoul", "strtoull", "system", "wcstombs",
    "wctomb", "main", "memcpy", "memset", "memmove",
    // math.h functions whose f and l variants are covered below, and GNU extras.
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos",
    "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin",
    "fmod", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "llrint", "llround", "log", "log10",
    "log1p", "log2", "logb", "lrint", "lround", "modf", "nan", "nearbyint", "nextafter",
    "nexttoward", "pow", "remainder", "remquo", "rint", "round", "scalbln", "scalbn", "sin", "sinh",
    "sqrt", "tan", "tanh", "tgamma", "trunc", "roundeven", "exp10", "j0", "j1", "jn", "y0", "y1",
    "yn", "gamma", "drem", "finite", "significand", "scalb", "sincos", "pow10"};

// math.h functions come in three variants: exp, expf, expl.
bool is_math_variant(std::string_view name) {
  if (name.size() < 2 || (name.back() != 'f' && name.back() != 'l')) return false;
  std::string_view base = name.substr(0, name.size() - 1);
  for (std::string_view reserved : kReserved)
    if (reserved == base) return true;
  return false;
}

// The form of the standard headers' macros (NULL, INFINITY, INT8_MAX, M_PI): two or more
// capitals and no lower-case letter. Tensor names like W1 or X stay as they are.
bool is_all_capitals(std::string_view name) {
  int capitals = 0;
  for (char c : name) {
    if (is_lower(c)) return false;
    if (c >= 'A' && c <= 'Z') ++capitals;
  }
  return capitals >= 2;
}

bool starts_with_ignoring_case(std::string_view name, std::string_view prefix) {
  if (name.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = name[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

// Long names are cut so the generated code stays readable; uniqueness comes after.
constexpr std::size_t kMaxIdentifier = 64;

}  // namespace

bool is_c_identifier(std::string_view name) {
  if (name.empty() || is_digit(name[0])) return false;
  for (char c : name)
    if (!is_ident_char(c)) return false;
  return true;
}

bool is_c_keyword(std::string_view name) {
  for (std::string_view keyword : kKeywords)
    if (keyword == name) return true;
  return false;
}

bool is_reserved_name(std::string_view name) {
  if (name.empty()) return true;
  if (name[0] == '_' && (name.size() == 1 || name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
    return true;
  if (name.size() >= 2 && name.substr(name.size() - 2) == "_t") return true;
  if (starts_with_ignoring_case(name, "uma_")) return true;
  if (is_all_capitals(name)) return true;
  if (is_c_keyword(name)) return true;
  for (std::string_view reserved : kReserved)
    if (reserved == name) return true;
  return is_math_variant(name);
}

std::string NameTable::unique(std::string_view model_name) {
  std::string name;
  for (char c : model_name.substr(0, kMaxIdentifier)) name += is_ident_char(c) ? c : '_';
  if (name.empty() || is_digit(name[0]) || name[0] == '_') name = "v" + name;
  if (starts_with_ignoring_case(name, "uma_")) name = "m_" + name;
  if (is_reserved_name(name)) name += '_';
  std::string candidate = name;
  for (int n = 1; used_.count(candidate) != 0; ++n) candidate = fmt::format("{}_{}", name, n);
  used_.insert(candidate);
  return candidate;
}

std::string comment_text(std::string_view text, std::size_t max_size) {
  static constexpr std::string_view kSafe = " _.,:+=-[]<>";
  std::string out;
  for (char c : text.substr(0, max_size))
    out += is_ident_char(c) || kSafe.find(c) != std::string_view::npos ? c : '_';
  return out;
}

}  // namespace uma::codegen
