// SCALE-Sim's inputs for the layers of a simulation, to cross-check uma's estimates with
// SCALE-Sim (scale-sim-v2: `scale.py -c scale.cfg -t topology.csv`): a config of the array,
// its buffers and dataflow, and a topology of the convolutions and dense layers.
//
// SCALE-Sim has no padding, no batch, no groups and no 1-D layers, so each layer is written
// as it would compute the same product: the input's padded size, one row per sample of the
// batch and per group (a depthwise layer is a row per channel), a 1-D layer as height 1, a
// dense layer as a 1 x 1 convolution of its inputs. Pools have no row (SCALE-Sim models the
// array alone).
#pragma once

#include <cstdint>
#include <string>

#include "uma/graph/ir.h"
#include "uma/sim/simulation.h"
#include "uma/support/error.h"

namespace uma::sim {

struct ScaleSimArray {
  std::int64_t rows = 0, cols = 0;
  std::string dataflow;  // ws, os or is
  std::int64_t ifmap_kb = 0, filter_kb = 0, ofmap_kb = 0;
  std::int64_t words_per_cycle = 1;  // the interface's bandwidth
};

// scale.cfg, run `run_name`.
std::string scalesim_config(const ScaleSimArray& array, const std::string& run_name);

// topology.csv: "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
// Num Filter, Strides," and a row per product of each simulated layer, found in `module` (the
// built module: the layer's node in a composite its function calls). Errors name a layer
// whose strides differ between height and width (SCALE-Sim has one stride).
Expected<std::string> scalesim_topology(const Module& module, const Simulation& simulation);

}  // namespace uma::sim
