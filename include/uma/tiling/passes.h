// The loop-IR passes a build runs on the functions of a target with memories, beside the core's
// pipeline-dma (uma/tir/passes.h): one per file in src/tiling/.
#pragma once

#include "uma/tiling/memory.h"
#include "uma/tir/pass.h"

namespace uma::tiling {

// lower-dma (TIR_PHASE_0, after pipeline-dma): the DMA intrinsics (uma/tir/dma.h) become
// extern calls, with the same arguments, of the engine's functions when it declares them,
// else of the core's (uma_dma_start, uma_dma_wait: a memcpy per row, which the C code
// generator defines).
tir::FuncPass lower_dma_pass(const DmaEngine& engine);

// check-memories (TIR_PHASE_2, after storage-rewrite): the buffers a memory holds at once,
// each rounded up to its alignment, fit its capacity; else an error naming the memory, the
// block (the layer) and the bytes: "memory 'fmem' would hold 40960 bytes at once in block
// 'ultra_trail.conv1d', more than its 32768". A buffer of no declared memory is not counted.
tir::FuncPass check_memories_pass(const MemoryModel& model);

}  // namespace uma::tiling
