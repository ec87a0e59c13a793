// GCC vector types of the generated code (`typedef float uma_f32x16
// __attribute__((vector_size(64)))`) and the helpers that load, store, splat and combine
// whole vectors, defined only for the types a unit uses.
#pragma once

#include <string>

#include "helpers.h"
#include "uma/tir/ir.h"

namespace uma::codegen {

// Whether values of `type` print as a GCC vector type: f32, f64, i32 or i64 with a
// power-of-two number of lanes, at most 256 bytes. Narrower types compute in a wider C
// type, so their lanes stay lane loops.
bool has_vector_type(tir::DataType type);

enum class VectorHelper : std::uint8_t {
  kLoad,   // from a pointer of any alignment
  kStore,  // to a pointer of any alignment
  kSplat,  // a scalar in every lane
  kFma,    // lane by lane fma (C's, rounded once)
  kMin,    // lane by lane, as the scalar uma_min helpers (a NaN in the first operand stays)
  kMax,
};

// The name of `type`'s vector type ("uma_f32x16"), defined in `helpers`.
std::string use_vector_type(HelperSet& helpers, tir::DataType type);
// The name of the helper ("uma_vload_f32x16"), defined in `helpers` with its type.
std::string use_vector_helper(HelperSet& helpers, VectorHelper helper, tir::DataType type);
// The logistic function 1 / (1 + e^-x) on an f32 vector of `type` ("uma_vsigmoid_f32x16"),
// defined in `helpers`: within a few ulp of the scalar uma_sigmoidf; below -87.3 its
// exponential saturates, so it gives ~6e-39 where the exact value underflows.
std::string use_vector_sigmoid(HelperSet& helpers, tir::DataType type);

}  // namespace uma::codegen
