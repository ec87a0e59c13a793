// The arena planner: exact offsets for hand-made lifetimes, and a randomized check that
// buffers live at the same time never share bytes.
#include <gtest/gtest.h>

#include <random>

#include "uma/runtime/memory_planner.h"

namespace uma::runtime {
namespace {

TEST(MemoryPlanner, ChainReusesTheBytesOfDeadBuffers) {
  // a -> b -> c: c may take a's place, never b's.
  MemoryPlan plan = plan_memory({{100, 0, 1}, {200, 1, 2}, {100, 2, 3}});
  EXPECT_EQ(plan.offsets, (std::vector<std::int64_t>{256, 0, 256}));
  EXPECT_EQ(plan.arena_size, 356);
  EXPECT_EQ(plan.lower_bound, 300);
  EXPECT_EQ(plan.total, 400);
}

TEST(MemoryPlanner, BestFitTakesTheSmallestGapThatHolds) {
  MemoryPlan plan = plan_memory({
      {256, 0, 0},  // A
      {256, 0, 9},  // B
      {192, 0, 0},  // C
      {128, 0, 9},  // D
      {128, 5, 5},  // E: gaps [0, 256) and [512, 704) are free; the smaller one fits
      {64, 5, 5},   // F: gaps [0, 256) and [640, 704); again the smaller
  });
  EXPECT_EQ(plan.offsets, (std::vector<std::int64_t>{0, 256, 512, 704, 512, 640}));
  EXPECT_EQ(plan.arena_size, 832);
  EXPECT_EQ(plan.lower_bound, 832);
  EXPECT_EQ(plan.total, 1024);
}

TEST(MemoryPlanner, OffsetsAreAligned) {
  MemoryPlan plan = plan_memory({{100, 0, 1}, {10, 0, 1}, {1, 1, 1}});
  EXPECT_EQ(plan.offsets, (std::vector<std::int64_t>{0, 128, 192}));
  EXPECT_EQ(plan.arena_size, 193);
  EXPECT_EQ(plan.lower_bound, 111);

  MemoryPlan wide = plan_memory({{100, 0, 1}, {10, 0, 1}}, 256);
  EXPECT_EQ(wide.offsets, (std::vector<std::int64_t>{0, 256}));
}

TEST(MemoryPlanner, ABufferReadAndWrittenByOneStepDoesNotShare) {
  // Step 1 reads the first and writes the second: lifetimes [0, 1] and [1, 2] overlap.
  MemoryPlan plan = plan_memory({{64, 0, 1}, {64, 1, 2}});
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.arena_size, 128);
}

TEST(MemoryPlanner, NothingToPlace) {
  MemoryPlan plan = plan_memory({});
  EXPECT_TRUE(plan.offsets.empty());
  EXPECT_EQ(plan.arena_size, 0);
  EXPECT_EQ(plan.lower_bound, 0);
}

TEST(MemoryPlanner, RandomLifetimesNeverShareLiveBytes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::size_t count = 1 + rng() % 40, steps = 1 + rng() % 30;
    std::vector<BufferLifetime> buffers(count);
    for (BufferLifetime& b : buffers) {
      b.size = static_cast<std::int64_t>(rng() % 5000);
      b.first = rng() % steps;
      b.last = b.first + rng() % (steps - b.first);
    }
    MemoryPlan plan = plan_memory(buffers);
    ASSERT_EQ(plan.offsets.size(), count);
    EXPECT_GE(plan.arena_size, plan.lower_bound);
    EXPECT_LE(plan.lower_bound, plan.total);
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0);
      EXPECT_LE(plan.offsets[i] + buffers[i].size, plan.arena_size);
      for (std::size_t j = i + 1; j < count; ++j) {
        const BufferLifetime &a = buffers[i], &b = buffers[j];
        bool live_together = a.first <= b.last && b.first <= a.last;
        bool share_bytes = plan.offsets[i] < plan.offsets[j] + b.size &&
                           plan.offsets[j] < plan.offsets[i] + a.size;
        EXPECT_FALSE(live_together && share_bytes)
            << "round " << round << ": buffers " << i << " and " << j;
      }
    }
  }
}

}  // namespace
}  // namespace uma::runtime
