// A simulation of a build (uma sim): per layer an accelerator ran in tiles, what its
// performance model estimated (uma/sim/estimate.h) and what its functional model counted in
// a run, with totals; printed as a table for people and as JSON for tools and plots.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "uma/partition/report.h"
#include "uma/runtime/executor.h"
#include "uma/sim/estimate.h"
#include "uma/support/error.h"

namespace uma::sim {

struct SimLayer {
  std::string target;  // the backend's target kind
  std::string function, composite, layer, plan;
  LayerEstimate estimate;
  std::vector<std::string> events;  // the backend's event names
  // What the run counted, in the same order; nullopt when nothing was run.
  std::optional<std::vector<std::int64_t>> counted;
  // The events whose count differs from the estimate's: "macs: counted 10, estimated 12".
  std::vector<std::string> disagreements() const;
};

struct Simulation {
  std::vector<SimLayer> layers;
  // What stayed on the host, from the partition report: nodes and their MACs.
  std::int64_t host_nodes = 0, host_macs = 0;
  LayerEstimate total() const;  // the layers' figures added (utilisation over their cycles)
  std::vector<std::string> disagreements() const;  // every layer's, "layer: event: ..."
};

// The layers of `report` that a backend estimated (TilingRecord::estimate), with the counts
// of the run `executor` made, when it is not null. `events` gives each target's event names
// (Backend::count_events). Errors when a layer's counters are missing from the executor's
// state.
Expected<Simulation> simulate(const PartitionReport& report,
                              const std::map<std::string, std::vector<std::string>>& events,
                              const runtime::Executor* executor);

// A line per layer (layer, composite, tiles, MACs, cycles: compute, DMA, stall, total,
// roofline and bound, utilisation, host-memory bytes, energy, whether the counts agree),
// then the totals and the host's share.
std::string to_table(const Simulation& simulation);
// {"layers": [{"target", "function", "composite", "layer", "plan", "macs", "compute_cycles",
// "dma_cycles", "stall_cycles", "cycles", "roofline_cycles", "bound", "pes", "utilisation",
// "dram_bytes", "seconds", "energy_pj", "compute_pj", "sram_pj", "dram_pj", "memories":
// [{"memory", "read_bytes", "write_bytes"}], "events": {name: estimated}, "counted": {name:
// counted} (when run)}], "total": {the same figures}, "host": {"nodes", "macs"}}.
std::string to_json(const Simulation& simulation);

}  // namespace uma::sim
