// The host's cost of a composite: a roofline of the machine's peak (see cpu.h).
#include <algorithm>

#include "cpu.h"
#include "uma/op/cost.h"
#include "uma/runtime/machine_peak.h"
#include "uma/uma/build.h"

namespace uma::backends {
namespace {

std::int64_t type_bytes(const Type& type) {
  return type.is_tensor() ? type.tensor().num_bytes() : 0;
}

// The target's peak: its attributes where set, the rest measured.
Expected<runtime::MachinePeak> peak_of(const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t gflops, target.get_int("peak_gflops"));
  UMA_TRY_ASSIGN(std::int64_t gbps, target.get_int("memory_gbps"));
  runtime::MachinePeak peak{static_cast<double>(gflops), static_cast<double>(gbps)};
  if (gflops > 0 && gbps > 0) return peak;
  UMA_TRY_ASSIGN(std::int64_t threads, target.get_int("threads"));
  UMA_TRY_ASSIGN(runtime::CCompilerOptions compiler, build::host_compiler_options(target));
  UMA_TRY_ASSIGN(runtime::MachinePeak measured,
                 runtime::machine_peak(compiler, static_cast<int>(threads)));
  if (gflops == 0) peak.gflops = measured.gflops;
  if (gbps == 0) peak.memory_gbps = measured.memory_gbps;
  return peak;
}

}  // namespace

Expected<CompositeCost> host_cost(const Function& composite, const Target& target) {
  UMA_TRY_ASSIGN(runtime::MachinePeak peak, peak_of(target));
  // What the layer must move at least: its inputs, its constants and its outputs; what
  // passes between its ops stays in the caches of the host's fused loops.
  std::int64_t macs = 0, bytes = 0;
  for (std::size_t i = 0; i < composite.num_params(); ++i)
    bytes = saturating_add(bytes, type_bytes(composite.param(i)->type()));
  for (const auto& node : composite.nodes()) {
    if (node->is_op("constant"))
      bytes = saturating_add(bytes, type_bytes(node->result()->type()));
    else
      macs = saturating_add(macs, own_cost(*node).macs);
  }
  for (const Value* output : composite.outputs())
    bytes = saturating_add(bytes, type_bytes(output->type()));
  double compute = 2.0 * static_cast<double>(macs) / (peak.gflops * 1e9);
  double memory = static_cast<double>(bytes) / (peak.memory_gbps * 1e9);
  return CompositeCost{.seconds = std::max(compute, memory), .transfer_seconds = 0};
}

}  // namespace uma::backends
