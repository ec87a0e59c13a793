// The in-tree backends, registered by explicit calls (never by static initializers).
#pragma once

#include "uma/support/error.h"
#include "uma/uma/context.h"

namespace uma::backends {

// vanilla: 2-D convolutions offloaded to a C kernel (backends/vanilla/).
Status register_vanilla(Context& context);
// ultra_trail: a 1-D CNN accelerator with its own memories (backends/ultra_trail/).
Status register_ultra_trail(Context& context);
// npu_sim: a parameterised systolic-array NPU with a functional and a performance model
// (backends/npu_sim/).
Status register_npu_sim(Context& context);

#ifdef UMA_HAVE_DNNL
// dnnl: convolutions and dense layers as oneDNN primitives (backends/dnnl/), in builds that
// found oneDNN.
Status register_dnnl(Context& context);
#endif

// Every in-tree backend.
Status register_builtin_backends(Context& context);

}  // namespace uma::backends
