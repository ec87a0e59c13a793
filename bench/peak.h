// The FP32 peak of this machine as uma's generated code can reach it (runtime::machine_peak.h:
// independent vector FMAs in the widest vectors the C compiler's flags allow), timed on 1 or
// more threads. The benchmarks report their GFLOP/s as a fraction of it.
#pragma once

#include "uma/runtime/c_compiler.h"

namespace uma::bench {

// GFLOP/s of `threads` threads together, the best of seven runs of ~30 ms: longer than the
// host's roofline measures, for a steadier figure; the loop is compiled with `options`
// (their -march decides the vector width) and OpenMP.
Expected<double> measure_peak(runtime::CCompilerOptions options, int threads);

}  // namespace uma::bench
