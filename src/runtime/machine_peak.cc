// The machine's FP32 peak and memory bandwidth, measured and cached (see
// uma/runtime/machine_peak.h).
#include "uma/runtime/machine_peak.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/ranges.h>
#include <sys/mman.h>

#include "uma/runtime/library.h"
#include "uma/support/file.h"

namespace uma::runtime {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPeakSource = R"(#include <stdint.h>
#include <math.h>
#if defined(__AVX512F__)
#include <immintrin.h>
typedef __m512 vec;
#define LANES 16
#define SPLAT(x) _mm512_set1_ps(x)
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define SUM(v) _mm512_reduce_add_ps(v)
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
typedef __m256 vec;
#define LANES 8
#define SPLAT(x) _mm256_set1_ps(x)
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
static float SUM(vec v) { float t[8]; _mm256_storeu_ps(t, v); return t[0]; }
#else
typedef float vec;
#define LANES 1
#define SPLAT(x) (x)
#define FMA(a, b, c) fmaf(a, b, c)
#define SUM(v) (v)
#endif
// Twelve chains (more than FMA latency x ports), each in a register of its own; returns the
// operations one thread does.
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
int64_t uma_peak_fma(int64_t iters, int threads, float* sink) {
  #pragma omp parallel num_threads(threads)
  {
#define DECLARE(k) vec acc##k = SPLAT(0.001f * (float)(k));
#define STEP(k) acc##k = FMA(acc##k, a, b);
#define ADD(k) s += SUM(acc##k);
    CHAINS(DECLARE)
    vec a = SPLAT(0.999f), b = SPLAT(0.0001f);
    for (int64_t i = 0; i < iters; ++i) {
      CHAINS(STEP)
    }
    float s = 0;
    CHAINS(ADD)
    #pragma omp atomic
    *sink += s;
  }
  return iters * 12 * LANES * 2;
}
// The triad; returns the bytes it reads and writes.
int64_t uma_peak_stream(float* restrict a, const float* restrict b, const float* restrict c,
                        int64_t n, int threads) {
  #pragma omp parallel for simd num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 0.5f * c[i];
  return 3 * n * (int64_t)sizeof(float);
}
)";

using FmaLoop = std::int64_t (*)(std::int64_t, int, float*);
using StreamLoop = std::int64_t (*)(float*, const float*, const float*, std::int64_t, int);

// Floats per array of the triad: 32 MiB each, three times the largest caches of today's
// servers together.
constexpr std::int64_t kStreamFloats = std::int64_t{8} << 20;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Operations per second of the FMA loop: its count doubled until a run on one thread lasts
// long enough, then the best of the tries at that count on every thread. (Counted on
// several, a run that waits for a thread the system has not scheduled yet would stop the
// count at a few microseconds of work.)
double fma_rate(FmaLoop loop, const PeakMeasurement& m) {
  float sink = 0;
  std::int64_t iters = 1 << 12;
  for (;;) {
    auto start = std::chrono::steady_clock::now();
    loop(iters, 1, &sink);
    if (seconds_since(start) >= m.seconds_per_try || iters >= (std::int64_t{1} << 40)) break;
    iters *= 2;
  }
  double best = 0;
  for (int t = 0; t < m.tries; ++t) {
    auto start = std::chrono::steady_clock::now();
    std::int64_t operations = loop(iters, m.threads, &sink);
    best = std::max(best, m.threads * static_cast<double>(operations) / seconds_since(start));
  }
  return best;
}

// The triad's three arrays in one allocation, in huge pages where the system gives them on
// request: bringing 96 MiB in by 4 KiB page faults would take most of the measurement's time.
class StreamArrays {
 public:
  StreamArrays() {
    memory_ = static_cast<float*>(std::aligned_alloc(kHugePage, kBytes));
    if (memory_ == nullptr) return;
#ifdef MADV_HUGEPAGE
    ::madvise(memory_, kBytes, MADV_HUGEPAGE);  // advice: nothing to do when refused
#endif
    // Written, not only allocated: untouched pages would all read the one zero page.
    std::fill(memory_, memory_ + 3 * kStreamFloats, 1.0f);
  }
  ~StreamArrays() { std::free(memory_); }
  StreamArrays(const StreamArrays&) = delete;
  StreamArrays& operator=(const StreamArrays&) = delete;
  float* array(int i) const { return memory_ + i * kStreamFloats; }
  bool ok() const { return memory_ != nullptr; }

