// STUB: to be written.
#include "uma/graph/pass.h"

namespace uma {

std::unique_ptr<Pass> create_fold_constant_pass() { return nullptr; }

}  // namespace uma
