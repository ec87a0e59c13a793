// Run-time checks of generated code: what the reference interpreter refuses on the values
// of a run (an index out of range, an integer division by zero) compiled code reports too,
// instead of giving a wrong result without a word.
//
// A function with checks has an error record: an i64 parameter of kErrorRecordSize elements
// in scope "error", after its outputs. A failed check whose record is still clear (its
// first element 0) stores {site, value, element}: the check's number from 1, the offending
// value and its row-major position in the tensor checked; computing goes on with indices
// clamped, so that nothing reads or writes outside a buffer. The function's attribute
// "checks" lists each site's message, a fmt template with the named arguments {value} and
// {element}. The executor clears the record before a run and reports the first failure as
// the run's error (uma/runtime/executor.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "uma/tir/ir.h"

namespace uma::tir {

inline constexpr std::string_view kErrorScope = "error";
inline constexpr std::int64_t kErrorRecordSize = 3;
inline constexpr std::string_view kChecksAttr = "checks";

// The index of the function's error record parameter, if it has one.
std::optional<std::size_t> error_param(const PrimFunc& func);

// The message of a failed check: `message` (a site's template) with its value and element.
std::string check_failure(std::string_view message, std::int64_t value, std::int64_t element);

}  // namespace uma::tir
