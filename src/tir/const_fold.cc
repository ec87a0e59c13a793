// Folding operations on immediates, type by type (see const_fold.h for the semantics).
#include "const_fold.h"

#include <cmath>

namespace uma::tir {
namespace {

using Wide = __int128;

int bits_of(DType dtype) { return static_cast<int>(dtype_size(dtype)) * 8; }
bool is_unsigned_int(DType dtype) { return is_integer(dtype) && dtype_name(dtype)[0] == 'u'; }
// Signed arithmetic that the generated C does not wrap (overflow is undefined there).
bool overflow_is_undefined(DType dtype) { return dtype == DType::i32 || dtype == DType::i64; }

// `v` reduced into the range of the integer type, as a conversion in C does.
Wide wrap(DType dtype, Wide v) {
  if (dtype == DType::boolean) return v != 0;
  Wide period = Wide{1} << bits_of(dtype);
  Wide r = v % period;
  if (r < 0) r += period;
  if (!is_unsigned_int(dtype) && r >= period / 2) r -= period;
  return r;
}

// The integer an immediate stands for (unsigned 64-bit immediates hold their bits).
Wide int_value(const IntImmNode& imm) { return wrap(imm.type.dtype, imm.value); }

Expr int_const(DataType type, Wide v) {
  Wide r = wrap(type.dtype, v);
  auto bits = static_cast<std::uint64_t>(r);  // two's complement bits of the value
  return IntImmNode::make(type, static_cast<std::int64_t>(bits));
}

// The value a float immediate has in its type's precision.
double round_to(DType dtype, double v) {
  switch (dtype) {
    case DType::f16:
      return f16_to_f32(f32_to_f16(static_cast<float>(v)));
    case DType::bf16:
      return bf16_to_f32(f32_to_bf16(static_cast<float>(v)));
    default:
      return dtype_size(dtype) == 8 ? v : static_cast<double>(static_cast<float>(v));
  }
}

Wide floor_div_wide(Wide a, Wide b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }
Wide floor_mod_wide(Wide a, Wide b) {
  Wide r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

std::optional<Expr> compare(ExprKind kind, auto x, auto y) {
  bool r;
  switch (kind) {
    case ExprKind::EQ:
      r = x == y;
      break;
    case ExprKind::NE:
      r = x != y;
      break;
    case ExprKind::LT:
      r = x < y;
      break;
    case ExprKind::LE:
      r = x <= y;
      break;
    case ExprKind::GT:
      r = x > y;
      break;
    case ExprKind::GE:
      r = x >= y;
      break;
    default:
      return std::nullopt;
  }
  return IntImmNode::make(DataType::scalar(DType::boolean), r);
}

std::optional<Expr> fold_int(ExprKind kind, DataType type, Wide x, Wide y) {
  if (type.dtype == DType::boolean) {
    if (kind == ExprKind::And) return make_const(type, x && y);
    if (kind == ExprKind::Or) return make_const(type, x || y);
    return compare(kind, x, y);  // arithmetic on bools does not fold
  }
  Wide r;
  if (bits_of(type.dtype) == 64 && is_unsigned_int(type.dtype)) {
    // 64-bit unsigned products do not fit even 128 bits signed: wrap as uint64.
    auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    if (kind == ExprKind::Mul) return int_const(type, static_cast<Wide>(ux * uy));
  }
  switch (kind) {
    case ExprKind::Add:
      r = x + y;
      break;
    case ExprKind::Sub:
      r = x - y;
      break;
    case ExprKind::Mul:
      r = x * y;
      break;
    case ExprKind::Div:
      if (y == 0) return std::nullopt;
      r = floor_div_wide(x, y);
      break;
    case ExprKind::Mod:
      if (y == 0) return std::nullopt;
      r = floor_mod_wide(x, y);
      break;
    case ExprKind::Min:
      r = std::min(x, y);
      break;
    case ExprKind::Max:
      r = std::max(x, y);
      break;
    default:
      return compare(kind, x, y);
  }
  if (overflow_is_undefined(type.dtype) && wrap(type.dtype, r) != r) return std::nullopt;
  return int_const(type, r);
}

// a op b computed in T (float or double), the precision of the type.
template <typename T>
std::optional<double> fold_float_in(ExprKind kind, T x, T y) {
  switch (kind) {
    case ExprKind::Add:
      return x + y;
    case ExprKind::Sub:
      return x - y;
    case ExprKind::Mul:
      return x * y;
    case ExprKind::Div:
      return x / y;
    case ExprKind::Min:
    case ExprKind::Max:
      if (std::isnan(x) || std::isnan(y) || (x == y && std::signbit(x) != std::signbit(y)))
        return std::nullopt;
      return kind == ExprKind::Min ? std::min(x, y) : std::max(x, y);
    default:
      return std::nullopt;
  }
}

std::optional<Expr> fold_float(ExprKind kind, DataType type, double x, double y) {
  x = round_to(type.dtype, x);
  y = round_to(type.dtype, y);
  if (auto r = compare(kind, x, y)) return r;
  std::optional<double> r =
      dtype_size(type.dtype) == 8
          ? fold_float_in<double>(kind, x, y)
          : fold_float_in<float>(kind, static_cast<float>(x), static_cast<float>(y));
  if (!r) return std::nullopt;
  return FloatImmNode::make(type, round_to(type.dtype, *r));
}

}  // namespace

Expr make_const(DataType type, std::int64_t value) {
  if (type.lanes > 1) return BroadcastNode::make(make_const(type.element(), value), type.lanes);
  if (is_float(type.dtype)) return FloatImmNode::make(type, static_cast<double>(value));
  return int_const(type, value);
}

std::optional<Expr> fold_binary(ExprKind kind, const Expr& a, const Expr& b) {
  if (a.type() != b.type() || !a.type().is_scalar()) return std::nullopt;
  const auto *ia = a.as<IntImmNode>(), *ib = b.as<IntImmNode>();
  if (ia && ib) return fold_int(kind, a.type(), int_value(*ia), int_value(*ib));
  const auto *fa = a.as<FloatImmNode>(), *fb = b.as<FloatImmNode>();
  if (fa && fb) return fold_float(kind, a.type(), fa->value, fb->value);
  return std::nullopt;
}

std::optional<Expr> fold_cast(DataType type, const Expr& value) {
  if (!type.is_scalar() || !value.type().is_scalar()) return std::nullopt;
  if (const auto* imm = value.as<IntImmNode>()) {
    Wide v = int_value(*imm);
    if (is_float(type.dtype))
      return FloatImmNode::make(type, round_to(type.dtype, static_cast<double>(v)));
    return int_const(type, v);
  }
  const auto* imm = value.as<FloatImmNode>();
  if (imm == nullptr) return std::nullopt;
  double v = round_to(value.type().dtype, imm->value);
  if (is_float(type.dtype)) return FloatImmNode::make(type, round_to(type.dtype, v));
  if (type.dtype == DType::boolean) return make_const(type, v != 0);
  // C converts a float to an integer by truncation; out of range the result is undefined.
  if (std::isnan(v)) return std::nullopt;
  double t = std::trunc(v);
  int bits = bits_of(type.dtype);
  double lo = is_unsigned_int(type.dtype) ? 0 : -std::ldexp(1.0, bits - 1);
  double hi = std::ldexp(1.0, is_unsigned_int(type.dtype) ? bits : bits - 1);
  if (t < lo || t >= hi) return std::nullopt;
  return int_const(type, static_cast<Wide>(t));
}

}  // namespace uma::tir
