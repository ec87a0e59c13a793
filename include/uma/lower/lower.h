// Lowering: graph functions become loop-IR functions.
//
// Before lowering, `fuse-ops` groups the host function's nodes into fused functions
// (Primitive = 1): an anchor (convolution, dense, matmul, pooling, a reduction) with the
// pointwise ops after it, or a chain of pointwise ops; the host function then only calls
// functions. `lower_function` turns one such function (or a partitioned region, with its
// composites inlined) into one PrimFunc with one loop nest per anchor.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "uma/graph/pass.h"
#include "uma/lower/composite_lowering.h"
#include "uma/lower/compute.h"
#include "uma/tir/ir.h"

namespace uma::lower {

struct LowerOptions {
  // Rules that replace the defaults (a backend's strategies); looked up first. May be null.
  const ComputeRegistry* overrides = nullptr;
  // The symbol of the PrimFunc; the function's global_symbol attribute or name when empty.
  std::string symbol;
  // Composites lowered to one extern call each, by composite name (may be null).
  const CompositeLowerings* composite_lowerings = nullptr;
  // With a tiler, each of those calls becomes the statement it makes of the call and its
  // lowering (tiles moved into an accelerator's memories: uma/tiling/lower_tiled.h) inside
  // the composite's block. May be null.
  const CompositeTiler* tiler = nullptr;
  // Constants of at most this many elements are written into the code as immediates; with
  // 0, every constant (but an empty one) is a buffer.
  std::int64_t max_immediate_elements = kMaxImmediateElements;
};

// Lowers a function whose nodes are ops (calls to Composite functions are inlined, or lowered
// by a composite lowering), in the
// order of its nodes:
// - parameters become buffers (named after the values), read where they are used;
// - a pointwise stage is inlined into its readers, except that a reduction reads a stage
//   that is not injective from a buffer (computed once, by a block of its own);
// - a reduction becomes a block named after its stage, writing into a buffer allocated in
//   the function, or into an output buffer when its value is an output. A reduction whose
//   value only a pointwise chain reads, at the chain's own indices, and which ends in an
//   output of its shape, writes that output directly: one block (conv2d_nchw) stores
//   relu(acc + bias) (epilogue fusion);
// - outputs not yet written get a pointwise block named after their last stage;
// - a call of a composite with a lowering in `composite_lowerings` becomes one block named
//   after the composite ("vanilla.conv2d") whose body is the extern call the lowering
//   returns, reading the buffers of the call's operands and of the composite's constants
//   (each value written into a buffer first if it is not in one), writing its results'
//   buffers, with the attributes of the composite's first op (its anchor: the nn.conv2d of
//   conv → bias → relu). Errors name the call and the composite;
// - small constants (max_immediate_elements) become immediates; larger ones become
//   parameters after the function's own (see bound_constants).
// The result is blocked loop IR (serial loops, multi-dimensional buffers) with the
// function's attributes and global_symbol set. The PrimFunc's params are the function's
// params in order, then the bound constants, then one buffer per output. Errors name the
// node whose op has no rule or whose rule failed.
Expected<tir::PrimFunc> lower_function(const Function& function, const LowerOptions& options = {});

// The parameters of a lowered function that hold constants of the graph function: their
// index in params and the tensor the caller passes there. (Stored as the PrimFunc's
// attributes "constants", the list of indices, and "constant.<index>", each tensor.)
std::vector<std::pair<std::size_t, TensorPtr>> bound_constants(const tir::PrimFunc& func);

}  // namespace uma::lower
