// The FP32 peak measured by independent FMA chains (see peak.h).
#include "peak.h"

#include "uma/runtime/machine_peak.h"

namespace uma::bench {

Expected<double> measure_peak(runtime::CCompilerOptions options, int threads) {
  UMA_TRY_ASSIGN(runtime::MachinePeak peak,
                 runtime::measure_machine_peak(
                     options, {.threads = threads, .tries = 7, .seconds_per_try = 0.03}));
  return peak.gflops;
}

}  // namespace uma::bench
