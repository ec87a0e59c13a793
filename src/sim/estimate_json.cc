// A layer's estimate as JSON (see estimate_json.h).
#include "estimate_json.h"

namespace uma::sim {

nlohmann::json estimate_json(const LayerEstimate& e) {
  nlohmann::json memories = nlohmann::json::array();
  for (const MemoryTraffic& t : e.memories)
    memories.push_back(
        {{"memory", t.memory}, {"read_bytes", t.read_bytes}, {"write_bytes", t.write_bytes}});
  return {{"macs", e.macs},
          {"compute_cycles", e.compute_cycles},
          {"dma_cycles", e.dma_cycles},
          {"stall_cycles", e.stall_cycles},
          {"cycles", e.cycles},
          {"roofline_cycles", e.roofline_cycles},
          {"bound", e.bound},
          {"pes", e.pes},
          {"utilisation", e.utilisation},
          {"dram_bytes", e.dram_bytes},
          {"seconds", e.seconds},
          {"energy_pj", e.energy_pj()},
          {"compute_pj", e.compute_pj},
          {"sram_pj", e.sram_pj},
          {"dram_pj", e.dram_pj},
          {"memories", memories}};
}

}  // namespace uma::sim
