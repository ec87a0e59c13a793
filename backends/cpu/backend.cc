// The host's backend: its target, schedules and passes in one place (see cpu.h).
#include "cpu.h"

namespace uma::backends {
namespace {

// Far above any machine's, far below where the roofline's arithmetic loses precision.
constexpr std::int64_t kMaxPeak = std::int64_t{1} << 30;

Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t threads, target.get_int("threads"));
  if (threads < 1 || threads > 1024)
    return make_error("threads must be in [1, 1024], not {}", threads);
  for (const char* attr : {"peak_gflops", "memory_gbps"}) {
    UMA_TRY_ASSIGN(std::int64_t value, target.get_int(attr));
    if (value < 0 || value > kMaxPeak)
      return make_error("{} must be in [0, {}] (0: measured), not {}", attr, kMaxPeak, value);
  }
  return Status::success();
}

class Cpu : public Backend {
 public:
  Cpu() : Backend(std::string(kHostTargetKind)) {
    declare_host();
    add_int_attr("threads", 1, "threads of the generated code (OpenMP above 1)");
    add_int_attr("peak_gflops", 0, "FP32 GFLOP/s of the host's roofline (0: measured)");
    add_int_attr("memory_gbps", 0, "memory GB/s of the host's roofline (0: measured)");
    set_target_check(check_target);
    add_graph_pass(GraphPhase::kPostPartitioning0, "pack-weights", pack_weights);
    add_graph_pass(GraphPhase::kPostPartitioning0, "layout-nchwc", layout_nchwc);
    for (const char* block : {"conv2d_nchw", "conv2d_nchwc", "depthwise_conv2d_nchwc"})
      add_schedule(block, schedule_conv2d);
    for (const char* block : {"max_pool3d", "avg_pool3d"}) add_schedule(block, schedule_pool);
    for (const char* block : {"dense", "matmul"}) add_schedule(block, schedule_dense);
    for (const char* block :
         {"softmax_sum", "log_softmax_sum", "layer_norm_mean", "layer_norm_variance",
          "instance_norm_mean", "instance_norm_variance"})
      add_schedule(block, schedule_reduction);
    add_tir_pass(TirPhase::k0, "contract-fma", contract_fma);
    set_cost(host_cost);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<Cpu>(); }

}  // namespace uma::backends
