// ultra_trail's pattern and passes, one file each, in the order a build runs them. The
// functions partitioned for the target hold one call per layer, each of a composite
// "ultra_trail.conv1d" (a single layer: conv1d → optional bias → optional relu).
#pragma once

#include "layer.h"
#include "uma/pattern/pattern.h"
#include "uma/tir/ir.h"

namespace uma::backends::ultra_trail {

// pattern.cc: nn.conv1d with a constant weight, then an optional bias (conv1d's constant
// third operand, or an add of a constant in either order), then an optional nn.relu.
PatternPtr conv1d_pattern();
// Accepts what the accelerator runs (check_layer), else says why not.
Status check_conv1d(const Match& match, const Target& target);

// POST_PARTITIONING_0, config.cc: "ut.config" on each function partitioned for the target.
// Errors name a layer the accelerator cannot run (the predicate keeps such layers out; a
// module partitioned otherwise may hold one) and an invalid target attribute.
Expected<bool> configure_layers(Module& module, const Target& target);

// POST_PARTITIONING_1, lift_constants.cc: the constants of those functions (and of their
// composites) become their parameters, which the host passes from its weights. Lowering
// would make constants of at most kMaxImmediateElements elements immediates in the
// code, and the accelerator loads weights and bias through pointers: so every one is a
// buffer, and each parameter of the function is a parameter of its PrimFunc, in order.
Expected<bool> lift_constants(Module& module, const Target& target);

// POST_PARTITIONING_1, buffer_scopes.cc: "ut.scopes", "ut.operands" and "ut.outputs" on those
// functions (see layer.h). Runs after lift_constants.
Expected<bool> assign_buffer_scopes(Module& module, const Target& target);

// TIR_PHASE_0, codegen.cc: the function's body becomes, for each layer, a block
// `conv1d_ncw` that loads the weights and bias into their memories, then per sample loads
// the features, runs the accelerator with the layer's configuration and stores the result:
//   ut_load_wmem(s, &w[0, 0, 0], bytes); ut_load_bmem(s, &b[0], bytes);
//   for n: ut_load_fmem(s, &x[n, 0, 0], bytes); ut_run(s, config...);
//          ut_store_fmem(s, &y[n, 0, 0], bytes)
// where s is the function's state (uma/tir/state.h), the accelerator's memories, which its
// init `ut_init(s, bytes)` prepares when the executor loads the model. Each call returns a
// status; the backend's codegen makes a nonzero one the function's result. Features passed
// between layers go through a buffer of the function's own.
Expected<tir::PrimFunc> emit_accelerator_calls(const tir::PrimFunc& func, const Target& target);

}  // namespace uma::backends::ultra_trail
