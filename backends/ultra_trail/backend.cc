// ultra_trail: UltraTrail, a 1-D CNN accelerator (an array of dimension x dimension
// multiply-accumulate units with its own weight, bias and feature memories), brought in
// through the UMA interface. Its declarations, in the interface's order; the pieces live
// beside this file (passes.h), its functional model in kernels/ultra_trail.c.
//
// A build partitions conv1d layers (conv1d → optional bias → optional relu) the
// accelerator can run, configures each (ultra-trail-config), passes weights and biases by
// pointer (ultra-trail-lift-constants), assigns each parameter its memory
// (ultra-trail-buffer-scopes) and replaces the lowered loop nests by the loads, runs and
// stores that drive it (ultra-trail-codegen); everything else runs on the host.
#include "uma/uma/backend.h"
#include "backends/register.h"
#include "passes.h"

namespace uma::backends {

extern const char uma_embedded_ultra_trail_ultra_trail_c[];

namespace ultra_trail {
namespace {

class UltraTrail : public Backend {
 public:
  UltraTrail() : Backend(std::string(kTargetName)) {
    // The defaults are the functional model's (kernels/ultra_trail.c): a layer the
    // attributes let through but the model's memories do not hold fails when it runs.
    add_int_attr("dimension", 8, "the array's side: channels are processed in blocks of it");
    add_int_attr("wmem_kb", 64, "weight memory, KiB");
    add_int_attr("fmem_kb", 32, "feature memory, KiB: one sample's input and output");
    add_int_attr("bmem_kb", 2, "bias memory, KiB");

    add_pattern("conv1d", conv1d_pattern(), check_conv1d);

    add_graph_pass(GraphPhase::kPostPartitioning0, "ultra-trail-config", configure_layers);
    add_graph_pass(GraphPhase::kPostPartitioning1, "ultra-trail-lift-constants", lift_constants);
    add_graph_pass(GraphPhase::kPostPartitioning1, "ultra-trail-buffer-scopes",
                   assign_buffer_scopes);

    add_tir_pass(TirPhase::k0, "ultra-trail-codegen", emit_accelerator_calls);

    add_c_source("ultra_trail", uma_embedded_ultra_trail_ultra_trail_c);
    // ut_load_*, ut_run and ut_store_fmem return 0 or an error code.
    set_extern_status(true);
  }
};

}  // namespace
}  // namespace ultra_trail

Status register_ultra_trail(Context& context) {
  return register_backend(context, std::make_unique<ultra_trail::UltraTrail>());
}

}  // namespace uma::backends
