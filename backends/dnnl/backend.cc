// The dnnl backend: convolutions, dense layers and matrix products with their fused bias,
// residual sum and activation, concatenations, poolings, softmaxes, batch and layer normalizations
// and elementwise ops run as oneDNN primitives (Debian's libdnnl-dev), created when the model
// loads. Everything it declares is here, in the order of uma/uma/backend.h.
#include <memory>

#include "backends/dnnl/dnnl.h"
#include "backends/register.h"
#include "uma/uma/backend.h"

namespace uma::backends {

// The kernel's source, embedded by backends/CMakeLists.txt.
extern const char uma_embedded_dnnl_dnnl_ops_c[];

namespace dnnl {
namespace {

class DnnlBackend final : public Backend {
 public:
  DnnlBackend() : Backend(std::string(kTargetName)) {
    // 1. Target.
    add_string_attr("winograd", "auto",
                    "3x3 stride-1 convolutions by Winograd: auto (those of 64 channels or more), "
                    "on, off");
    add_bool_attr("bf16", false,
                  "convolutions and dense layers multiply in bfloat16 (sums stay f32): about "
                  "2x faster where the CPU has bf16 instructions, results to about 1e-2");
    add_string_attr("max_isa", "all",
                    "the newest instruction set oneDNN's implementations may use: all, sse41, "
                    "avx, avx2, avx2_vnni, avx512_core, avx512_core_vnni, avx512_core_bf16, "
                    "avx512_core_amx");
    set_target_check(check_target);
    // 2. Patterns, longest first within each; each composite is one call of the kernel.
    add_pattern("conv", conv_pattern(), check_conv);
    add_composite_lowering("conv", lower_conv);
    add_pattern("dense", dense_pattern(), check_dense);
    add_composite_lowering("dense", lower_dense);
    add_pattern("matmul", matmul_pattern(), check_matmul);
    add_composite_lowering("matmul", lower_matmul);
    add_pattern("concat", concat_pattern(), check_concat);
    add_composite_lowering("concat", lower_concat);
    add_pattern("pool", pool_pattern(), check_pool);
    add_composite_lowering("pool", lower_pool);
    add_pattern("softmax", softmax_pattern(), check_softmax);
    add_composite_lowering("softmax", lower_softmax);
    add_pattern("norm", norm_pattern(), check_norm);
    add_composite_lowering("norm", lower_norm);
    add_pattern("binary", binary_pattern(), check_binary);
    add_composite_lowering("binary", lower_binary);
    add_pattern("eltwise", eltwise_pattern(), check_eltwise);
    add_composite_lowering("eltwise", lower_eltwise);
    // 3. Graph passes: data stays channels last between a region's composites.
    add_graph_pass(GraphPhase::kPostPartitioning1, "dnnl-layouts", keep_layouts);
    // 4. Lowering: the primitives read every operand from memory.
    set_max_immediate_elements(0);
    // 5. The primitives are made when the model loads, kept in the function's state.
    add_tir_pass(TirPhase::k0, "dnnl-load-state", add_load_state);
    // 6. Codegen: the kernel, compiled with the generated code and linked with oneDNN; its
    // calls return a status, and a failed init fails the load.
    add_c_source("dnnl_ops", uma_embedded_dnnl_dnnl_ops_c);
    add_library("-ldnnl");
    set_extern_status(true);
  }
};

}  // namespace
}  // namespace dnnl

Status register_dnnl(Context& context) {
  return register_backend(context, std::make_unique<dnnl::DnnlBackend>());
}

}  // namespace uma::backends
