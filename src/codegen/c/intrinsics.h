// The intrinsics the C code generator knows: their names in the loop IR and how each
// prints in C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace uma::codegen {

enum class IntrinsicForm : std::uint8_t {
  kLibm,    // a math.h function, `expf` for f32 and narrower floats, `exp` for f64
  kHelper,  // one of the generator's helpers, uma_<helper>_<type suffix>
  kMacro,   // a math.h classification macro (isnan), whatever the type
  kAbs,     // fabs for floats, a helper for integers
};

struct Intrinsic {
  std::string_view name;    // in the loop IR
  std::string_view c_name;  // math.h base name or helper stem
  std::size_t num_args;
  IntrinsicForm form;
  bool float_only;  // its arguments must be floats
};

// The intrinsic of that name, or nullptr. "round" rounds half to even (C's nearbyint in
// the default rounding mode), as ONNX's Round does; "sigmoid" is 1 / (1 + exp(-x)).
const Intrinsic* find_intrinsic(std::string_view name);

}  // namespace uma::codegen
