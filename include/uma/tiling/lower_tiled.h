// A call of an offloaded layer, lowered tile by tile into the accelerator's memories.
//
// The layer's composite lowering (the backend's one call per composite) is called once per
// kind of tile, on a copy of the composite with the tile's shapes: a tile at the border of a
// padded convolution gets the share of the padding its region leaves out, an inner tile none,
// so the backend's lowering needs no idea of tiles. Its operands are buffers in the memories,
// dense in the tile's shape; the copy's constants have the tile's shape but no data (the call
// reads them at run time). The result, inside one block "tiles" (attributes "tile.shape",
// "tile.order", "tile.double": tir/dma.h names them) whose buffers are the memories' (scope =
// memory name):
//
//   allocate %w_wmem[...] in wmem { allocate %x_fmem[...] in fmem { ...
//     block dma_in { dma_start(...) ...; dma_wait(q) }       operands that follow no tiled axis
//     for t1 in run of axis 1 {                               one loop per run of like tiles
//       block dma_in { ... }                                  operands whose innermost axis is 1
//       for t2 ... {
//         block dma_in { ... }
//         block compute iters {tile = t2} { <the backend's call> }
//         block dma_out { ... } } } }
//
// Tiles of an axis form runs: consecutive tiles whose regions have the same extents and
// paddings and start at a fixed step (the first tile of a padded convolution, the inner
// ones, the last, shorter one). Each move is waited for at once; pipeline-dma overlaps those
// of the loop the compute block iterates over (its iteration variable bound to the innermost
// tiled axis's loop). Where the plan cuts a reduction into chunks, their loop is innermost
// and the output's move comes after it, once the partial sums are complete.
#pragma once

#include "uma/lower/composite_lowering.h"
#include "uma/support/error.h"
#include "uma/tiling/memory.h"
#include "uma/tiling/plan.h"
#include "uma/tiling/region.h"
#include "uma/tir/ir.h"

namespace uma::tiling {

// The statement a call of the layer becomes. `operands` is the call's (host buffers),
// `lowering` the backend's for the composite. Errors name what the tile's copy of the
// composite could not express, or the backend lowering's error for a tile.
Expected<tir::Stmt> lower_tiled(const lower::CompositeOperands& operands,
                                const lower::CompositeLowering& lowering, const TileSpace& space,
                                const TilePlan& plan, const MemoryModel& model);

}  // namespace uma::tiling
