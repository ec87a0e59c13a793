// The design a target describes (see npu_sim.h): its attributes read and checked once, for
// the predicates, the lowerings and the performance model alike.
#include "backends/npu_sim/npu_sim.h"

namespace uma::backends::npu_sim {
namespace {

Expected<std::int64_t> in_range(const Target& target, std::string_view attr, std::int64_t lo,
                                std::int64_t hi) {
  UMA_TRY_ASSIGN(std::int64_t value, target.get_int(attr));
  if (value < lo || value > hi)
    return make_error("attribute '{}' must be between {} and {}, not {}", attr, lo, hi, value);
  return value;
}

// An energy in femtojoules, as picojoules.
Expected<double> energy(const Target& target, std::string_view attr) {
  UMA_TRY_ASSIGN(std::int64_t fj, in_range(target, attr, 0, std::int64_t{1} << 40));
  return static_cast<double>(fj) / 1000.0;
}

}  // namespace

Expected<Design> design(const Target& target) {
  Design d;
  UMA_TRY_ASSIGN(d.rows, in_range(target, "rows", 1, kMaxSide));
  UMA_TRY_ASSIGN(d.cols, in_range(target, "cols", 1, kMaxSide));
  UMA_TRY_ASSIGN(std::string dataflow, target.get_string("dataflow"));
  if (dataflow == "ws")
    d.dataflow = Dataflow::kWeightStationary;
  else if (dataflow == "os")
    d.dataflow = Dataflow::kOutputStationary;
  else if (dataflow == "is")
    d.dataflow = Dataflow::kInputStationary;
  else
    return make_error("attribute 'dataflow' is '{}'; expected ws, os or is", dataflow);
  UMA_TRY_ASSIGN(std::string dtype, target.get_string("dtype"));
  if (dtype != "f32")
    return make_error("attribute 'dtype' is '{}'; npu_sim runs f32 (int8 needs quantized "
                      "composites, which uma does not make yet)",
                      dtype);
  UMA_TRY_ASSIGN(d.clock_mhz, in_range(target, "clock_mhz", 1, 100000));
  UMA_TRY_ASSIGN(d.mac_pj, energy(target, "mac_fj"));
  UMA_TRY_ASSIGN(d.sram_pj_per_byte, energy(target, "sram_fj_per_byte"));
  UMA_TRY_ASSIGN(d.dram_pj_per_byte, energy(target, "dram_fj_per_byte"));
  // The memory model checks these too (tiling::resolve); read here for the timing.
  UMA_TRY_ASSIGN(d.dma_bytes_per_cycle, target.get_int("dma_bytes_per_cycle"));
  UMA_TRY_ASSIGN(d.dma_setup_cycles, target.get_int("dma_setup_cycles"));
  return d;
}

Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(Design d, design(target));
  (void)d;
  return Status::success();
}

}  // namespace uma::backends::npu_sim
