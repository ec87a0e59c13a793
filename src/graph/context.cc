// The context: registries of ops and passes, filled explicitly.
#include "uma/graph/context.h"

namespace uma {

Context::Context() {
  register_all_ops(ops_);
  register_core_passes(passes_);
}

}  // namespace uma
