// A build's simulation: estimates and counted events per layer (see uma/sim/simulation.h).
#include "uma/sim/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "estimate_json.h"
#include "uma/sim/count_events.h"

namespace uma::sim {
namespace {

void add(LayerEstimate& total, const LayerEstimate& e) {
  total.macs += e.macs;
  total.compute_cycles += e.compute_cycles;
  total.dma_cycles += e.dma_cycles;
  total.stall_cycles += e.stall_cycles;
  total.cycles += e.cycles;
  total.roofline_cycles += e.roofline_cycles;
  total.dram_bytes += e.dram_bytes;
  total.compute_pj += e.compute_pj;
  total.sram_pj += e.sram_pj;
  total.dram_pj += e.dram_pj;
  total.seconds += e.seconds;
  for (const MemoryTraffic& t : e.memories) {
    auto it = std::find_if(total.memories.begin(), total.memories.end(),
                           [&](const MemoryTraffic& m) { return m.memory == t.memory; });
    if (it == total.memories.end()) {
      total.memories.push_back(t);
    } else {
      it->read_bytes += t.read_bytes;
      it->write_bytes += t.write_bytes;
    }
  }
}

// A count with its thousands apart, "1,234,567": exact, and readable at a glance.
std::string count(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string duration(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} us", seconds * 1e6);
}

std::string energy(double pj) {
  if (pj >= 1e9) return fmt::format("{:.2f} mJ", pj / 1e9);
  if (pj >= 1e6) return fmt::format("{:.2f} uJ", pj / 1e6);
  if (pj >= 1e3) return fmt::format("{:.2f} nJ", pj / 1e3);
  return fmt::format("{:.1f} pJ", pj);
}

std::vector<std::string> row(const std::string& layer, const std::string& composite,
                             const std::string& plan, const LayerEstimate& e,
                             const std::string& counts) {
  return {layer,
          composite,
          plan,
          count(e.macs),
          count(e.compute_cycles),
          count(e.dma_cycles),
          count(e.stall_cycles),
          count(e.cycles),
          count(e.roofline_cycles),
          e.bound,
          fmt::format("{:.1f}%", 100.0 * e.utilisation),
          count(e.dram_bytes),
          energy(e.energy_pj()),
          counts};
}

// Columns as wide as their widest cell: the first three and the last two left-aligned.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      bool left = c < 3 || c == 9 || c == r.size() - 1;
      line += (c ? "  " : "") +
              (left ? fmt::format("{:<{}}", r[c], width[c]) : fmt::format("{:>{}}", r[c], width[c]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> SimLayer::disagreements() const {
  std::vector<std::string> found;
  if (!counted) return found;
  for (std::size_t i = 0; i < events.size(); ++i) {
    std::int64_t estimated = i < estimate.events.size() ? estimate.events[i] : 0;
    std::int64_t ran = i < counted->size() ? (*counted)[i] : 0;
    if (estimated != ran)
      found.push_back(fmt::format("{}: counted {}, estimated {}", events[i], ran, estimated));
  }
  return found;
}

LayerEstimate Simulation::total() const {
  LayerEstimate total;
  double pe_cycles = 0;  // each layer's cycles times its array's PEs
  for (const SimLayer& layer : layers) {
    add(total, layer.estimate);
    pe_cycles += static_cast<double>(layer.estimate.cycles) * static_cast<double>(layer.estimate.pes);
  }
  total.utilisation = pe_cycles > 0 ? static_cast<double>(total.macs) / pe_cycles : 0.0;
  total.bound = "";
  return total;
}

std::vector<std::string> Simulation::disagreements() const {
  std::vector<std::string> found;
  for (const SimLayer& layer : layers)
    for (const std::string& d : layer.disagreements()) found.push_back(layer.layer + ": " + d);
  return found;
}

Expected<Simulation> simulate(const PartitionReport& report,
                              const std::map<std::string, std::vector<std::string>>& events,
                              const runtime::Executor* executor) {
  Simulation simulation;
  std::map<std::string, std::size_t> layers_of;  // per function, the layers seen
  for (const TilingRecord& record : report.tilings()) {
    std::size_t layer = layers_of[record.function]++;
    if (!record.estimate) continue;
    SimLayer sim;
    sim.target = record.composite.substr(0, record.composite.find('.'));
    sim.function = record.function;
    sim.composite = record.composite;
    sim.layer = record.layer;
    sim.plan = record.plan.summary();
    sim.estimate = *record.estimate;
    if (auto it = events.find(sim.target); it != events.end()) sim.events = it->second;
    if (executor != nullptr && !sim.events.empty()) {
      sim.counted = counted_events(*executor, record.function, layer, sim.events.size());
      if (!sim.counted)
        return make_error("layer '{}' of @{}: the run kept no counters of its events", record.layer,
                          record.function);
    }
    simulation.layers.push_back(std::move(sim));
  }
  for (const NodeRecord& node : report.records())
    if (node.target.empty()) {
      ++simulation.host_nodes;
      simulation.host_macs += node.macs;
    }
  return simulation;
}

std::string to_table(const Simulation& simulation) {
  std::vector<std::vector<std::string>> rows = {{"layer", "composite", "tiles", "MACs", "compute",
                                                 "DMA", "stall", "cycles", "roofline", "bound",
                                                 "util", "DRAM B", "energy", "events"}};
  for (const SimLayer& layer : simulation.layers) {
    std::string counts = !layer.counted ? "not run"
                         : layer.disagreements().empty()
                             ? "agree"
                             : fmt::format("{} differ", layer.disagreements().size());
    rows.push_back(row(layer.layer, layer.composite, layer.plan, layer.estimate, counts));
  }
  LayerEstimate total = simulation.total();
  rows.push_back(row("total", fmt::format("{} layer(s)", simulation.layers.size()), "", total, ""));
  std::string out = columns(rows);
  double seconds = total.seconds;
  out += fmt::format(
      "accelerator: {} cycles = {} at its clock; {:.1f}% of the cycles stalled on DMA; "
      "{} of energy ({} compute, {} on-chip memories, {} host memory)\n",
      count(total.cycles), duration(seconds),
      total.cycles ? 100.0 * static_cast<double>(total.stall_cycles) / total.cycles : 0.0,
      energy(total.energy_pj()), energy(total.compute_pj), energy(total.sram_pj),
      energy(total.dram_pj));
  std::int64_t all = total.macs + simulation.host_macs;
  out += fmt::format("host: {} node(s) not simulated, {} MACs ({:.1f}% of the model's)\n",
                     simulation.host_nodes, count(simulation.host_macs),
                     all ? 100.0 * static_cast<double>(simulation.host_macs) / all : 0.0);
  return out;
}

std::string to_json(const Simulation& simulation) {
  nlohmann::json layers = nlohmann::json::array();
  for (const SimLayer& layer : simulation.layers) {
    nlohmann::json j = estimate_json(layer.estimate);
    j["target"] = layer.target;
    j["function"] = layer.function;
    j["composite"] = layer.composite;
    j["layer"] = layer.layer;
    j["plan"] = layer.plan;
    nlohmann::json estimated = nlohmann::json::object(), counted = nlohmann::json::object();
    for (std::size_t i = 0; i < layer.events.size(); ++i) {
      estimated[layer.events[i]] = i < layer.estimate.events.size() ? layer.estimate.events[i] : 0;
      if (layer.counted) counted[layer.events[i]] = (*layer.counted)[i];
    }
    j["events"] = estimated;
    if (layer.counted) j["counted"] = counted;
    layers.push_back(std::move(j));
  }
  nlohmann::json total = estimate_json(simulation.total());
  total.erase("bound");
  nlohmann::json out = {{"layers", layers},
                        {"total", total},
                        {"host", {{"nodes", simulation.host_nodes}, {"macs", simulation.host_macs}}}};
  // Layer names come from models and need not be valid UTF-8: replace bad bytes, never throw.
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace uma::sim
