// The intrinsic table.
#include "intrinsics.h"

#include <array>

namespace uma::codegen {
namespace {

using enum IntrinsicForm;
using enum IntrinsicArgs;

constexpr std::array kIntrinsics = {
    Intrinsic{"exp", "exp", 1, kLibm, kFloats, "uma_expf"},
    Intrinsic{"exp2", "exp2", 1, kLibm, kFloats},
    Intrinsic{"expm1", "expm1", 1, kLibm, kFloats},
    Intrinsic{"log", "log", 1, kLibm, kFloats},
    Intrinsic{"log2", "log2", 1, kLibm, kFloats},
    Intrinsic{"log10", "log10", 1, kLibm, kFloats},
    Intrinsic{"log1p", "log1p", 1, kLibm, kFloats},
    Intrinsic{"sqrt", "sqrt", 1, kLibm, kFloats},
    Intrinsic{"rsqrt", "rsqrt", 1, kHelper, kFloats},
    Intrinsic{"sin", "sin", 1, kLibm, kFloats},
    Intrinsic{"cos", "cos", 1, kLibm, kFloats},
    Intrinsic{"tan", "tan", 1, kLibm, kFloats},
    Intrinsic{"asin", "asin", 1, kLibm, kFloats},
    Intrinsic{"acos", "acos", 1, kLibm, kFloats},
    Intrinsic{"atan", "atan", 1, kLibm, kFloats},
    Intrinsic{"sinh", "sinh", 1, kLibm, kFloats},
    Intrinsic{"cosh", "cosh", 1, kLibm, kFloats},
    Intrinsic{"tanh", "tanh", 1, kLibm, kFloats, "uma_tanhf"},
    Intrinsic{"asinh", "asinh", 1, kLibm, kFloats},
    Intrinsic{"acosh", "acosh", 1, kLibm, kFloats},
    Intrinsic{"atanh", "atanh", 1, kLibm, kFloats},
    Intrinsic{"erf", "erf", 1, kLibm, kFloats, "uma_erff"},
    Intrinsic{"erfc", "erfc", 1, kLibm, kFloats},
    Intrinsic{"floor", "floor", 1, kLibm, kFloats},
    Intrinsic{"ceil", "ceil", 1, kLibm, kFloats},
    Intrinsic{"trunc", "trunc", 1, kLibm, kFloats},
    Intrinsic{"round", "nearbyint", 1, kLibm, kFloats},
    Intrinsic{"nearbyint", "nearbyint", 1, kLibm, kFloats},
    Intrinsic{"sigmoid", "sigmoid", 1, kHelper, kFloats, "uma_sigmoidf"},
    Intrinsic{"pow", "pow", 2, kLibm, kNumbers},
    Intrinsic{"truncdiv", "truncdiv", 2, kHelper, kIntegers},
    Intrinsic{"fma", "fma", 3, kLibm, kFloats},
    Intrinsic{"atan2", "atan2", 2, kLibm, kFloats},
    Intrinsic{"fmod", "fmod", 2, kLibm, kFloats},
    Intrinsic{"copysign", "copysign", 2, kLibm, kFloats},
    Intrinsic{"fabs", "fabs", 1, kAbs, kFloats},
    Intrinsic{"abs", "abs", 1, kAbs, kNumbers},
    Intrinsic{"isnan", "isnan", 1, kMacro, kFloats},
    Intrinsic{"isinf", "isinf", 1, kMacro, kFloats},
    Intrinsic{"isfinite", "isfinite", 1, kMacro, kFloats},
};

}  // namespace

const Intrinsic* find_intrinsic(std::string_view name) {
  for (const Intrinsic& intrinsic : kIntrinsics)
    if (intrinsic.name == name) return &intrinsic;
  return nullptr;
}

}  // namespace uma::codegen
