// Tile to fit: how an offloaded layer is cut into tiles that fit an accelerator's memories,
// and what moving them costs.
//
// A plan tiles the layer's output: a size per output axis (a convolution's batch, output
// channels and spatial axes; a dense layer's rows and columns), so that its tiles are stripes
// of time or space, slices of output channels, or both. The tiles run in nested loops, the
// tiled axes in `order` (outermost first). Each operand's tile (its region, region.h) lives in
// the memory that holds its role (the output's in one that holds outputs, where there is
// one), and is moved there by DMA in the innermost loop whose axis
// its region follows: weights that follow only the output channels are moved once per slice,
// and once in all when the slices are one. A layer's reduction (a convolution's input
// channels, a dense layer's inputs) is cut into chunks only where a memory holds
// accumulators: the chunks' loop is then innermost, each call adds its chunk to the partial
// sums kept there (CompositeOperands::first_chunk, last_chunk), and the output moves out
// after the last. Otherwise every output is computed in one call, in the order the
// backend's kernel sums it, and the results are those of the layer run whole.
//
// Double buffered, each operand moved in the innermost loop has two buffers, so that the next
// tile's move overlaps this tile's compute (the pipeline-dma pass); single buffered, one. A
// memory's use is the sum of its buffers, each rounded up to the memory's alignment.
//
// The search: every order of the axes, and every combination of sizes but for one axis,
// which gets the largest size that still fits (a memory's use grows with each size, so a
// bisection finds it). Of the plans that fit, the cheapest wins, its cost the DMA engine's
// busy time: the bytes moved, plus each move's setup cycles at the engine's rate (so that a
// plan of a few large moves beats one of many small ones moving a little less). Double
// buffered plans are preferred where the engine overlaps compute: the single buffered search
// runs only when none fits (or the engine does not overlap). Sizes
// are of the form ceil(extent / k), tiles as even as their count allows, rounded up to a
// multiple of the axis's step (whole groups of a grouped convolution: TileSpace::step).
// (Gemmini's tiled_conv_auto shrinks the largest dimension greedily, Vela's scheduler searches
// stripe heights; these layers' spaces are small enough to search whole.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/support/error.h"
#include "uma/tiling/memory.h"
#include "uma/tiling/region.h"

namespace uma::tiling {

// What a plan does with one operand.
struct OperandPlan {
  std::string name;  // the value's
  Role role = Role::kFeatures;
  bool output = false;
  std::string memory;  // the memory holding its tiles
  Shape tile;          // its largest tile's region
  std::int64_t tile_bytes = 0;
  int buffers = 1;              // 2: double buffered
  std::int64_t moves = 0;       // tiles moved (one DMA group each)
  std::int64_t transfers = 0;   // DMA transfers (dma_start calls) in all
  std::int64_t bytes = 0;       // bytes moved in all
  std::int64_t halo_bytes = 0;  // bytes moved more than once: where the tiles' regions overlap
};

struct MemoryUse {
  std::string name;
  std::int64_t peak = 0;  // bytes, every buffer aligned and counted once per slot
  std::int64_t capacity = 0;
};

struct TilePlan {
  Shape output;  // the layer's output shape
  Shape tile;    // the tile size per output axis
  // Per reduction the layer may cut (TileSpace::extents after the output's), the chunk a tile
  // sums: the whole reduction, unless a memory holds accumulators (a chunk's partial sums
  // are then kept in it and added to, and the output moves out after the last chunk).
  Shape chunks;
  Shape reductions;                // those reductions' extents
  std::vector<std::size_t> order;  // the axes of more than one tile, outermost first; the
                                   // reductions cut innermost
  std::int64_t tiles = 1;          // in all
  bool double_buffered = false;
  std::vector<OperandPlan> operands;  // as TileSpace::operands()
  std::vector<MemoryUse> memories;    // those the layer uses, in the model's order

  std::int64_t traffic() const;  // bytes moved, all operands
  Shape sizes() const;           // tile, then chunks: a size per TileSpace axis
  bool cuts_reduction() const;   // a chunk smaller than its reduction
  // "1x16x128 (8 tiles, double buffered)"
  std::string summary() const;
};

// What a plan costs, lower is better: a backend's performance model of the layer (its cycles,
// Backend::set_estimate), given each candidate with its transfers as many per move as its
// largest tile needs (the chosen plan's are then counted exactly).
using PlanCost = std::function<std::int64_t(const TilePlan&)>;

// The plan for `space` in `model`'s memories, with the numbers of every move: of the plans
// that fit, the cheapest by `cost` when one is given, else by the DMA engine's busy time. An
// error when an operand's role has no memory, or when even the smallest tile, single
// buffered, does not fit: "needs 35840 bytes of fmem at its smallest tile (1x1x1), has 8192".
Expected<TilePlan> plan_tiles(const TileSpace& space, const MemoryModel& model,
                              const PlanCost& cost = {});

// The plan with the given sizes (one per TileSpace axis: the output's, then the reductions')
// and order (the axes of more than one tile), its numbers counted as plan_tiles counts them;
// for tests and for a plan kept from an earlier build. Errors when the sizes do not fit the
// memories, are not multiples of their axes' steps, or cut a reduction no memory can
// accumulate.
Expected<TilePlan> make_plan(const TileSpace& space, const MemoryModel& model, const Shape& sizes,
                             const std::vector<std::size_t>& order, bool double_buffered);

}  // namespace uma::tiling
