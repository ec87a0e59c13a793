// npu_sim: a parameterised NPU for architects to size before silicon, brought in through the
// UMA interface. A systolic array of rows x cols MAC units with a dataflow, an ifmap, a filter
// and an ofmap memory, a DMA engine, a clock and energy costs, all target attributes:
//
//   "npu_sim --rows=32 --cols=32 --dataflow=ws --ifmap_kb=64 --dma_bytes_per_cycle=16"
//
// The core tiles each layer it takes to fit the memories and moves the tiles by DMA; the
// functional model (kernels/npu_sim.c) runs each tile and counts what it does; the
// performance model (estimate.cc) says per layer how many cycles, bytes and joules the design
// spends, and `uma sim` prints both. Its declarations, in the interface's order; the pieces
// live beside this file (npu_sim.h).
#include <string>

#include "backends/npu_sim/npu_sim.h"
#include "backends/register.h"
#include "uma/uma/backend.h"

namespace uma::backends {

extern const char uma_embedded_npu_sim_npu_sim_c[];

namespace npu_sim {
namespace {

using tiling::Role;

// The events' names, and the C model's source with their indices ahead of it.
std::vector<std::string> event_names() {
  return {
#define UMA_NPU_SIM_EVENT_NAME(name) #name,
      UMA_NPU_SIM_EVENTS(UMA_NPU_SIM_EVENT_NAME)
#undef UMA_NPU_SIM_EVENT_NAME
  };
}

std::string model_source() {
  std::string source = "// The events npu_sim counts per layer (backends/npu_sim/npu_sim.h).\n";
  std::vector<std::string> names = event_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    source += "#define NPU_EVENT_" + names[i] + " " + std::to_string(i) + "\n";
  return source + uma_embedded_npu_sim_npu_sim_c;
}

class NpuSim : public Backend {
 public:
  NpuSim() : Backend(std::string(kTargetName)) {
    // 1. Target: the array, its clock and its energy per access. The energy defaults are
    // Horowitz's 45 nm figures (ISSCC 2014, the tables Accelergy's and Eyeriss's models
    // start from): an f32 multiply 3.7 pJ and add 0.9 pJ, a 64-bit read of a 32 KiB SRAM
    // 20 pJ, of DRAM 1.3 nJ.
    add_int_attr("rows", 32, "the systolic array's rows of MAC units");
    add_int_attr("cols", 32, "the systolic array's columns of MAC units");
    add_string_attr("dataflow", "ws", "what stays in the array: ws (weights), os (outputs), "
                                      "is (inputs)");
    add_string_attr("dtype", "f32", "the array's data type");
    add_int_attr("clock_mhz", 1000, "the clock, MHz");
    add_int_attr("mac_fj", 4600, "energy of a multiply-accumulate, fJ");
    add_int_attr("sram_fj_per_byte", 2500, "energy of an on-chip memory byte read or written, fJ");
    add_int_attr("dram_fj_per_byte", 162500, "energy of a host-memory byte moved, fJ");
    set_target_check(check_target);
    // The memories, as SCALE-Sim's three buffers; ofmap keeps the partial sums of a layer
    // too wide for one window of all its input channels.
    add_memory({.name = "ifmap", .default_kb = 64, .alignment = 64, .holds = {Role::kFeatures},
                .help = "input feature memory, KiB"});
    add_memory({.name = "filter",
                .default_kb = 64,
                .alignment = 64,
                .holds = {Role::kWeights, Role::kBias},
                .help = "weight and bias memory, KiB"});
    add_memory({.name = "ofmap",
                .default_kb = 64,
                .alignment = 64,
                .holds = {Role::kOutputs, Role::kAccumulators},
                .help = "output memory (and partial sums), KiB"});
    set_dma({.bytes_per_cycle = 16,
             .setup_cycles = 32,
             .dims = 2,
             .overlaps_compute = true,
             .start_function = "npu_dma_start",
             .wait_function = "npu_dma_wait"});
    // 2. Patterns, each composite one call of the model per tile.
    add_pattern("conv2d", conv2d_pattern(), check_layer);
    add_pattern("conv1d", conv1d_pattern(), check_layer);
    add_pattern("dense", dense_pattern(), check_layer);
    add_pattern("matmul", matmul_pattern(), check_layer);
    add_pattern("pool2d", pool2d_pattern(), check_layer);
    add_pattern("global_pool", global_pool_pattern(), check_layer);
    for (const char* pattern : {"conv2d", "conv1d", "dense", "matmul"})
      add_composite_lowering(pattern, lower_conv);
    for (const char* pattern : {"pool2d", "global_pool"}) {
      add_composite_lowering(pattern, lower_pool);
      keep_reductions_whole(pattern);
    }
    // 4. Lowering: the array reads every operand from its memories.
    set_max_immediate_elements(0);
    // 6. Codegen: the functional model, compiled with the generated code.
    add_c_source("npu_sim", model_source());
    set_extern_status(true);
    // 8. Simulation: the performance model, and what the functional model counts.
    set_estimate(estimate);
    count_events(event_names(), {"npu_conv", "npu_pool", "npu_dma_start"});
  }
};

}  // namespace
}  // namespace npu_sim

Status register_npu_sim(Context& context) {
  return register_backend(context, std::make_unique<npu_sim::NpuSim>());
}

}  // namespace uma::backends
