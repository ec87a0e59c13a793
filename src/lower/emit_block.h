// Turning one stage into one block of the loop IR: loops over the stage's shape and, for a
// reduction, a block with iteration variables and an init over the spatial and reduction
// loops. Private to src/lower/.
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
  // pointwise chain after a reduction). It receives the value in the stage's type (a
  // reduction's accumulator is cast first); what it returns may differ from the target's
  // type, and is cast.
  std::function<tir::Expr(const tir::Expr& value)> epilogue;
  // Set while the reduction's body is built, so that reads of the inputs know they sit in
  // the reduction loops (lowering then materializes what is costly to recompute).
  bool* in_reduction = nullptr;
};

// The block `stage.name` computing the stage into the target at every index. Pointwise:
//   block name(reads: ...; writes: target) attributes {stage.attrs} {
//     for (i0, 0, d0) { ... target[i...] = epilogue(element(i...)) } }
// A reduction: a block with iteration variables (spatial per output axis, reduce per
// reduction axis, each bound to its loop's variable), an init and a perfect loop nest,
//   block name(...; writes: acc) iters {i0: spatial(d0) = i0, ..., r0: reduce(e0) = r0}
//       attributes {stage.attrs} {
//     init { acc[i...] = identity }
//     for (i0, 0, d0) { ... for (r0, 0, e0) { ... acc[i...] = combine(acc[i...], body) } } }
// where acc is the target itself when there is no epilogue, no finalize and the
// accumulator's dtype is the target's. Otherwise acc is `<name>_acc` (full size, "global"),
// allocated around the reduction and a pointwise block `<name>_epilogue` (same attributes)
// storing epilogue(finalize(acc[i...], i...)) into the target; the core passes
// decompose-reductions and compact-buffers fuse the two back into one loop nest with a
// scalar accumulator. Index and value expressions are simplified knowing the loops'
// ranges. Reads are the buffers the body loads, in order of first use.
tir::Stmt emit_block(const BlockRequest& request);

// The block `check` of a run-time check (uma/tir/run_checks.h), site `site` of `record`:
//   block check(reads: ...; writes: record) {
//     for (i0, 0, d0) { ... if (failed(i...)) { if (record[0] == 0) {
//       record[0] = site; record[1] = value(i...); record[2] = element(i...) } } } }
// or nothing (an undefined statement) when `failed` is false everywhere.
tir::Stmt emit_check_block(const Shape& shape,
                           const std::function<tir::Expr(const Indices&)>& failed,
                           const std::function<tir::Expr(const Indices&)>& value,
                           const tir::Buffer& record, std::int64_t site);

}  // namespace uma::lower
