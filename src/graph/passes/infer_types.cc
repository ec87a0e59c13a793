// STUB: to be written.
#include "uma/graph/pass.h"

namespace uma {

std::unique_ptr<Pass> create_infer_types_pass() { return nullptr; }

}  // namespace uma
