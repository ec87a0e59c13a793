// The memory planner: places every intermediate tensor of a host function in one arena,
// reusing the bytes of tensors that are no longer live.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace uma::runtime {

// A buffer to place: its size in bytes and the steps (calls, in execution order) during
// which it is live, both ends included. A buffer written by step s and read last by step t
// has first = s and last = t, so buffers that one step reads and writes never share bytes
// (generated functions take `restrict` pointers).
struct BufferLifetime {
  std::int64_t size = 0;
  std::size_t first = 0;
  std::size_t last = 0;
};

struct MemoryPlan {
  std::vector<std::int64_t> offsets;  // per buffer, a multiple of the alignment
  std::int64_t arena_size = 0;        // bytes: the end of the highest placed buffer
  // The peak, over steps, of the bytes of the buffers live at once: no plan can be smaller.
  std::int64_t lower_bound = 0;
  std::int64_t total = 0;  // the sum of all buffers' sizes: the arena without any reuse
};

// Greedy by size, best fit (as TFLite's arena planner and TVM's USMP greedy_by_size):
// buffers in order of decreasing size (ties: earlier first, then by index) are each put in
// the smallest gap, among the buffers already placed whose lifetimes overlap its own, that
// holds it, else above the highest of them. Offsets are multiples of `alignment` (a power
// of two). Deterministic; O(n^2) in the number of buffers at worst.
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, std::int64_t alignment = 64);

}  // namespace uma::runtime
