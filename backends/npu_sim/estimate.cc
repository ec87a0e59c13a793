// npu_sim's performance model (see npu_sim.h): a layer's cycles, traffic and energy from its
// geometry, the design and the tile plan, tile by tile.
//
// The array's cycles per fold are SCALE-Sim's analytical model (scale-sim-v2,
// scalesim/compute/systolic_compute_{ws,os,is}.py: the rows of a fold's skewed demand
// matrices): weight and input stationary 2R + C + T - 2 (R cycles to load the stationary
// operand, T to stream the other through, R + C - 2 to fill and drain the skew), output
// stationary R + C + T - 2, where T is what streams (pixels, output channels, taps). A tile's
// product needs ceil(Sr / R) x ceil(Sc / C) folds. The DMA engine's cycles are each
// transfer's setup plus its bytes at the engine's rate. Double buffered, the moves of the
// next tile overlap the compute of this one: the layer takes the longer of the two, plus one
// tile's worth of the shorter to fill and drain the pipeline; single buffered, their sum.
#include <algorithm>
#include <array>

#include "backends/npu_sim/npu_sim.h"

namespace uma::backends::npu_sim {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The tiles of one axis cut at `size`: (extent, count) pairs.
std::vector<std::pair<std::int64_t, std::int64_t>> pieces(std::int64_t extent, std::int64_t size) {
  std::vector<std::pair<std::int64_t, std::int64_t>> result;
  if (extent / size > 0) result.push_back({size, extent / size});
  if (extent % size != 0) result.push_back({extent % size, 1});
  return result;
}

// What the array does for one tile: its cycles and the events it counts.
struct TileWork {
  std::int64_t cycles = 0, ideal = 0;  // ideal: the work at the array's peak
  std::array<std::int64_t, kNumEvents> events{};
  TileWork& operator+=(const TileWork& other) {
    cycles += other.cycles;
    ideal += other.ideal;
    for (std::size_t e = 0; e < kNumEvents; ++e) events[e] += other.events[e];
    return *this;
  }
  TileWork times(std::int64_t n) const {
    TileWork result = *this;
    result.cycles *= n;
    result.ideal *= n;
    for (std::int64_t& e : result.events) e *= n;
    return result;
  }
};

// One group's product of P pixels by K taps by F output channels; `first`: the tile sums the
// layer's first taps (its partial sums start afresh). As kernels/npu_sim.c folds it.
TileWork product(const Design& d, std::int64_t P, std::int64_t K, std::int64_t F, bool first) {
  const std::int64_t R = d.rows, C = d.cols;
  TileWork w;
  w.events[k_macs] = P * K * F;
  w.ideal = ceil_div(P * K * F, R * C);
  switch (d.dataflow) {
    case Dataflow::kWeightStationary: {
      std::int64_t nf = ceil_div(F, C), nk = ceil_div(K, R);
      w.cycles = nf * nk * (2 * R + C + P - 2);
      w.events[k_filter_reads] = K * F;
      w.events[k_ifmap_reads] = P * K * nf;
      w.events[k_ofmap_writes] = P * F * nk;
      w.events[k_ofmap_reads] = P * F * (nk - (first ? 1 : 0));
      break;
    }
    case Dataflow::kOutputStationary: {
      std::int64_t np = ceil_div(P, R), nf = ceil_div(F, C);
      w.cycles = np * nf * (R + C + K - 2);
      w.events[k_ifmap_reads] = P * K * nf;
      w.events[k_filter_reads] = F * K * np;
      w.events[k_ofmap_writes] = P * F;
      w.events[k_ofmap_reads] = first ? 0 : P * F;
      break;
    }
    case Dataflow::kInputStationary: {
      std::int64_t nk = ceil_div(K, R), np = ceil_div(P, C);
      w.cycles = nk * np * (2 * R + C + F - 2);
      w.events[k_ifmap_reads] = K * P;
      w.events[k_filter_reads] = F * K * np;
      w.events[k_ofmap_writes] = P * F * nk;
      w.events[k_ofmap_reads] = P * F * (nk - (first ? 1 : 0));
      break;
    }
  }
  return w;
}

// A depthwise tile of G channels: a fold holds R taps of C channels, each column fed its own
// channel's pixels (weight stationary whatever the dataflow).
TileWork depthwise(const Design& d, std::int64_t P, std::int64_t K, std::int64_t G, bool first) {
  const std::int64_t R = d.rows, C = d.cols;
  std::int64_t ng = ceil_div(G, C), nk = ceil_div(K, R);
  TileWork w;
  w.cycles = ng * nk * (2 * R + C + P - 2);
  w.ideal = ceil_div(P * K * G, R * C);
  w.events[k_macs] = P * K * G;
  w.events[k_filter_reads] = K * G;
  w.events[k_ifmap_reads] = P * K * G;
  w.events[k_ofmap_writes] = P * G * nk;
  w.events[k_ofmap_reads] = P * G * (nk - (first ? 1 : 0));
  return w;
}

// A pooling tile of `outputs` outputs on the vector unit, a lane per column, a tap per cycle.
TileWork pool(const Design& d, std::int64_t outputs, std::int64_t taps) {
  TileWork w;
  w.cycles = ceil_div(outputs, d.cols) * taps;
  w.ideal = ceil_div(outputs * taps, d.rows * d.cols);
  w.events[k_ifmap_reads] = outputs * taps;
  w.events[k_ofmap_writes] = outputs;
  return w;
}

// A tile with `pixels` pixels (batch and spatial), `channels` output channels, `chunk` input
// channels (of a group) summed, the layer's first chunk or not.
TileWork tile_work(const Design& d, const Geometry& g, bool is_pool, std::int64_t pixels,
                   std::int64_t channels, std::int64_t chunk, bool first) {
  std::int64_t taps = g.kh * g.kw;
  if (is_pool) return pool(d, pixels * channels, taps);
  std::int64_t group_outputs = g.out_channels / g.groups, group_inputs = g.channels / g.groups;
  std::int64_t groups = channels / group_outputs;
  std::int64_t K = chunk * taps;
  // As the model decides, on the tile's own groups.
  if (groups > 1 && group_inputs == 1 && group_outputs == 1)
    return depthwise(d, pixels, K, groups, first);
  return product(d, pixels, K, group_outputs == g.out_channels ? channels : group_outputs, first)
      .times(group_outputs == g.out_channels ? 1 : groups);
}

}  // namespace

