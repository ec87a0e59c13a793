// The intrinsic table.
#include "intrinsics.h"

#include <array>

namespace uma::codegen {
namespace {

using enum IntrinsicForm;

constexpr std::array kIntrinsics = {
    Intrinsic{"exp", "exp", 1, kLibm, true},
    Intrinsic{"exp2", "exp2", 1, kLibm, true},
    Intrinsic{"expm1", "expm1", 1, kLibm, true},
    Intrinsic{"log", "log", 1, kLibm, true},
    Intrinsic{"log2", "log2", 1, kLibm, true},
    Intrinsic{"log10", "log10", 1, kLibm, true},
    Intrinsic{"log1p", "log1p", 1, kLibm, true},
    Intrinsic{"sqrt", "sqrt", 1, kLibm, true},
    Intrinsic{"rsqrt", "rsqrt", 1, kHelper, true},
    Intrinsic{"sin", "sin", 1, kLibm, true},
    Intrinsic{"cos", "cos", 1, kLibm, true},
    Intrinsic{"tan", "tan", 1, kLibm, true},
    Intrinsic{"asin", "asin", 1, kLibm, true},
    Intrinsic{"acos", "acos", 1, kLibm, true},
    Intrinsic{"atan", "atan", 1, kLibm, true},
    Intrinsic{"sinh", "sinh", 1, kLibm, true},
    Intrinsic{"cosh", "cosh", 1, kLibm, true},
    Intrinsic{"tanh", "tanh", 1, kLibm, true},
    Intrinsic{"asinh", "asinh", 1, kLibm, true},
    Intrinsic{"acosh", "acosh", 1, kLibm, true},
    Intrinsic{"atanh", "atanh", 1, kLibm, true},
    Intrinsic{"erf", "erf", 1, kLibm, true},
    Intrinsic{"floor", "floor", 1, kLibm, true},
    Intrinsic{"ceil", "ceil", 1, kLibm, true},
    Intrinsic{"trunc", "trunc", 1, kLibm, true},
    Intrinsic{"round", "nearbyint", 1, kLibm, true},
    Intrinsic{"nearbyint", "nearbyint", 1, kLibm, true},
    Intrinsic{"sigmoid", "sigmoid", 1, kHelper, true},
    Intrinsic{"pow", "pow", 2, kLibm, true},
    Intrinsic{"atan2", "atan2", 2, kLibm, true},
    Intrinsic{"fmod", "fmod", 2, kLibm, true},
    Intrinsic{"copysign", "copysign", 2, kLibm, true},
    Intrinsic{"fabs", "fabs", 1, kAbs, true},
    Intrinsic{"abs", "abs", 1, kAbs, false},
    Intrinsic{"isnan", "isnan", 1, kMacro, true},
    Intrinsic{"isinf", "isinf", 1, kMacro, true},
    Intrinsic{"isfinite", "isfinite", 1, kMacro, true},
};

}  // namespace

const Intrinsic* find_intrinsic(std::string_view name) {
  for (const Intrinsic& intrinsic : kIntrinsics)
    if (intrinsic.name == name) return &intrinsic;
  return nullptr;
}

}  // namespace uma::codegen
