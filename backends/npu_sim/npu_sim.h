// npu_sim's pieces, one file each (backends/npu_sim/): a parameterised NPU, a systolic array
// of rows x cols MAC units with its dataflow, three on-chip memories and a DMA engine, whose
// "hardware" is the functional model kernels/npu_sim.c and whose timing and energy are the
// performance model estimate.cc.
//
//   backend.cc    the Backend: target attributes, memories and DMA engine, patterns,
//                 lowerings, performance model, events, C model
//   design.cc     the design a target describes (Design), its attributes checked
//   geometry.cc   a layer's sizes as the model takes them (Geometry)
//   patterns.cc   npu_sim.conv2d, conv1d, dense, matmul, pool2d, global_pool: patterns and
//                 predicates
//   calls.cc      their lowerings: one npu_conv or npu_pool per tile
//   estimate.cc   the performance model: cycles (SCALE-Sim's analytical model of the
//                 dataflow per fold), DMA, stalls, roofline, traffic, energy, and the events
//                 the functional model will count
//
// The core tiles each layer into the memories (uma/tiling/): ifmap holds a tile's input
// features, filter its weights and bias, ofmap its output (and the partial sums of a chunk of
// input channels).
#pragma once

#include <cstdint>
#include <string_view>

#include "uma/lower/composite_lowering.h"
#include "uma/pattern/pattern.h"
#include "uma/sim/estimate.h"
#include "uma/tiling/plan.h"
#include "uma/uma/target.h"

namespace uma::backends::npu_sim {

inline constexpr std::string_view kTargetName = "npu_sim";

// What the functional model counts per layer, in this order: the array's MACs, the DMA
// engine's bytes and transfers, the array's reads and writes of its memories, in elements.
// The C model gets them as NPU_EVENT_<name> (backend.cc writes them ahead of its source).
#define UMA_NPU_SIM_EVENTS(X) \
  X(macs) X(dma_bytes) X(dma_transfers) X(ifmap_reads) X(filter_reads) X(ofmap_reads) X(ofmap_writes)
enum Event : std::size_t {
#define UMA_NPU_SIM_EVENT_ENUM(name) k_##name,
  UMA_NPU_SIM_EVENTS(UMA_NPU_SIM_EVENT_ENUM)
#undef UMA_NPU_SIM_EVENT_ENUM
  kNumEvents
};

// How the array cuts a layer's matrix product into folds (kernels/npu_sim.c says how each
// works): weight, output or input stationary; its value is the C model's code.
enum class Dataflow : std::int64_t { kWeightStationary = 0, kOutputStationary = 1, kInputStationary = 2 };

// A design: the target's attributes, checked.
struct Design {
  std::int64_t rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::kWeightStationary;
  std::int64_t clock_mhz = 0;
  double mac_pj = 0, sram_pj_per_byte = 0, dram_pj_per_byte = 0;
  std::int64_t dma_bytes_per_cycle = 0, dma_setup_cycles = 0;
};

// The largest array side a design may have.
inline constexpr std::int64_t kMaxSide = 4096;

// The design `target` describes; an error names the attribute at fault: a side or clock out
// of range, a dataflow other than ws, os, is, a data type other than f32, a negative energy.
Expected<Design> design(const Target& target);
Status check_target(const Target& target);

// A layer's geometry, every product as a 2-D convolution (a 1-D one of height 1, a dense
// layer or matmul of M pixels of K channels by 1 x 1 taps) and every pool as a 2-D one (a
// global pool's window the whole plane).
struct Geometry {
  std::int64_t batch = 1, channels = 1, height = 1, width = 1, out_channels = 1, kh = 1, kw = 1,
               out_h = 1, out_w = 1, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0,
               pad_bottom = 0, pad_right = 0, dilation_h = 1, dilation_w = 1, groups = 1,
               weight_kn = 0;
};
// Whether a node of a match is its layer: not a constant, the bias add or the activation.
bool is_layer(const Node& node);
// The layer of a composite, or null.
const Node* layer_of(const Function& composite);
Geometry geometry(const Node& layer);

// The patterns, each an op, then an optional bias (the op's third operand, or an add of a
// constant) and an optional relu or clip; the pools alone.
PatternPtr conv2d_pattern();
PatternPtr conv1d_pattern();
PatternPtr dense_pattern();
PatternPtr matmul_pattern();
PatternPtr pool2d_pattern();       // nn.max_pool2d, nn.avg_pool2d
PatternPtr global_pool_pattern();  // nn.global_max_pool, nn.global_avg_pool of 4-D data
// What the array cannot run, as the reason: data other than f32, a bias that is not one value
// per output channel, a pool with ceil_mode or dilation, a dense layer or matmul that is not
// 2-D.
Status check_layer(const Match& match, const Target& target);

// A tile as one call of the model (kernels/npu_sim.c): npu_conv for the products, npu_pool
// for the pools.
Expected<lower::ExternCall> lower_conv(const lower::CompositeOperands& operands,
                                       const Target& target);
Expected<lower::ExternCall> lower_pool(const lower::CompositeOperands& operands,
                                       const Target& target);

// The performance model of a layer run in tiles by `plan`.
Expected<sim::LayerEstimate> estimate(const Function& composite, const tiling::TilePlan& plan,
                                      const Target& target);

}  // namespace uma::backends::npu_sim