Expected<sim::LayerEstimate> estimate(const Function& composite, const tiling::TilePlan& plan,
                                      const Target& target) {
  UMA_TRY_ASSIGN(Design d, design(target));
  const Node* layer = layer_of(composite);
  if (layer == nullptr) return make_error("the composite has no layer");
  const Geometry g = geometry(*layer);
  const bool is_pool = layer->op_name().find("pool") != std::string_view::npos;
  const std::size_t rank = plan.output.size();
  if (rank < 2 || plan.tile.size() != rank || (plan.cuts_reduction() && plan.chunks.size() != 1))
    return make_error("a plan of {} output axes cutting {} reductions; npu_sim's layers have an "
                      "output of 2 to 4 axes and cut at most their input channels",
                      rank, plan.chunks.size());

  // The tiles: every combination of each output axis's pieces (axis 1 the channels, the rest
  // pixels), each with every chunk of the input channels.
  std::vector<std::int64_t> chunk_sizes;
  std::int64_t group_inputs = g.channels / g.groups;
  if (!plan.cuts_reduction()) {
    chunk_sizes.push_back(is_pool ? 1 : group_inputs);
  } else {
    for (std::int64_t c = 0; c < plan.reductions[0]; c += plan.chunks[0])
      chunk_sizes.push_back(std::min(plan.chunks[0], plan.reductions[0] - c));
  }
  TileWork work;
  std::vector<std::size_t> index(rank, 0);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> axes;
  for (std::size_t a = 0; a < rank; ++a) axes.push_back(pieces(plan.output[a], plan.tile[a]));
  while (true) {
    std::int64_t pixels = 1, channels = 1, count = 1;
    for (std::size_t a = 0; a < rank; ++a) {
      auto [extent, n] = axes[a][index[a]];
      (a == 1 ? channels : pixels) *= extent;
      count *= n;
    }
    for (std::size_t c = 0; c < chunk_sizes.size(); ++c)
      work += tile_work(d, g, is_pool, pixels, channels, chunk_sizes[c], c == 0).times(count);
    std::size_t a = 0;
    for (; a < rank; ++a) {
      if (++index[a] < axes[a].size()) break;
      index[a] = 0;
    }
    if (a == rank) break;
  }

  sim::LayerEstimate e;
  e.macs = work.events[k_macs];
  e.compute_cycles = work.cycles;
  std::int64_t dma_in = 0, dma_out = 0, transfers = 0;
  for (const tiling::OperandPlan& op : plan.operands) {
    e.dma_cycles += op.transfers * d.dma_setup_cycles + ceil_div(op.bytes, d.dma_bytes_per_cycle);
    (op.output ? dma_out : dma_in) += op.bytes;
    transfers += op.transfers;
  }
  const std::int64_t longer = std::max(e.compute_cycles, e.dma_cycles);
  const std::int64_t shorter = std::min(e.compute_cycles, e.dma_cycles);
  e.cycles = plan.double_buffered ? longer + ceil_div(shorter, std::max<std::int64_t>(plan.tiles, 1))
                                  : e.compute_cycles + e.dma_cycles;
  e.stall_cycles = e.cycles - e.compute_cycles;
  e.dram_bytes = dma_in + dma_out;
  std::int64_t memory_bound = ceil_div(e.dram_bytes, d.dma_bytes_per_cycle);
  e.roofline_cycles = std::max(work.ideal, memory_bound);
  e.bound = work.ideal >= memory_bound ? "compute" : "memory";
  e.pes = d.rows * d.cols;
  e.utilisation = e.cycles == 0 ? 0.0
                                : static_cast<double>(e.macs) /
                                      (static_cast<double>(e.cycles) * d.rows * d.cols);
  e.seconds = static_cast<double>(e.cycles) / (static_cast<double>(d.clock_mhz) * 1e6);

  // Traffic: the DMA engine fills the memories of the inputs and drains the output's; the
  // array reads features, weights and partial sums and writes outputs.
  const std::int64_t element = static_cast<std::int64_t>(dtype_size(layer->result()->tensor_type().dtype));
  for (const tiling::MemoryUse& use : plan.memories) {
    sim::MemoryTraffic t{use.name, 0, 0};
    bool features = false, weights = false, output = false;
    for (const tiling::OperandPlan& op : plan.operands) {
      if (op.memory != use.name) continue;
      (op.output ? t.read_bytes : t.write_bytes) += op.bytes;
      output |= op.output;
      features |= !op.output && op.role == tiling::Role::kFeatures;
      weights |= op.role == tiling::Role::kWeights;
    }
    if (features) t.read_bytes += work.events[k_ifmap_reads] * element;
    if (weights) t.read_bytes += work.events[k_filter_reads] * element;
    if (output) {
      t.read_bytes += work.events[k_ofmap_reads] * element;
      t.write_bytes += work.events[k_ofmap_writes] * element;
    }
    e.sram_pj += static_cast<double>(t.read_bytes + t.write_bytes) * d.sram_pj_per_byte;
    e.memories.push_back(std::move(t));
  }
  e.memories.push_back({"dram", dma_in, dma_out});
  const std::int64_t operations = is_pool ? work.events[k_ifmap_reads] : e.macs;
  e.compute_pj = static_cast<double>(operations) * d.mac_pj;
  e.dram_pj = static_cast<double>(e.dram_bytes) * d.dram_pj_per_byte;

  work.events[k_dma_bytes] = e.dram_bytes;
  work.events[k_dma_transfers] = transfers;
  e.events.assign(work.events.begin(), work.events.end());
  return e;
}

}  // namespace uma::backends::npu_sim
