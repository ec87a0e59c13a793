// Registering the in-tree backends (see register.h).
#include "register.h"

namespace uma::backends {

Status register_builtin_backends(Context& context) {
  UMA_TRY(register_vanilla(context));
  UMA_TRY(register_ultra_trail(context));
  UMA_TRY(register_npu_sim(context));
#ifdef UMA_HAVE_DNNL
  UMA_TRY(register_dnnl(context));
#endif
  return Status::success();
}

}  // namespace uma::backends
