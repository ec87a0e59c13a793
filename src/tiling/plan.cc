// Tile to fit: the search for a layer's tiles and the count of what moving them costs (see
// uma/tiling/plan.h).
#include "uma/tiling/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace uma::tiling {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t value, std::int64_t multiple) {
  return ceil_div(value, multiple) * multiple;
}

std::string shape_text(const Shape& shape) {
  std::string text;
  for (std::size_t d = 0; d < shape.size(); ++d) text += (d ? "x" : "") + std::to_string(shape[d]);
  return text.empty() ? "scalar" : text;
}

// The sizes an axis of `extent` may be cut into, largest first: ceil(extent / k) for every k,
// rounded up to a multiple of `step` (TileSpace::step) but for the whole axis.
std::vector<std::int64_t> candidate_sizes(std::int64_t extent, std::int64_t step) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t k = 1; k <= extent; ++k) {
    std::int64_t even = ceil_div(extent, k);
    std::int64_t size = std::min(round_up(even, step), extent);
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size);
    if (size <= step) break;
    // Past sqrt(extent), every size below the last one is reached by some k: jump to it.
    k = std::max(k, ceil_div(extent, even - 1) - 1);
  }
  return sizes;
}

// The DMA transfers that move a region of `extents` out of (or into) a dense array of
// `shape`: the contiguous run covers the innermost dimensions the region spans whole, plus
// one; an engine of two dimensions also strides over the next one.
std::int64_t transfers(const Shape& extents, const Shape& shape, std::int64_t dims) {
  std::size_t k = extents.size();
  for (std::int64_t e : extents)
    if (e == 0) return 0;
  if (k == 0) return 1;
  --k;
  while (k > 0 && extents[k] == shape[k]) --k;
  if (dims >= 2 && k > 0) --k;
  std::int64_t count = 1;
  for (std::size_t d = 0; d < k; ++d) count *= extents[d];
  return count;
}

// The tiles of one axis at one size: how many, and per operand the sum over the tiles of the
// elements of its dimensions that follow the axis, and of each such dimension the largest
// extent and the extent the tiles cover together (less than the span from the first tile's
// start to the last's end where strides leave gaps between them).
struct AxisTiles {
  std::int64_t count = 0;
  // The most tiles of one run (TileSpace::runs): a loop of that many, which pipeline-dma
  // double buffers; with none of two or more, nothing is.
  std::int64_t longest_run = 0;
  std::vector<std::int64_t> sum;                   // per operand
  std::vector<std::vector<std::int64_t>> most;     // per operand, per dimension
  std::vector<std::vector<std::int64_t>> covered;  // per operand, per dimension
};

class Planner {
 public:
  Planner(const TileSpace& space, const MemoryModel& model) : space_(space), model_(model) {}

  Status init() {
    for (const TileOperand& operand : space_.operands()) {
      const Memory* memory = operand.output ? model_.holding(Role::kOutputs) : nullptr;
      if (memory == nullptr) memory = model_.holding(operand.role);
      if (memory == nullptr)
        return make_error("no memory holds %{}'s {}", operand.value->name(),
                          role_name(operand.role));
      memory_.push_back(memory);
    }
    // A reduction is cut only where a memory holds the partial sums.
    accumulators_ = model_.holding(Role::kAccumulators);
    for (std::size_t a = 0; a < space_.num_axes(); ++a) {
      std::int64_t extent = space_.extents()[a];
      sizes_.push_back(space_.is_reduction(a) && accumulators_ == nullptr
                           ? std::vector<std::int64_t>{extent}
                           : candidate_sizes(extent, space_.step(a)));
    }
    return Status::success();
  }

  const std::vector<std::vector<std::int64_t>>& sizes() const { return sizes_; }
  const TileSpace& space() const { return space_; }

  const AxisTiles& tiles(std::size_t axis, std::int64_t size) {
    auto [it, fresh] = cache_.try_emplace({axis, size});
    AxisTiles& t = it->second;
    if (!fresh) return t;
    std::int64_t extent = space_.extents()[axis];
    t.count = ceil_div(extent, size);
    for (const TileSpace::Run& run : space_.runs(axis, size))
      t.longest_run = std::max(t.longest_run, run.count);
    const auto& operands = space_.operands();
    t.sum.assign(operands.size(), 0);
    t.most.resize(operands.size());
    t.covered.resize(operands.size());
    for (std::size_t i = 0; i < operands.size(); ++i) {
      std::size_t rank = operands[i].shape.size();
      t.most[i].assign(rank, 0);
      t.covered[i].assign(rank, 0);
      bool follows = false;
      for (std::size_t d = 0; d < rank; ++d) follows |= operands[i].axis[d] == axis;
      if (!follows) continue;
      // Regions move forward with the tiles: each adds what lies past the previous one's end.
      std::vector<std::int64_t> end(rank, 0);
      for (std::int64_t p = 0; p < t.count; ++p) {
        std::int64_t elements = 1;
        for (std::size_t d = 0; d < rank; ++d) {
          if (operands[i].axis[d] != axis) continue;
          Place place = space_.tile_place(i, d, size, p);
          std::int64_t start = place.start, e = place.extent;
          elements *= e;
          t.most[i][d] = std::max(t.most[i][d], e);
          if (e == 0) continue;
          t.covered[i][d] += std::max<std::int64_t>(start + e - std::max(start, end[d]), 0);
          end[d] = std::max(end[d], start + e);
        }
        t.sum[i] += elements;
      }
    }
    return t;
  }

