// The per-op-family profile of a compiled model (uma bench --profile): the family of each
// generated function, read from the ops it holds, and the executor's call timings grouped
// by family.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/runtime/executor.h"

namespace uma {

enum class OpFamily : std::uint8_t {
  kConvKxK,      // convolutions with a kernel larger than 1x1 (3x3, 7x7 ...), transposes
  kConv1x1,      // convolutions whose kernel is 1 in every spatial dimension
  kDepthwise,    // grouped convolutions of one input channel per group
  kDense,        // nn.dense, nn.matmul
  kElementwise,  // elementwise ops alone, or with layout ops
  kPool,         // max, average and global pools
  kSoftmaxNorm,  // softmax, log-softmax, layer and instance norms
  kLayout,       // ops that only move elements: transpose, reshape, concatenate, nn.pad ...
  kOther,        // reductions and every other op
};

// "conv kxk", "conv 1x1", "depthwise", "dense/matmul", "elementwise", "pool",
// "softmax/norm", "layout", "other".
std::string_view op_family_name(OpFamily family);

// The family of the function's heaviest op, in this order: a convolution (the first one's
// kind), dense or matmul, softmax or a norm, a pool, another reduction or an op of no known
// pattern (other), an elementwise op, a layout op. Calls (composites) count by their
// callee's ops.
OpFamily function_family(const Function& function);

struct FamilyProfile {
  OpFamily family = OpFamily::kOther;
  std::int64_t calls = 0;
  std::chrono::nanoseconds time{0};
  // The multiply-accumulates of those calls (uma/op/cost.h): 0 for the families whose
  // ops count none (all but the convolutions and dense/matmul).
  std::int64_t macs = 0;
};

// The timings of an executor's calls (Executor::call_timings) grouped by the family of the
// function each call ran, looked up by name in `module` (the built module, whose @main calls
// the generated functions); the families that ran, the longest first. Errors name a call
// whose function the module lacks.
Expected<std::vector<FamilyProfile>> profile_by_family(
    const Module& module, const std::vector<runtime::CallTiming>& timings);

}  // namespace uma
