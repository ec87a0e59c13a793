// Greedy-by-size arena planning (see memory_planner.h).
#include "uma/runtime/memory_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "uma/support/error.h"

namespace uma::runtime {
namespace {

std::int64_t align_up(std::int64_t value, std::int64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

bool overlap(const BufferLifetime& a, const BufferLifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

// The peak of live bytes: a sweep over the steps where lifetimes start and end.
std::int64_t peak_live_bytes(const std::vector<BufferLifetime>& buffers) {
  std::vector<std::pair<std::size_t, std::int64_t>> events;  // (step, +size at first)
  events.reserve(2 * buffers.size());
  for (const BufferLifetime& b : buffers) {
    events.emplace_back(2 * b.first, b.size);
    events.emplace_back(2 * b.last + 1, -b.size);  // after every start of the same step
  }
  std::sort(events.begin(), events.end());
  std::int64_t live = 0, peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, std::int64_t alignment) {
  UMA_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0, "alignment {}", alignment);
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  for (const BufferLifetime& b : buffers) {
    UMA_CHECK(b.size >= 0 && b.first <= b.last, "bad lifetime [{}, {}] of {} bytes", b.first,
              b.last, b.size);
    plan.total += b.size;
  }
  plan.lower_bound = peak_live_bytes(buffers);

  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (buffers[a].size != buffers[b].size) return buffers[a].size > buffers[b].size;
    return buffers[a].first < buffers[b].first;
  });

  std::vector<std::size_t> placed;      // buffer indices, in placement order
  std::vector<std::size_t> neighbours;  // placed buffers live at the same time as the next
  for (std::size_t index : order) {
    const BufferLifetime& buffer = buffers[index];
    neighbours.clear();
    for (std::size_t other : placed)
      if (overlap(buffer, buffers[other])) neighbours.push_back(other);
    std::sort(neighbours.begin(), neighbours.end(),
              [&](std::size_t a, std::size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    // The smallest gap between neighbours that holds the buffer, else the top.
    std::int64_t best = -1, best_gap = std::numeric_limits<std::int64_t>::max();
    std::int64_t cursor = 0;
    for (std::size_t other : neighbours) {
      std::int64_t gap = plan.offsets[other] - cursor;
      if (gap >= buffer.size && gap < best_gap) {
        best = cursor;
        best_gap = gap;
      }
      cursor = std::max(cursor, align_up(plan.offsets[other] + buffers[other].size, alignment));
    }
    plan.offsets[index] = best >= 0 ? best : cursor;
    plan.arena_size = std::max(plan.arena_size, plan.offsets[index] + buffer.size);
    placed.push_back(index);
  }
  return plan;
}

}  // namespace uma::runtime
