// This machine's peak (uma/runtime/machine_peak.h): measured numbers that are rates, and the
// measurement kept in the compiler's cache folder, per CPU and threads, holding what it
// returned. (That a kept file is read back, and a broken one measured again, takes a new
// process: tests/lit/tool/partition-cost.uma.)
#include "uma/runtime/machine_peak.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "c_test_util.h"

namespace uma::runtime {
namespace {

namespace fs = std::filesystem;

TEST(MachinePeak, MeasuresRates) {
  CCompilerOptions options;
  options.cache_dir = testing_c::run_cache_dir();
  Expected<MachinePeak> peak = measure_machine_peak(options, {.tries = 1});
  ASSERT_TRUE(peak.ok()) << peak.error().message();
  EXPECT_TRUE(std::isfinite(peak->gflops) && peak->gflops > 0) << peak->gflops;
  EXPECT_TRUE(std::isfinite(peak->memory_gbps) && peak->memory_gbps > 0) << peak->memory_gbps;
  EXPECT_EQ(measure_machine_peak(options, {.threads = 0}).error().message(),
            "measuring the peak needs a thread and a try, not 0 and 3");
  EXPECT_EQ(machine_peak(options, 0).error().message(), "measuring the peak needs a thread, not 0");
}

TEST(MachinePeak, KeepsTheMeasurementInTheCacheFolder) {
  CCompilerOptions options;
  options.cache_dir = testing_c::fresh_dir("peak-cache");
  Expected<MachinePeak> first = machine_peak(options, 1);
  ASSERT_TRUE(first.ok()) << first.error().message();
  std::vector<fs::path> kept;
  for (const auto& entry : fs::directory_iterator(options.cache_dir))
    if (entry.path().filename().string().starts_with("peak-")) kept.push_back(entry.path());
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_TRUE(kept[0].filename().string().ends_with("-1.txt")) << kept[0];
  std::ifstream in(kept[0]);
  MachinePeak read;
  ASSERT_TRUE(in >> read.gflops >> read.memory_gbps);
  EXPECT_EQ(read.gflops, first->gflops);
  EXPECT_EQ(read.memory_gbps, first->memory_gbps);
  Expected<MachinePeak> again = machine_peak(options, 1);
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->gflops, first->gflops);
  EXPECT_EQ(again->memory_gbps, first->memory_gbps);
}

}  // namespace
}  // namespace uma::runtime
