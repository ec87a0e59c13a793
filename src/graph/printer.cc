// STUB: to be written.
#include "uma/graph/printer.h"

#include <sstream>

namespace uma {

void print(std::ostream&, const Module&, const PrintOptions&) {}
std::string to_string(const Module& module, const PrintOptions& options) {
  std::ostringstream os;
  print(os, module, options);
  return os.str();
}

}  // namespace uma
