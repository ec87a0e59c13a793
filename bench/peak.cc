// The FP32 peak measured by independent FMA chains (see peak.h).
#include "peak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "uma/runtime/library.h"

namespace uma::bench {
namespace {

// Twelve independent chains per thread; `uma_peak` returns the flops one thread does.
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
// Twelve chains (more than FMA latency x ports), each in a register of its own.
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
int64_t uma_peak(int64_t iters, int threads, float* sink) {
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
)";

}  // namespace

Expected<double> measure_peak(runtime::CCompilerOptions options, int threads) {
  options.openmp = true;
  runtime::CCompiler compiler(options);
  UMA_TRY_ASSIGN(std::string path, compiler.build_shared_library({{"peak", kPeakSource}}));
  UMA_TRY_ASSIGN(runtime::Library library, runtime::Library::open(path));
  UMA_TRY_ASSIGN(void* symbol, library.symbol("uma_peak"));
  auto peak = reinterpret_cast<std::int64_t (*)(std::int64_t, int, float*)>(symbol);
  float sink = 0;
  double best = 0;
  for (int t = 0; t < 7; ++t) {
    auto start = std::chrono::steady_clock::now();
    std::int64_t flops = peak(20'000'000, threads, &sink);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, threads * static_cast<double>(flops) / seconds / 1e9);
  }
  return best;
}

}  // namespace uma::bench
