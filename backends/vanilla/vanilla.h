// The vanilla backend's pieces, one file each (backends/vanilla/): a 2-D convolution
// accelerator whose "hardware" is the C kernel kernels/vanilla_conv2d.c.
//
//   backend.cc          the Backend: target "vanilla --dimension=N", pattern, passes, C kernel
//   patterns.cc         vanilla.conv2d: nn.conv2d → optional bias add → optional relu or clip
//   conv2d_offload.cc   TIR_PHASE_0 pass vanilla-conv2d-offload: conv2d_nchw blocks → kernel calls
//   fuse_epilogue.cc    TIR_PHASE_0 pass vanilla-fuse-epilogue: a call's epilogue block → the call
//   conv2d_call.h/.cc   the call's arguments and the loop-IR shapes both passes read
#pragma once

#include <cstdint>
#include <string_view>

#include "uma/pattern/pattern.h"
#include "uma/tir/ir.h"
#include "uma/uma/target.h"

namespace uma::backends::vanilla {

inline constexpr std::string_view kTargetName = "vanilla";
// The kernel's entry point (kernels/vanilla_conv2d.c).
inline constexpr std::string_view kKernelName = "vanilla_conv2dnchw";
// The largest `dimension` (output channels computed at once) the kernel's accumulator tile
// holds: VANILLA_MAX_DIMENSION in the kernel.
inline constexpr std::int64_t kMaxDimension = 64;

// The target's attributes in range: `dimension` from 1 to kMaxDimension. Checked when a
// build's targets are parsed, and again by the pass (which a test may call alone).
Status check_target(const Target& target);

// nn.conv2d with a constant weight (and optionally the constant bias operand), then an
// optional add of a constant in either operand order, then an optional nn.relu or clip.
PatternPtr conv2d_pattern();
// What the kernel cannot do, as "vanilla.conv2d: <reason>": dtypes other than f32, groups,
// dilation, a bias that is not one value per output channel, operands small enough for
// lowering to write them into the code.
Status check_conv2d(const Match& match, const Target& target);

// vanilla-conv2d-offload: replaces the loop nest of every conv2d_nchw block by one call of
// the kernel, with the block's epilogue (bias, relu, clip) fused into the call when the kernel
// can compute it, else kept as a loop nest after it. Functions without such a block are
// returned as given. Errors when `dimension` is out of range or a block does not compute a
// convolution of the form the pattern admits (a bug: the predicate lets no other through).
Expected<tir::PrimFunc> offload_conv2d(const tir::PrimFunc& func, const Target& target);

// vanilla-fuse-epilogue: folds the block that computes a call's bias and activation (the
// epilogue of a convolution inside a region, which lowering computes in a block of its own)
// into the call, when the kernel computes it exactly and nothing else reads the sums.
Expected<tir::PrimFunc> fuse_epilogue(const tir::PrimFunc& func, const Target& target);

}  // namespace uma::backends::vanilla
