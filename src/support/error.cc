// Reporting broken internal invariants.
#include "uma/support/error.h"

#include <cstdio>

namespace uma {

void internal_error(const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "uma: internal error (this is a bug in uma, please report it): %s:%d: %s\n",
               file, line, message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace uma
