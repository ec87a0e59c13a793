// This machine's FP32 peak and memory bandwidth as code the C compiler generates can reach
// them: what the host's roofline (backends/cpu/) divides by, and what the benchmarks report
// fractions of.
//
// The peak: twelve independent chains of vector FMAs per thread (more than the FMA latency
// times the FMA ports), in the widest vectors the compiler's CPU and features allow. The
// bandwidth: the triad a[i] = b[i] + s * c[i] over three arrays of 32 MiB, well beyond the
// caches, counted as the bytes the loop reads and writes (STREAM's convention: a store's
// read for ownership is not counted). Each on `threads` threads (OpenMP), the best of a few
// timed runs after one untimed.
#pragma once

#include "uma/runtime/c_compiler.h"
#include "uma/support/error.h"

namespace uma::runtime {

struct MachinePeak {
  double gflops = 0;       // FP32 operations per second, in 1e9 (an FMA is two)
  double memory_gbps = 0;  // bytes per second to and from memory, in 1e9
};

struct PeakMeasurement {
  int threads = 1;
  int tries = 3;  // timed runs of each loop; the best counts
  // A timed run of the FMA loop lasts at least this long (its count doubles until it does).
  double seconds_per_try = 0.002;
};

// Measured now: both loops compiled with `compiler` (with OpenMP added; its cpu and features
// decide the vector width) and run in this process.
Expected<MachinePeak> measure_machine_peak(const CCompilerOptions& compiler,
                                           const PeakMeasurement& measurement = {});

// The same at `threads` threads and the default tries, measured once per CPU and compiler:
// kept in the compiler's cache folder as `peak-<key>-<threads>.txt`, where the key is that of
// the loops' library there (it covers the compiler, the CPU -march=native means, the flags
// and the code), and in this process. A file that does not hold two positive numbers is
// measured again and replaced.
Expected<MachinePeak> machine_peak(const CCompilerOptions& compiler, int threads);

}  // namespace uma::runtime
