// STUB: to be written.
#include "uma/op/op_registry.h"

namespace uma {

void register_norm_ops(OpRegistry&) {}

}  // namespace uma
