// ultra_trail: UltraTrail, a 1-D CNN accelerator (an array of dimension x dimension
// multiply-accumulate units with its own weight, feature and bias memories), brought in
// through the UMA interface. Its declarations, in the interface's order; the pieces live
// beside this file (ultra_trail.h), its functional model in kernels/ultra_trail.c.
//
// It declares its memories and DMA engine, and the core does the rest: each conv1d layer
// (conv1d → optional bias → optional relu) is tiled to fit them, whatever its size, its
// tiles moved in and out by the accelerator's DMA, double buffered where they fit twice;
// a layer whose smallest tile does not fit stays on the host, with the numbers in the report.
#include "backends/register.h"
#include "backends/ultra_trail/ultra_trail.h"
#include "uma/uma/backend.h"

namespace uma::backends {

extern const char uma_embedded_ultra_trail_ultra_trail_c[];

namespace ultra_trail {
namespace {

using tiling::Role;

class UltraTrail : public Backend {
 public:
  UltraTrail() : Backend(std::string(kTargetName)) {
    // 1. Target: the array's side; the memories' sizes are the attributes their
    // declarations make (wmem_kb, fmem_kb, bmem_kb), and so are the DMA engine's.
    add_int_attr("dimension", 8, "the array's side: channels are processed in blocks of it");
    set_target_check(check_target);
    add_memory({.name = "wmem", .default_kb = 64, .alignment = 4, .holds = {Role::kWeights},
                .help = "weight memory, KiB"});
    // The array adds a chunk of input channels to the partial sums it holds in fmem: a
    // layer too wide for one window of all its channels is summed in chunks of them.
    add_memory({.name = "fmem",
                .default_kb = 32,
                .alignment = 4,
                .holds = {Role::kFeatures, Role::kAccumulators},
                .help = "feature memory, KiB: a tile's input and output (or partial sums)"});
    add_memory({.name = "bmem", .default_kb = 2, .alignment = 4, .holds = {Role::kBias},
                .help = "bias memory, KiB"});
    set_dma({.bytes_per_cycle = 8,
             .setup_cycles = 16,
             .dims = 2,
             .overlaps_compute = true,
             .start_function = "ut_dma_start",
             .wait_function = "ut_dma_wait"});
    // 2. Patterns, each composite lowered to one call of the array per tile.
    add_pattern("conv1d", conv1d_pattern(), check_conv1d);
    add_composite_lowering("conv1d", lower_conv1d);
    // 4. Lowering: the array reads every operand from its memories.
    set_max_immediate_elements(0);
    // 6. Codegen: the functional model, compiled with the generated code.
    add_c_source("ultra_trail", uma_embedded_ultra_trail_ultra_trail_c);
    // ut_conv1d and the DMA calls return 0 or an error code.
    set_extern_status(true);
  }
};

}  // namespace
}  // namespace ultra_trail

Status register_ultra_trail(Context& context) {
  return register_backend(context, std::make_unique<ultra_trail::UltraTrail>());
}

}  // namespace uma::backends
