// STUB: to be written.
#include "uma/op/op_registry.h"

namespace uma {

void register_conv_ops(OpRegistry&) {}

}  // namespace uma
