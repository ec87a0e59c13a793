// The intrinsics the C code generator knows: their names in the loop IR and how each
// prints in C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace uma::codegen {

enum class IntrinsicForm : std::uint8_t {
  kLibm,    // a math.h function, `expf` for f32 and narrower floats, `exp` for f64; for
            // integers (pow) the helper uma_<c_name>_<type suffix>
  kHelper,  // one of the generator's helpers, uma_<helper>_<type suffix>
  kMacro,   // a math.h classification macro (isnan), whatever the type
  kAbs,     // fabs for floats, a helper for integers
};

// The argument types an intrinsic takes.
enum class IntrinsicArgs : std::uint8_t {
  kFloats,
  kIntegers,  // signed and unsigned, not bool
  kNumbers,   // any type but a handle
};

struct Intrinsic {
  std::string_view name;    // in the loop IR
  std::string_view c_name;  // math.h base name or helper stem
  std::size_t num_args;
  IntrinsicForm form;
  IntrinsicArgs takes;
  // The generator's vectorizable helper for f32 (and f16/bf16, computed in float), used
  // unless CCodegenOptions::precise_math asks for libm; empty when there is none.
  std::string_view vector_f32 = {};
};

// The intrinsic of that name, or nullptr. "round" rounds half to even (C's nearbyint in
// the default rounding mode), as ONNX's Round does; "sigmoid" is 1 / (1 + exp(-x)).
// Integer "pow" wraps like repeated multiplication, and a negative exponent truncates the
// real result toward zero (1 and -1 keep their powers, every other base gives 0). "truncdiv"
// divides integers truncating toward zero, as C's `/` does, but is defined everywhere: the
// least value divided by -1 wraps to itself and a division by zero gives 0.
// "fma" is a * b + c rounded once (C's fma), whatever the target: where the CPU has
// FMA the C compiler makes it one instruction, elsewhere libm computes it exactly.
const Intrinsic* find_intrinsic(std::string_view name);

}  // namespace uma::codegen
