// The host's backend: the target kind "c", generated C run in-process on the CPU.
#pragma once

#include <memory>

#include "uma/uma/backend.h"

namespace uma::backends {

// The host's backend (DESIGN.md, "The host is a backend too"), declared through the same
// Backend class as any accelerator's: the kind "c" with its attributes `threads` (int, 1,
// checked to lie in [1, 1024]: the threads of the generated code, OpenMP above 1),
// `peak_gflops` and `memory_gbps` (int, 0: measured; its roofline's, see host_cost). Its
// functions are the host's, those no other backend takes; they keep lowering's reference
// computes, scheduled where it has a schedule for the block (a 2-D convolution whose
// weight its graph pass packed). Every Context registers it (uma/uma/context.h).
std::unique_ptr<Backend> make_cpu_backend();

// The host's cost of a composite, its backend's BackendCost: the roofline max(2 MACs / peak
// FLOP/s, bytes / memory bandwidth), where the MACs are its ops' (uma/op/cost.h) and the bytes
// those of its inputs, constants and outputs. The peak and the bandwidth are the target's
// peak_gflops and memory_gbps; where 0, this machine's, measured for the target's CPU and
// threads with the C compiler builds use by default and kept in its cache folder
// (runtime::machine_peak): measured only when a cost is asked for (`--partition=cost`).
Expected<CompositeCost> host_cost(const Function& composite, const Target& target);

// The f32 lanes of the target CPU's vectors: 16 with AVX-512, 8 with AVX2, else 4. "native"
// (or no mcpu) is this machine; `mattr` (+avx512f, -avx2, ...) overrides the CPU's.
Expected<std::int64_t> vector_lanes(const Target& target);

// The block of channels the host's kernels use for `channels`: the most of `lanes`, half
// of them, ... down to 4 that divides it; 0 when none does.
std::int64_t channel_block(std::int64_t channels, std::int64_t lanes);

// pack-weights (pack_weights.cc), a graph pass of POST_PARTITIONING_0: convolution and
// dense weights in blocks of output channels.
Expected<bool> pack_weights(Module& module, const Target& target);

// layout-nchwc (layout_nchwc.cc), a graph pass of POST_PARTITIONING_0 after
// pack-weights.
Expected<bool> layout_nchwc(Module& module, const Target& target);

// Whether a function is the host's own: not a composite, an offloaded or a fused one.
bool is_host_function(const Function& function);

// The tensor of a constant with data, or null.
const Tensor* constant_tensor(const Value* value);

// contract-fma (contract_fma.cc), a loop-IR pass of TIR_PHASE_0.
Expected<tir::PrimFunc> contract_fma(const tir::PrimFunc& func, const Target& target);

// The schedule of block conv2d_nchw (schedule_conv2d.cc).
Status schedule_conv2d(tir::Schedule& s, const tir::BlockRef& conv, const Target& target);

// The schedule of blocks dense (of nn.dense_packed) and matmul (schedule_dense.cc).
Status schedule_dense(tir::Schedule& s, const tir::BlockRef& product, const Target& target);

// The schedule of blocks max_pool3d and avg_pool3d over blocked data (schedule_pool.cc).
Status schedule_pool(tir::Schedule& s, const tir::BlockRef& pool, const Target& target);

// The schedule of sums along contiguous elements: softmax's, the norms' mean and variance
// (schedule_reduction.cc).
Status schedule_reduction(tir::Schedule& s, const tir::BlockRef& sum, const Target& target);

}  // namespace uma::backends
