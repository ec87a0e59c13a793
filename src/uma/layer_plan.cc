// Planning a tiled layer as a build does (see uma/uma/layer_plan.h).
#include "uma/uma/layer_plan.h"

#include <limits>

namespace uma {

tiling::MemoryModel planning_memories(const BackendSpec& spec, const tiling::MemoryModel& model,
                                      std::string_view composite) {
  std::string_view pattern = composite.substr(composite.find('.') + 1);
  return spec.whole_reductions.count(pattern) ? model.without(tiling::Role::kAccumulators) : model;
}

Expected<tiling::TilePlan> plan_layer(const BackendSpec& spec, const Target& target,
                                      const tiling::MemoryModel& memories,
                                      const Function& composite, const tiling::TileSpace& space) {
  tiling::PlanCost cost;
  if (spec.estimate)
    cost = [&](const tiling::TilePlan& candidate) {
      Expected<sim::LayerEstimate> e = spec.estimate(composite, candidate, target);
      return e ? e->cycles : std::numeric_limits<std::int64_t>::max();
    };
  return tiling::plan_tiles(space, memories, cost);
}

BackendCost estimated_cost(const BackendSpec& spec, tiling::MemoryModel model) {
  return [&spec, model = std::move(model)](const Function& composite,
                                            const Target& target) -> Expected<CompositeCost> {
    std::string name = composite.attrs().has("Composite")
                           ? composite.attrs().get_string("Composite")
                           : composite.name();
    tiling::MemoryModel memories = planning_memories(spec, model, name);
    UMA_TRY_ASSIGN(tiling::TileSpace space, tiling::TileSpace::derive(composite));
    UMA_TRY_ASSIGN(tiling::TilePlan plan, plan_layer(spec, target, memories, composite, space));
    UMA_TRY_ASSIGN(sim::LayerEstimate e, spec.estimate(composite, plan, target));
    double stalled = e.cycles > 0 ? static_cast<double>(e.stall_cycles) / e.cycles : 0.0;
    return CompositeCost{.seconds = e.seconds, .transfer_seconds = e.seconds * stalled};
  };
}

}  // namespace uma
