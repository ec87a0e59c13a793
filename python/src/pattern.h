// Patterns and matches as Python sees them (pattern.cc), for the backends' declarations.
#pragma once

#include <optional>
#include <string>

#include "bindings.h"
#include "handles.h"
#include "uma/pattern/pattern.h"

namespace uma::python {

// uma.Pattern: an immutable pattern.
struct PyPattern {
  PatternPtr pattern;
};

// uma.Match: the match a pattern's predicate is given, valid while the predicate runs.
struct PyMatch {
  const Match* match;
  ModuleHandlePtr module;  // lent to the predicate
  const Match& read() const {
    module->read("uma.Match");
    return *match;
  }
};

// Calls a callback that returns None to accept, or a str: the reason to reject.
template <typename... Args>
Status call_predicate(const Callable& callback, const Args&... args) {
  Expected<std::optional<std::string>> reason = callback.call<std::optional<std::string>>(
      [&](py::handle result) -> Expected<std::optional<std::string>> {
        if (result.is_none()) return std::optional<std::string>();
        if (py::isinstance<py::str>(result)) return std::optional(result.cast<std::string>());
        return callback.wrong_result(fmt::format(
            "{}, not None (accept) or a str (the reason to reject)", type_name(result)));
      },
      args...);
  if (!reason.ok()) return reason.error();
  if (*reason) return Error(**reason);
  return Status::success();
}

}  // namespace uma::python
