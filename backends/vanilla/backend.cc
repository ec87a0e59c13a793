// The vanilla backend: 2-D convolutions (NCHW, any padding, stride and batch) offloaded to a
// C kernel, the example of docs/backend-tutorial.md; with `--sram_kb=N`, through an on-chip
// memory of N KiB that the core tiles each convolution into. Everything it declares is here,
// in the order of uma/uma/backend.h.
#include <memory>

#include "backends/register.h"
#include "backends/vanilla/vanilla.h"
#include "uma/uma/backend.h"

namespace uma::backends {

// The kernel's source, embedded by backends/CMakeLists.txt.
extern const char uma_embedded_vanilla_vanilla_conv2d_c[];

namespace vanilla {
namespace {

using tiling::Role;

class VanillaBackend final : public Backend {
 public:
  VanillaBackend() : Backend(std::string(kTargetName)) {
    // 1. Target: the kernel's output-channel tile, which each call passes on.
    add_int_attr("dimension", 16,
                 "output channels the kernel computes at once (its accumulator tile), 1 to 64");
    set_target_check(check_target);
    // An on-chip memory, none by default: with --sram_kb=N each convolution runs in tiles
    // that fit N KiB, one call of the kernel per tile, and one that does not fit even in its
    // smallest tile stays on the host. The DMA engine's functions are the core's (a copy per
    // row): the kernel's "hardware" shares the host's memory.
    add_memory({.name = "sram",
                .default_kb = 0,
                .alignment = 64,
                .holds = {Role::kFeatures, Role::kWeights, Role::kBias},
                .optional = true,
                .help = "on-chip memory for a layer's tiles (features, weights, bias), KiB"});
    set_dma({});
    // 2. Patterns, each composite lowered to one call of the kernel.
    add_pattern("conv2d", conv2d_pattern(), check_conv2d);
    add_composite_lowering("conv2d", lower_conv2d);
    // 4. Lowering: the kernel reads every operand from memory, so no constant is written
    // into the code.
    set_max_immediate_elements(0);
    // 6. Codegen: the kernel is compiled with the generated code. The calls get the prototype
    // the code generator derives from them (declare_externs, the default): the kernel travels
    // as a string inside the library, so there is no header on disk to include, and a
    // prototype needs none. Its buffer parameters are void* there and float* in the kernel,
    // which every C ABI passes alike.
    add_c_source("vanilla_conv2d", uma_embedded_vanilla_vanilla_conv2d_c);
    // The kernel returns nonzero for arguments it refuses: the executor reports it.
    set_extern_status(true);
  }
};

}  // namespace
}  // namespace vanilla

Status register_vanilla(Context& context) {
  return register_backend(context, std::make_unique<vanilla::VanillaBackend>());
}

}  // namespace uma::backends
