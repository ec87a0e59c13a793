// test_npu: the tests' accelerator with real memories, which no product code knows. It declares
// two scratchpads and a DMA engine through the UMA interface, so that the core tiles every
// layer it takes to fit them (uma/tiling/), and runs each tile in a C kernel (test_npu.c):
//
//   imem  features (a layer's data in and out), default 32 KiB, alignment 16
//   wmem  weights and bias, default 16 KiB, alignment 16
//
// Its patterns, each lowered to one kernel call per tile:
//   conv2d     nn.conv2d with a constant weight (any stride, padding, dilation, groups), an
//              optional bias (its operand, or an add of a per-channel constant), optional relu
//   dense      nn.dense of rank-2 data with a constant weight, optional bias, optional relu
//   max_pool2d nn.max_pool2d (padding, strides, dilation, ceil_mode)
//   avg_pool2d nn.avg_pool2d (padding, strides, ceil_mode, count_include_pad)
//   add        add of two tensors of the result's shape, optional relu
//
// Its cost (for --partition=cost): a call takes ceil(work / macs_per_cycle) cycles of the
// array (work: the MACs of its ops, or the elements of an op without products) plus, for
// each input, constant and the output, one DMA transfer of dma_setup_cycles and its bytes at
// dma_bytes_per_cycle, at clock_mhz (attributes macs_per_cycle, default 256, and clock_mhz,
// default 1000, checked to be positive).
//
// Its kernels sum each output as the reference interpreter does, so tiling never changes a
// result. Its DMA engine counts the bytes and transfers it moves into each function's
// load-time state (two i64 at offset 0), which a test reads from the executor.
#pragma once

#include <string_view>

#include "uma/support/error.h"
#include "uma/uma/context.h"

namespace uma {

inline constexpr std::string_view kTestNpu = "test_npu";

Status register_test_npu(Context& context);

}  // namespace uma