 private:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kBytes = 3 * kStreamFloats * sizeof(float);
  float* memory_ = nullptr;
};

// Bytes per second of the triad: the best of the tries after one untimed run.
Expected<double> stream_rate(StreamLoop loop, const PeakMeasurement& m) {
  StreamArrays arrays;
  if (!arrays.ok()) return make_error("measuring the memory's bandwidth: out of memory");
  float *a = arrays.array(0), *b = arrays.array(1), *c = arrays.array(2);
  loop(a, b, c, kStreamFloats, m.threads);
  double best = 0;
  for (int t = 0; t < m.tries; ++t) {
    auto start = std::chrono::steady_clock::now();
    std::int64_t bytes = loop(a, b, c, kStreamFloats, m.threads);
    best = std::max(best, static_cast<double>(bytes) / seconds_since(start));
  }
  return best;
}

Expected<MachinePeak> measure_library(const std::string& path, const PeakMeasurement& m) {
  UMA_TRY_ASSIGN(Library library, Library::open(path));
  UMA_TRY_ASSIGN(void* fma, library.symbol("uma_peak_fma"));
  UMA_TRY_ASSIGN(void* stream, library.symbol("uma_peak_stream"));
  double flops = fma_rate(reinterpret_cast<FmaLoop>(fma), m);
  UMA_TRY_ASSIGN(double bytes, stream_rate(reinterpret_cast<StreamLoop>(stream), m));
  return MachinePeak{.gflops = flops / 1e9, .memory_gbps = bytes / 1e9};
}

Expected<std::string> build_loops(CCompilerOptions options) {
  options.openmp = true;
  options.on_compiled = nullptr;
  CCompiler compiler(options);
  return compiler.build_shared_library({{"uma_peak", kPeakSource}});
}

// The peak a cache file holds: two positive numbers.
std::optional<MachinePeak> read_peak(const std::string& path) {
  Expected<std::string> text = read_file(path);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  MachinePeak peak;
  if (!(in >> peak.gflops >> peak.memory_gbps)) return std::nullopt;
  for (double value : {peak.gflops, peak.memory_gbps})
    if (!std::isfinite(value) || value <= 0) return std::nullopt;
  return peak;
}

}  // namespace

Expected<MachinePeak> measure_machine_peak(const CCompilerOptions& compiler,
                                           const PeakMeasurement& measurement) {
  if (measurement.threads < 1 || measurement.tries < 1)
    return make_error("measuring the peak needs a thread and a try, not {} and {}",
                      measurement.threads, measurement.tries);
  UMA_TRY_ASSIGN(std::string library, build_loops(compiler));
  return measure_library(library, measurement);
}

Expected<MachinePeak> machine_peak(const CCompilerOptions& compiler, int threads) {
  if (threads < 1) return make_error("measuring the peak needs a thread, not {}", threads);
  // Measured once per process and set of options; measurements never run side by side, which
  // would halve each other's numbers.
  static std::mutex mutex;
  static std::map<std::string, MachinePeak> measured;
  std::string key = fmt::format(
      "{}\n{}\n{}\n{}\n{}\n{}", compiler.compiler, compiler.cpu, fmt::join(compiler.features, " "),
      fmt::join(compiler.compile_flags, " "), compiler.cache_dir, threads);
  std::lock_guard lock(mutex);
  if (auto it = measured.find(key); it != measured.end()) return it->second;

  UMA_TRY_ASSIGN(std::string library, build_loops(compiler));
  // lib<key>.so: the key of what the loops were built from and with.
  std::string stem = fs::path(library).stem().string();
  std::string file =
      (fs::path(library).parent_path() / fmt::format("peak-{}-{}.txt", stem.substr(3), threads))
          .string();
  std::optional<MachinePeak> peak = read_peak(file);
  if (!peak) {
    UMA_TRY_ASSIGN(peak, measure_library(library, {.threads = threads}));
    UMA_TRY(write_atomically(file, fmt::format("{} {}\n", peak->gflops, peak->memory_gbps)));
  }
  measured.emplace(std::move(key), *peak);
  return *peak;
}

}  // namespace uma::runtime
