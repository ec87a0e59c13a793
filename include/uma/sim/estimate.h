// What an accelerator's performance model says of one layer it runs in tiles, before it runs:
// cycles (the array's, the DMA engine's, the stalls between them), the roofline the layer sits
// against, the traffic of each memory and of host memory, and energy. A backend gives it
// (Backend::set_estimate) from the layer's composite and its tile plan; the build records it
// beside the plan (TilingRecord::estimate), and `uma sim` prints it.
//
// The estimate also predicts the events the backend's functional model counts when the layer
// runs (Backend::count_events: MACs, bytes moved, memory accesses): `uma sim` runs the model
// and compares the two, so the performance model and the functional model cannot drift apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace uma::sim {

// Bytes one memory gives and takes while a layer runs: the array's accesses and the DMA
// engine's fills and drains. "dram" names host memory.
struct MemoryTraffic {
  std::string memory;
  std::int64_t read_bytes = 0, write_bytes = 0;
};

struct LayerEstimate {
  std::int64_t macs = 0;
  std::int64_t compute_cycles = 0;  // the array busy
  std::int64_t dma_cycles = 0;      // the DMA engine busy
  std::int64_t stall_cycles = 0;    // the array waiting for the DMA engine
  std::int64_t cycles = 0;          // the layer, first move in to last move out
  // The fewest cycles the array's peak and the DMA rate allow: max(MACs / PEs, host-memory
  // bytes / bytes per cycle). `cycles` never falls below it.
  std::int64_t roofline_cycles = 0;
  std::string bound;         // "compute" or "memory": the larger term of the roofline
  std::int64_t pes = 0;      // the MACs the array does per cycle at its peak
  double utilisation = 0;    // MACs / (cycles x PEs)
  std::int64_t dram_bytes = 0;
  std::vector<MemoryTraffic> memories;  // the accelerator's, in declaration order, then "dram"
  double compute_pj = 0, sram_pj = 0, dram_pj = 0;
  double energy_pj() const { return compute_pj + sram_pj + dram_pj; }
  double seconds = 0;  // cycles at the accelerator's clock
  // What its functional model will count, in the order of the backend's events.
  std::vector<std::int64_t> events;
};

}  // namespace uma::sim
