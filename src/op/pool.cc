// STUB: to be written.
#include "uma/op/op_registry.h"

namespace uma {

void register_pool_ops(OpRegistry&) {}

}  // namespace uma