  // A plan's numbers, its transfers as many per move as its largest tile needs (count_transfers
  // counts them exactly for the chosen plan: this is what a search compares, cheaply).
  TilePlan evaluate(const Shape& tile, const std::vector<std::size_t>& order_in, bool dbl) {
    TilePlan plan;
    plan.output = space_.output_shape();
    std::size_t rank = plan.output.size();
    plan.tile.assign(tile.begin(), tile.begin() + static_cast<std::ptrdiff_t>(rank));
    plan.chunks.assign(tile.begin() + static_cast<std::ptrdiff_t>(rank), tile.end());
    plan.reductions.assign(space_.extents().begin() + static_cast<std::ptrdiff_t>(rank),
                           space_.extents().end());
    // Partial sums of a cut reduction are kept where accumulators are.
    bool cut = plan.cuts_reduction();
    for (std::size_t a : order_in)
      if (tiles(a, tile[a]).count > 1) plan.order.push_back(a);
    plan.tiles = 1;
    for (std::size_t a = 0; a < tile.size(); ++a) plan.tiles *= tiles(a, tile[a]).count;
    // Double buffering needs a loop of two or more like tiles on the innermost axis.
    plan.double_buffered = dbl && !plan.order.empty() &&
                           tiles(plan.order.back(), tile[plan.order.back()]).longest_run > 1;
    const auto& operands = space_.operands();
    std::map<const Memory*, std::int64_t> use;
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const TileOperand& operand = operands[i];
      OperandPlan op;
      op.name = operand.value->name();
      op.role = operand.role;
      op.output = operand.output;
      const Memory* memory = operand.output && cut ? accumulators_ : memory_[i];
      if (operand.output && cut) op.role = Role::kAccumulators;
      op.memory = memory->name;
      std::int64_t elem = static_cast<std::int64_t>(dtype_size(operand.dtype));
      std::int64_t swept = elem, unique = elem;
      std::vector<bool> follows(tile.size(), false);
      for (std::size_t d = 0; d < operand.shape.size(); ++d) {
        std::int64_t most;
        if (operand.axis[d]) {
          follows[*operand.axis[d]] = true;
          std::size_t axis = *operand.axis[d];
          most = tiles(axis, tile[axis]).most[i][d];
          unique *= tiles(axis, tile[axis]).covered[i][d];
        } else {
          most = space_.tile_place(i, d, 1, 0).extent;
          swept *= most;
          unique *= most;
        }
        op.tile.push_back(most);
      }
      for (std::size_t a = 0; a < tile.size(); ++a)
        if (follows[a]) swept *= tiles(a, tile[a]).sum[i];
      // Moved in the loop of the innermost axis it follows; reloaded by each outer loop
      // whose axis it does not follow.
      std::ptrdiff_t innermost = -1;
      for (std::size_t k = 0; k < plan.order.size(); ++k)
        if (follows[plan.order[k]]) innermost = static_cast<std::ptrdiff_t>(k);
      std::int64_t reload = 1;
      for (std::ptrdiff_t k = 0; k < innermost; ++k)
        if (!follows[plan.order[static_cast<std::size_t>(k)]])
          reload *= tiles(plan.order[static_cast<std::size_t>(k)],
                          tile[plan.order[static_cast<std::size_t>(k)]])
                        .count;
      op.moves = reload;
      for (std::size_t a = 0; a < tile.size(); ++a)
        if (follows[a]) op.moves *= tiles(a, tile[a]).count;
      op.bytes = swept * reload;
      op.halo_bytes = std::max<std::int64_t>(swept - unique, 0) * reload;
      op.tile_bytes = elem;
      for (std::int64_t e : op.tile) op.tile_bytes *= e;
      op.transfers = op.moves * transfers(op.tile, operand.shape, model_.dma.dims);
      bool inner =
          !plan.order.empty() && innermost == static_cast<std::ptrdiff_t>(plan.order.size()) - 1;
      op.buffers = plan.double_buffered && inner ? 2 : 1;
      use[memory] += memory->footprint(op.tile_bytes) * op.buffers;
      plan.operands.push_back(std::move(op));
    }
    for (const Memory& memory : model_.memories)
      if (auto it = use.find(&memory); it != use.end())
        plan.memories.push_back({memory.name, it->second, memory.capacity});
    return plan;
  }

  static std::int64_t excess(const TilePlan& plan) {
    std::int64_t over = 0;
    for (const MemoryUse& m : plan.memories) over += std::max<std::int64_t>(m.peak - m.capacity, 0);
    return over;
  }

  // The exact number of DMA transfers of each operand: every tile's region, as moved.
  void count_transfers(TilePlan& plan) {
    const auto& operands = space_.operands();
    Shape sizes = plan.sizes();
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const TileOperand& operand = operands[i];
      std::vector<std::size_t> axes;
      for (std::size_t a = 0; a < sizes.size(); ++a)
        for (std::size_t d = 0; d < operand.shape.size(); ++d)
          if (operand.axis[d] == a && std::find(axes.begin(), axes.end(), a) == axes.end())
            axes.push_back(a);
      std::int64_t per_sweep = 0, sweeps = plan.operands[i].moves;
      std::vector<std::int64_t> position(axes.size(), 0);
      for (std::size_t a : axes) sweeps /= tiles(a, sizes[a]).count;
      while (true) {
        Shape extents;
        for (std::size_t d = 0; d < operand.shape.size(); ++d) {
          std::int64_t p = 0;
          std::int64_t size = 1;
          if (operand.axis[d]) {
            std::size_t k = static_cast<std::size_t>(
                std::find(axes.begin(), axes.end(), *operand.axis[d]) - axes.begin());
            p = position[k];
            size = sizes[*operand.axis[d]];
          }
          extents.push_back(space_.tile_place(i, d, size, p).extent);
        }
        per_sweep += transfers(extents, operand.shape, model_.dma.dims);
        std::size_t k = 0;
        for (; k < axes.size(); ++k) {
          if (++position[k] < tiles(axes[k], sizes[axes[k]]).count) break;
          position[k] = 0;
        }
        if (k == axes.size()) break;
      }
      plan.operands[i].transfers = per_sweep * sweeps;
    }
  }

 private:
  const TileSpace& space_;
  const MemoryModel& model_;
  std::vector<const Memory*> memory_;
  const Memory* accumulators_ = nullptr;
  std::vector<std::vector<std::int64_t>> sizes_;
  std::map<std::pair<std::size_t, std::int64_t>, AxisTiles> cache_;
};

