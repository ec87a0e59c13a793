// DMA in the loop IR: two intrinsics that move data between host memory and an
// accelerator's memories, asynchronously.
//
//   dma_start(queue, dst, src, row_bytes, rows, dst_stride, src_stride)
//     starts moving `rows` rows of `row_bytes` bytes each, row r from src + r * src_stride
//     to dst + r * dst_stride (strides in bytes), on `queue`;
//   dma_wait(queue)
//     returns when every transfer started on `queue` is done.
//
// Both are i32 calls (0 or an error code). tiling's lowering emits them in blocks "dma_in" and
// "dma_out", each transfer waited for at once; pipeline-dma then overlaps them with compute;
// lower-dma makes them extern calls (which have effects: no pass drops them) of the backend's
// DMA functions, or of the core's, which the code generator defines.
#pragma once

#include <cstdint>
#include <string_view>

#include "uma/tir/ir.h"

namespace uma::tir {

inline constexpr std::string_view kDmaStart = "dma_start";
inline constexpr std::string_view kDmaWait = "dma_wait";
// The extern functions lower-dma calls when the backend's engine has none: the C code
// generator defines them (a memcpy per row; nothing to wait for).
inline constexpr std::string_view kCoreDmaStart = "uma_dma_start";
inline constexpr std::string_view kCoreDmaWait = "uma_dma_wait";

// The blocks of a layer tiled into an accelerator's memories (uma/tiling/lower_tiled.h),
// which pipeline-dma reads: the block holding the tiles, with attribute kTileDoubleAttr (1:
// double buffered), and the block of each tile's compute.
inline constexpr std::string_view kTilesBlock = "tiles";
inline constexpr std::string_view kTileDoubleAttr = "tile.double";
inline constexpr std::string_view kComputeBlock = "compute";

// The block names of the moves into and out of a memory, and the attributes they carry.
inline constexpr std::string_view kDmaInBlock = "dma_in";
inline constexpr std::string_view kDmaOutBlock = "dma_out";
inline constexpr std::string_view kDmaQueueAttr = "dma.queue";
inline constexpr std::string_view kDmaOperandAttr = "dma.operand";

Stmt dma_start(Expr queue, Expr dst, Expr src, Expr row_bytes, Expr rows, Expr dst_stride,
               Expr src_stride);
Stmt dma_wait(Expr queue);

// The call of dma_start or dma_wait an Evaluate holds, or null.
const CallNode* as_dma_call(const Stmt& s, std::string_view name);

}  // namespace uma::tir
