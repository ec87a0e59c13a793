// Short text of attribute values for pattern descriptions and match failures.
#pragma once

#include <string>

#include "uma/graph/attribute.h"

namespace uma::pattern_detail {

// "1", "0.5", "\"same\"", "[1, 1]", "tensor<3xf32>".
std::string attr_text(const Attribute& value);

}  // namespace uma::pattern_detail
