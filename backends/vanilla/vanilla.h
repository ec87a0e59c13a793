// The vanilla backend's pieces, one file each (backends/vanilla/): a 2-D convolution
// accelerator whose "hardware" is the C kernel kernels/vanilla_conv2d.c.
//
//   backend.cc       the Backend: target "vanilla --dimension=N --sram_kb=M", its memory,
//                    pattern, lowering, C kernel
//   patterns.cc      vanilla.conv2d: nn.conv2d → optional bias add → optional relu or clip
//   conv2d_call.cc   vanilla.conv2d's lowering: one call of the kernel per composite
#pragma once

#include <cstdint>
#include <string_view>

#include "uma/lower/composite_lowering.h"
#include "uma/pattern/pattern.h"
#include "uma/uma/target.h"

namespace uma::backends::vanilla {

inline constexpr std::string_view kTargetName = "vanilla";
// The kernel's entry point (kernels/vanilla_conv2d.c).
inline constexpr std::string_view kKernelName = "vanilla_conv2dnchw";
// The largest `dimension` (output channels computed at once) the kernel's accumulator tile
// holds: VANILLA_MAX_DIMENSION in the kernel.
inline constexpr std::int64_t kMaxDimension = 64;

// The target's attributes in range: `dimension` from 1 to kMaxDimension. Checked when a
// build's targets are parsed, and again by the lowering (which a test may call alone).
Status check_target(const Target& target);

// nn.conv2d with a constant weight (and optionally the constant bias operand), then an
// optional add of a constant in either operand order, then an optional nn.relu or clip.
PatternPtr conv2d_pattern();
// What the kernel cannot do, as "vanilla.conv2d: <reason>": dtypes other than f32, groups,
// dilation, a bias that is not one value per output channel, two biases.
Status check_conv2d(const Match& match, const Target& target);

// vanilla.conv2d as one call of the kernel with the composite's sizes, bias and clamp and the
// target's dimension. Errors when `dimension` is out of range.
Expected<lower::ExternCall> lower_conv2d(const lower::CompositeOperands& operands,
                                         const Target& target);

}  // namespace uma::backends::vanilla
