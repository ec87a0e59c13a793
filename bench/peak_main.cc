// bench_peak: prints this machine's FP32 peak (peak.h) at 1 thread and at --threads N, as
// text or, with --json, as {"threads": [1, N], "gflops": [..]} for the ONNX Runtime
// comparison (compare_ort.py).
//
// usage: bench_peak [--threads N] [--json]
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "peak.h"

int main(int argc, char** argv) {
  int threads = 2;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--json") {
      json = true;
    } else {
      fmt::print(stderr,
                 "bench_peak: unknown argument '{}' (usage: bench_peak [--threads N] "
                 "[--json])\n",
                 arg);
      return 2;
    }
  }
  if (threads < 1) {
    fmt::print(stderr, "bench_peak: --threads must be positive\n");
    return 2;
  }
  uma::runtime::CCompilerOptions options;
  options.cache_dir = (std::filesystem::temp_directory_path() / "uma-bench-peak").string();
  std::vector<int> counts = {1};
  if (threads != 1) counts.push_back(threads);
  std::vector<double> gflops;
  for (int count : counts) {
    uma::Expected<double> peak = uma::bench::measure_peak(options, count);
    if (!peak) {
      fmt::print(stderr, "bench_peak: {}\n", peak.error().message());
      return 1;
    }
    gflops.push_back(*peak);
  }
  if (json) {
    fmt::print("{{\"threads\": [{}], \"gflops\": [{:.2f}]}}\n", fmt::join(counts, ", "),
               fmt::join(gflops, ", "));
    return 0;
  }
  for (std::size_t i = 0; i < counts.size(); ++i)
    fmt::print("peak (independent FMAs), {} thread(s): {:.1f} GFLOP/s\n", counts[i], gflops[i]);
  return 0;
}
