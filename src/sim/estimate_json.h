// A layer's estimate as JSON, the one form `uma sim --json` and the build report's tilings
// (report.json) both print, so that tools read the same fields from either.
#pragma once

#include <nlohmann/json.hpp>

#include "uma/sim/estimate.h"

namespace uma::sim {

// {"macs", "compute_cycles", "dma_cycles", "stall_cycles", "cycles", "roofline_cycles",
// "bound", "pes", "utilisation", "dram_bytes", "seconds", "energy_pj", "compute_pj", "sram_pj",
// "dram_pj", "memories": [{"memory", "read_bytes", "write_bytes"}]}.
nlohmann::json estimate_json(const LayerEstimate& estimate);

}  // namespace uma::sim
