// How a build plans a layer that a backend with memories runs in tiles, in one place for the
// lowering (which tiles the call), the fit and cost checks of partitioning (which ask what the
// lowering will do) and the performance model's cost.
#pragma once

#include <string_view>

#include "uma/graph/ir.h"
#include "uma/support/error.h"
#include "uma/tiling/memory.h"
#include "uma/tiling/plan.h"
#include "uma/tiling/region.h"
#include "uma/uma/backend.h"
#include "uma/uma/target.h"

namespace uma {

// The memories the layers of `composite` ("<target>.<pattern>") are planned in: the target's,
// none holding accumulators where the backend keeps the pattern's reductions whole
// (Backend::keep_reductions_whole).
tiling::MemoryModel planning_memories(const BackendSpec& spec, const tiling::MemoryModel& model,
                                      std::string_view composite);

// The plan of a layer whose tile space is `space`: the cheapest by the backend's performance
// model when it has one (the layer's cycles), else by the DMA engine's time.
Expected<tiling::TilePlan> plan_layer(const BackendSpec& spec, const Target& target,
                                      const tiling::MemoryModel& memories,
                                      const Function& composite, const tiling::TileSpace& space);

// A cost made from the performance model (Backend::set_estimate), for a backend that gives no
// cost of its own: the layer planned as the build would, its time at the accelerator's clock,
// and as the transfers' part the cycles the array stalls waiting for them. `model` is the
// target's memories.
BackendCost estimated_cost(const BackendSpec& spec, tiling::MemoryModel model);

}  // namespace uma
