// ultra_trail's pieces, one file each (backends/ultra_trail/): UltraTrail, a 1-D CNN
// accelerator whose "hardware" is the functional model kernels/ultra_trail.c.
//
//   backend.cc      the Backend: target, memories and DMA engine, pattern, lowering, C model
//   pattern.cc      ultra_trail.conv1d: nn.conv1d → optional bias → optional relu, and its
//                   predicate
//   conv1d_call.cc  ultra_trail.conv1d's lowering: one ut_conv1d per tile
//
// The core tiles each layer into the memories (uma/tiling/): a tile's features, weights and
// bias are moved into fmem, wmem and bmem by the accelerator's DMA (ut_dma_start,
// ut_dma_wait), the array computes the tile (ut_conv1d), and the output tile is moved back.
#pragma once

#include <cstdint>
#include <string_view>

#include "uma/lower/composite_lowering.h"
#include "uma/pattern/pattern.h"
#include "uma/uma/target.h"

namespace uma::backends::ultra_trail {

inline constexpr std::string_view kTargetName = "ultra_trail";
// The array's compute call (kernels/ultra_trail.c).
inline constexpr std::string_view kKernelName = "ut_conv1d";
// The largest array side the target accepts.
inline constexpr std::int64_t kMaxDimension = 1024;

// `dimension` in [1, kMaxDimension].
Status check_target(const Target& target);

// nn.conv1d with a constant weight, then an optional bias (conv1d's constant third operand,
// or an add of a constant in either order), then an optional nn.relu.
PatternPtr conv1d_pattern();
// What the array cannot run, as the reason: data other than f32, groups, dilation, a bias
// that is not one value per output channel. Whether the layer fits the memories is the
// core's question (uma/tiling/fit.h): the memories hold tiles, not layers.
Status check_conv1d(const Match& match, const Target& target);

// A tile of ultra_trail.conv1d as one call of the array:
//   ut_conv1d(&x, &w, &b or null, &y, dimension, batch, ch_in, ch_out, kernel, stride,
//             pad_left, pad_right, len_in, len_out, relu, first, last)
// its operands the tile's buffers in the memories; `first` and `last` say which chunk of the
// input channels the tile sums when the core cuts them (CompositeOperands::first_chunk).
Expected<lower::ExternCall> lower_conv1d(const lower::CompositeOperands& operands,
                                         const Target& target);

}  // namespace uma::backends::ultra_trail
