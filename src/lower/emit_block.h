// Turning one stage into one block of the loop IR: loops over the stage's shape and, for a
// reduction, an accumulator in scope "local" with the reduction loops inside. Private to
// src/lower/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "uma/lower/compute.h"

namespace uma::lower {

// The variables of a stage's output loops, named after stage.axis_names (else i0, i1, ...).
std::vector<tir::Var> output_vars(const Stage& stage);

struct BlockRequest {
  const Stage* stage = nullptr;
  // Where the result goes; indexed by `vars`.
  tir::Buffer target;
  // The output loops' variables (output_vars of the stage, or those an epilogue was written
  // with).
  std::vector<tir::Var> vars;
  // Optional: what is stored, from the stage's value at `vars` (epilogue fusion: the
  // pointwise chain after a reduction). Its type may differ from the target's; it is cast.
  std::function<tir::Expr(const tir::Expr& value)> epilogue;
  // Set while the reduction's body is built, so that reads of the inputs know they sit in
  // the reduction loops (lowering then materializes what is costly to recompute).
  bool* in_reduction = nullptr;
};

// The block `stage.name` computing the stage into the target at every index:
//   block name(reads: ...; writes: target) attributes {stage.attrs} {
//     for (i0, 0, d0) { ... target[i...] = element(i...) }                     pointwise, or
//     for (i0, 0, d0) { ... allocate acc in "local" { acc[0] = init;
//         for (r0, 0, e0) { ... acc[0] = combine(acc[0], body(i..., r...)) }
//         target[i...] = epilogue(finalize(acc[0], i...)) } }                   a reduction
// Index and value expressions are simplified knowing the loops' ranges. Reads are the
// buffers the body loads, in order of first use.
tir::Stmt emit_block(const BlockRequest& request);

}  // namespace uma::lower