// What a plan costs without a backend's model: the DMA engine's busy time in bytes, every byte
// moved plus each move's setup (its cycles at the engine's rate).
std::int64_t dma_cost(const TilePlan& plan, const DmaEngine& dma) {
  std::int64_t moves = 0;
  for (const OperandPlan& operand : plan.operands) moves += operand.moves;
  return plan.traffic() + moves * dma.setup_cycles * dma.bytes_per_cycle;
}

// The cheapest plan that fits, over every order of the axes and every combination of sizes
// of all axes but one (see plan.h): the remaining axis gets the largest size that fits, found
// by bisection (a memory's use grows with every size).
std::optional<TilePlan> search(Planner& planner, const std::vector<std::size_t>& axes, bool dbl,
                               const PlanCost& cost) {
  const auto& sizes = planner.sizes();
  if (axes.empty()) {
    Shape whole;
    for (const auto& axis : sizes) whole.push_back(axis.front());
    TilePlan plan = planner.evaluate(whole, {}, dbl);
    return Planner::excess(plan) == 0 ? std::optional(plan) : std::nullopt;
  }
  // The axis with the most sizes is bisected; the others enumerated.
  std::size_t free = axes.front();
  for (std::size_t a : axes)
    if (sizes[a].size() > sizes[free].size()) free = a;
  std::vector<std::size_t> others;
  for (std::size_t a : axes)
    if (a != free) others.push_back(a);
  std::optional<TilePlan> best;
  std::int64_t best_cost = 0;
  // The output's axes in every order, the reductions innermost: the partial sums stay in
  // their memory while the chunks go by.
  std::vector<std::size_t> order, reductions;
  for (std::size_t a : axes) (planner.space().is_reduction(a) ? reductions : order).push_back(a);
  std::sort(order.begin(), order.end());
  do {
    std::vector<std::size_t> full = order;
    full.insert(full.end(), reductions.begin(), reductions.end());
    std::vector<std::size_t> index(sizes.size(), 0);
    while (true) {
      Shape tile;
      for (std::size_t a = 0; a < sizes.size(); ++a) tile.push_back(sizes[a][index[a]]);
      // Sizes of the free axis run from largest (index 0) to 1: find the first that fits.
      std::size_t lo = 0, hi = sizes[free].size();
      while (lo < hi) {
        std::size_t mid = (lo + hi) / 2;
        tile[free] = sizes[free][mid];
        if (Planner::excess(planner.evaluate(tile, full, dbl)) == 0)
          hi = mid;
        else
          lo = mid + 1;
      }
      if (lo < sizes[free].size()) {
        tile[free] = sizes[free][lo];
        TilePlan plan = planner.evaluate(tile, full, dbl);
        std::int64_t plan_cost = cost(plan);
        if (!best || plan_cost < best_cost) {
          best = std::move(plan);
          best_cost = plan_cost;
        }
      }
      std::size_t k = 0;
      for (; k < others.size(); ++k) {
        if (++index[others[k]] < sizes[others[k]].size()) break;
        index[others[k]] = 0;
      }
      if (k == others.size()) break;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

}  // namespace

std::int64_t TilePlan::traffic() const {
  std::int64_t bytes = 0;
  for (const OperandPlan& operand : operands) bytes += operand.bytes;
  return bytes;
}

Shape TilePlan::sizes() const {
  Shape all = tile;
  all.insert(all.end(), chunks.begin(), chunks.end());
  return all;
}

bool TilePlan::cuts_reduction() const {
  for (std::size_t r = 0; r < chunks.size(); ++r)
    if (chunks[r] < reductions[r]) return true;
  return false;
}

std::string TilePlan::summary() const {
  std::string chunked;
  for (std::size_t r = 0; r < chunks.size(); ++r)
    if (chunks[r] < reductions[r])
      chunked += fmt::format(", reduction {} in chunks of {}", output.size() + r, chunks[r]);
  return fmt::format("{} ({} tile{}{}, {} buffered)", shape_text(tile), tiles,
                     tiles == 1 ? "" : "s", chunked, double_buffered ? "double" : "single");
}

Expected<TilePlan> plan_tiles(const TileSpace& space, const MemoryModel& model,
                              const PlanCost& cost) {
  Planner planner(space, model);
  UMA_TRY(planner.init());
  std::vector<std::size_t> axes;
  for (std::size_t a = 0; a < space.num_axes(); ++a)
    if (planner.sizes()[a].size() > 1) axes.push_back(a);
  std::optional<TilePlan> best;
  // An engine that stalls the array while it moves gains nothing from a second buffer.
  for (bool dbl : {true, false}) {
    if (dbl && !model.dma.overlaps_compute) continue;
    best = search(planner, axes, dbl,
                  cost ? cost : PlanCost([&](const TilePlan& plan) { return dma_cost(plan, model.dma); }));
    if (best) break;
  }
  if (!best) {
    Shape smallest;
    for (const auto& axis : planner.sizes()) smallest.push_back(axis.back());
    TilePlan plan = planner.evaluate(smallest, axes, false);
    for (const MemoryUse& memory : plan.memories)
      if (memory.peak > memory.capacity)
        return make_error("needs {} bytes of {} at its smallest tile ({}), has {}", memory.peak,
                          memory.name, shape_text(plan.tile), memory.capacity);
    return make_error("no tiling fits");  // unreachable: the smallest tile fits then
  }
  planner.count_transfers(*best);
  return std::move(*best);
}

Expected<TilePlan> make_plan(const TileSpace& space, const MemoryModel& model, const Shape& tile,
                             const std::vector<std::size_t>& order, bool double_buffered) {
  Planner planner(space, model);
  UMA_TRY(planner.init());
  if (tile.size() != space.num_axes())
    return make_error("the tile has {} sizes for a layer of {} axes", tile.size(),
                      space.num_axes());
  for (std::size_t a = 0; a < tile.size(); ++a) {
    if (tile[a] < 1 || tile[a] > space.extents()[a])
      return make_error("the tile's size {} on axis {} is not in [1, {}]", tile[a], a,
                        space.extents()[a]);
    if (tile[a] % space.step(a) != 0 && tile[a] != space.extents()[a])
      return make_error("the tile's size {} on axis {} is not a multiple of {}, its step", tile[a],
                        a, space.step(a));
    if (space.is_reduction(a) && tile[a] < space.extents()[a] &&
        model.holding(Role::kAccumulators) == nullptr)
      return make_error("the tile cuts reduction {}, and no memory holds accumulators", a);
  }
  TilePlan plan = planner.evaluate(tile, order, double_buffered);
  for (const MemoryUse& memory : plan.memories)
    if (memory.peak > memory.capacity)
      return make_error("tile {} needs {} bytes of {}, has {}", shape_text(plan.tile), memory.peak,
                        memory.name, memory.capacity);
  planner.count_transfers(plan);
  return plan;
}

}  // namespace uma::tiling
