// The text form of the graph IR (see docs/graph-text-format.md).
#pragma once

#include <ostream>
#include <string>

#include "uma/graph/ir.h"

namespace uma {

struct PrintOptions {
  // Tensors with more elements than this are printed by reference (@name) with their
  // data in the module's trailing data section; smaller ones inline.
  std::int64_t inline_elements_limit = 8;
  // Leave the bytes of referenced tensors out (they parse back as data-less tensors).
  bool elide_data = false;
};

void print(std::ostream& os, const Module& module, const PrintOptions& options = {});
std::string to_string(const Module& module, const PrintOptions& options = {});

}  // namespace uma
