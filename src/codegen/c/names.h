// C identifiers for names that come from a model, and text that is safe inside a C comment.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

namespace uma::codegen {

// Whether `name` is already a C identifier ([A-Za-z_][A-Za-z0-9_]*).
bool is_c_identifier(std::string_view name);

// Whether `name` is a keyword of C (up to C23) or of GNU C.
bool is_c_keyword(std::string_view name);

// Whether a model name may not be used as it is: a C keyword, a name the standard headers
// of the generated code declare or define as a macro, an all-capitals name (the form of
// macros), a name reserved to the implementation (`_X`, `__x`), one ending in `_t`, or one
// in the generator's own `uma_` namespace.
bool is_reserved_name(std::string_view name);

// Unique C identifiers in one scope. A name is sanitized (bytes outside [A-Za-z0-9_]
// become `_`, a leading digit or underscore gets a `v` in front, `uma_` names get `m_`,
// reserved names get a trailing `_`, long names are cut) and then made unique with a
// `_<n>` suffix. The generator's own names are reserved up front with `reserve`.
class NameTable {
 public:
  // Marks an identifier as taken (the generator's own names, extern functions).
  void reserve(std::string name) { used_.insert(std::move(name)); }
  bool contains(std::string_view name) const { return used_.count(std::string(name)) != 0; }
  // A fresh identifier for a model name.
  std::string unique(std::string_view model_name);

 private:
  std::unordered_set<std::string> used_;
};

// `text` for a C comment: characters outside letters, digits and ` _.,:+=-[]<>` become
// `_`, so no `*/`, line break, trigraph or backslash survives; cut to `max_size` bytes.
std::string comment_text(std::string_view text, std::size_t max_size = 80);

}  // namespace uma::codegen
