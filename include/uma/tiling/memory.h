// An accelerator's memories and DMA engine, as its backend declares them
// (Backend::add_memory, Backend::set_dma) and a build's target sizes them.
//
// A memory is a named on-chip scratchpad ("fmem", "wmem", "sram") of a capacity, an
// alignment, and the operands it may hold. Its capacity is a target attribute the
// declaration creates, `<name>_kb`, so that "ultra_trail --fmem_kb=16" changes the plan and
// nothing else holds the size: the tiling planner, the fit check and the report read it from
// the resolved MemoryModel. The DMA engine moves tiles between host memory and the memories:
// its rate, setup cost and how many strided dimensions one transfer covers are target
// attributes too (`dma_bytes_per_cycle`, `dma_setup_cycles`, `dma_dims`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uma/support/error.h"
#include "uma/uma/target.h"

namespace uma::tiling {

// What an operand of an offloaded layer is, and so which memory holds it.
enum class Role : std::uint8_t {
  kFeatures,      // the layer's data in and out (activations)
  kWeights,       // its constant weights (a convolution's filters, a dense layer's matrix)
  kBias,          // its other constants (a bias, a scale)
  kAccumulators,  // partial sums kept across a split reduction
  // The layer's output, where a memory holds it apart from the features it reads (a systolic
  // array's output buffer); without such a memory the output goes where features do.
  kOutputs,
};
inline constexpr std::size_t kNumRoles = 5;
// "features", "weights", "bias", "accumulators", "outputs"
std::string_view role_name(Role role);

// A memory as a backend declares it.
struct MemoryDecl {
  std::string name;  // a C identifier: the scope of the buffers placed in it
  std::int64_t default_kb = 0;
  std::int64_t alignment = 1;  // bytes; every buffer in it starts at a multiple of this
  std::vector<Role> holds;
  // An optional memory may be sized 0 (`--sram_kb=0`): the target then has no such memory.
  bool optional = false;
  std::string help;
  // The target attribute of its capacity: "<name>_kb".
  std::string capacity_attr() const { return name + "_kb"; }
};

// The DMA engine as a backend declares it: the defaults of its attributes, and the C
// functions its transfers call (empty: the core's, a memcpy per row).
struct DmaDecl {
  std::int64_t bytes_per_cycle = 8;
  std::int64_t setup_cycles = 16;
  std::int64_t dims = 2;  // strided dimensions one transfer covers (1: contiguous rows only)
  bool overlaps_compute = true;
  // int32_t start(int64_t queue, void* dst, const void* src, int64_t row_bytes,
  //               int64_t rows, int64_t dst_stride, int64_t src_stride);
  // int32_t wait(int64_t queue): returns when every transfer started on `queue` is done.
  std::string start_function, wait_function;
};

// A memory of a build's target.
struct Memory {
  std::string name;
  std::int64_t capacity = 0;  // bytes
  std::int64_t alignment = 1;
  std::vector<Role> holds;
  bool holds_role(Role role) const;
  // The bytes a buffer of `bytes` takes in it: a whole number of its alignment, so that the
  // next buffer (or a second slot of this one) starts aligned.
  std::int64_t footprint(std::int64_t bytes) const;
};

struct DmaEngine {
  std::int64_t bytes_per_cycle = 8;
  std::int64_t setup_cycles = 16;
  std::int64_t dims = 2;
  bool overlaps_compute = true;
  std::string start_function, wait_function;
};

// A target's memories and DMA engine.
struct MemoryModel {
  std::vector<Memory> memories;  // declaration order; optional memories sized 0 left out
  DmaEngine dma;

  bool empty() const { return memories.empty(); }
  // The first memory that holds `role`, or null: such operands stay in host memory.
  const Memory* holding(Role role) const;
  const Memory* find(std::string_view name) const;
  // The same memories, none holding `role`.
  MemoryModel without(Role role) const;
};

// The largest capacity a memory may declare or be given: 1 GiB, so that byte counts of
// what fits stay well inside 32 bits of elements.
inline constexpr std::int64_t kMaxMemoryKb = std::int64_t{1} << 20;

// Checks declarations when a backend registers: names are C identifiers and unique,
// alignments powers of two, every memory holds something, defaults in range.
Status check_decls(const std::vector<MemoryDecl>& memories, const std::optional<DmaDecl>& dma);

// The memories and DMA engine of `target`. Errors name the attribute at fault: a capacity of
// 0 (for a memory that is not optional) or above kMaxMemoryKb, a memory smaller than its
// alignment, a DMA rate or dimension count below 1.
Expected<MemoryModel> resolve(const std::vector<MemoryDecl>& memories,
                              const std::optional<DmaDecl>& dma, const Target& target);

// The target attributes the declarations create (added to the backend's own).
std::vector<TargetAttrDef> memory_attrs(const std::vector<MemoryDecl>& memories,
                                        const std::optional<DmaDecl>& dma);

}  // namespace uma::tiling
