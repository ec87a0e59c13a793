// The context the fuzz targets of the build share: built-in ops and every in-tree backend,
// made once per process, as a long-running tool would have it.
#pragma once

#include <cstdlib>

#include "backends/register.h"
#include "uma/uma/context.h"

namespace uma::fuzz {

inline Context& fuzz_context() {
  static Context* context = [] {
    auto* made = new Context;
    if (!backends::register_builtin_backends(*made).ok()) std::abort();
    return made;
  }();
  return *context;
}

}  // namespace uma::fuzz
