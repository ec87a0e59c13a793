// Parsing the text form of the graph IR.
#pragma once

#include <memory>
#include <string_view>

#include "uma/graph/ir.h"

namespace uma {

// Parses a module. `filename` is used in error messages, which read
// "file:line:column: error: expected ..., found ...". Result types may be omitted, in
// which case they are inferred; given ones must match inference.
Expected<std::unique_ptr<Module>> parse_module(Context& context, std::string_view text,
                                               std::string_view filename = "<input>");

}  // namespace uma
