// Patterns and matches as Python sees them (pattern.cc), for the backends' declarations.
#pragma once

#include "bindings.h"
#include "uma/pattern/pattern.h"

namespace uma::python {

// uma.Pattern: an immutable pattern.
struct PyPattern {
  PatternPtr pattern;
};

// A callback's result that must be None (accepted) or a str (the reason to reject it).
Status reason_or_none(const Callable& callback, const Expected<py::object>& result);

}  // namespace uma::python
