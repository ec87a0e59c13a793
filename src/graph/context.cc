// The context: registries of ops, passes and partition targets, filled explicitly.
#include "uma/graph/context.h"

namespace uma {

Context::Context() {
  register_all_ops(ops_);
  register_core_passes(passes_);
  register_partition_passes(passes_);
}

}  // namespace uma
