// Interval arithmetic over int64 with infinite ends, and the bounds of index expressions.
#include "uma/tir/interval.h"

#include <algorithm>

namespace uma::tir {
namespace {

using Wide = __int128;

constexpr std::int64_t kNegInf = Interval::kNegInf;
constexpr std::int64_t kPosInf = Interval::kPosInf;

bool is_inf(std::int64_t x) { return x == kNegInf || x == kPosInf; }

std::int64_t clamp(Wide x) {
  if (x <= kNegInf) return kNegInf;
  if (x >= kPosInf) return kPosInf;
  return static_cast<std::int64_t>(x);
}

std::int64_t negate(std::int64_t x) {
  if (x == kNegInf) return kPosInf;
  if (x == kPosInf) return kNegInf;
  return -x;
}

// x * y where either may be infinite; 0 * inf is 0 (the finite end of [0, 0] * anything).
std::int64_t mul_ends(std::int64_t x, std::int64_t y) {
  if (x == 0 || y == 0) return 0;
  if (is_inf(x) || is_inf(y)) return (x < 0) != (y < 0) ? kNegInf : kPosInf;
  return clamp(static_cast<Wide>(x) * y);
}

// floor(x / d) for d > 0, either may be infinite; x / +inf tends to 0 or -1.
std::int64_t div_ends(std::int64_t x, std::int64_t d) {
  if (is_inf(x)) return x;
  if (d == kPosInf) return x >= 0 ? 0 : -1;
  return floor_div(x, d);
}

Interval interval_of_type(DataType type) {
  if (type.handle || type.lanes != 1) return Interval::everything();
  if (type.dtype == DType::boolean) return {0, 1};
  if (!is_integer(type.dtype)) return Interval::everything();
  int bits = static_cast<int>(dtype_size(type.dtype)) * 8;
  // Unsigned 64-bit values do not fit int64; their immediates hold the bits.
  if (bits == 64) return Interval::everything();
  bool is_unsigned = dtype_name(type.dtype)[0] == 'u';
  if (is_unsigned) return {0, (std::int64_t{1} << bits) - 1};
  return {-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
}

// The types whose arithmetic is assumed not to overflow (as signed arithmetic in C).
bool is_index_type(DataType type) {
  return type.is_scalar() && (type.dtype == DType::i64 || type.dtype == DType::i32);
}

class BoundsOf {
 public:
  explicit BoundsOf(const Bounds& known) : known_(known) {}

  Interval of(const Expr& e) {
    if (!e.defined() || !is_index_type(e.type()))
      return e.defined() ? interval_of_type(e.type()) : Interval();
    Interval result = compute(e);
    return intersect_with_type(result, e.type());
  }

 private:
  static Interval intersect_with_type(Interval r, DataType type) {
    // The int64 range is "everything" already; i32 values stay within i32.
    return type.dtype == DType::i32 ? intersect(r, interval_of_type(type)) : r;
  }

  template <typename T>
  Interval binary(const Expr& e) {
    const auto* op = e.as<T>();
    return compute_binary(e.kind(), of(op->a), of(op->b));
  }

  static Interval compute_binary(ExprKind kind, Interval a, Interval b) {
    switch (kind) {
      case ExprKind::Add:
        return a + b;
      case ExprKind::Sub:
        return a - b;
      case ExprKind::Mul:
        return a * b;
      case ExprKind::Div:
        return floor_div(a, b);
      case ExprKind::Mod:
        return floor_mod(a, b);
      case ExprKind::Min:
        return min(a, b);
      case ExprKind::Max:
        return max(a, b);
      default:
        return Interval::everything();
    }
  }

  Interval compute(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
        return Interval::point(e.as<IntImmNode>()->value);
      case ExprKind::Var: {
        const auto* var = e.as<VarNode>();
        if (auto it = lets_.find(var); it != lets_.end()) return it->second;
        if (auto it = known_.find(var); it != known_.end()) return it->second;
        return interval_of_type(e.type());
      }
      case ExprKind::Add:
        return binary<AddNode>(e);
      case ExprKind::Sub:
        return binary<SubNode>(e);
      case ExprKind::Mul:
        return binary<MulNode>(e);
      case ExprKind::Div:
        return binary<DivNode>(e);
      case ExprKind::Mod:
        return binary<ModNode>(e);
      case ExprKind::Min:
        return binary<MinNode>(e);
      case ExprKind::Max:
        return binary<MaxNode>(e);
      case ExprKind::Select: {
        const auto* op = e.as<SelectNode>();
        return hull(of(op->true_value), of(op->false_value));
      }
      case ExprKind::Cast: {
        const Expr& value = e.as<CastNode>()->value;
        if (!value.type().is_scalar() || is_float(value.type().dtype)) break;
        // Integer to integer: the value's interval when it fits the new type.
        Interval inner = of(value);
        Interval range = interval_of_type(e.type());
        if (inner.min >= range.min && inner.max <= range.max) return inner;
        break;
      }
      case ExprKind::Let: {
        const auto* op = e.as<LetNode>();
        const auto* var = op->var.as<VarNode>();
        Interval value = of(op->value);
        auto [it, inserted] = lets_.emplace(var, value);
        Interval saved = it->second;
        it->second = value;
        Interval body = of(op->body);
        if (inserted)
          lets_.erase(var);
        else
          lets_[var] = saved;
        return body;
      }
      default:
        break;
    }
    return interval_of_type(e.type());
  }

  const Bounds& known_;
  std::unordered_map<const VarNode*, Interval> lets_;
};

}  // namespace

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0);
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

Interval Interval::range(std::int64_t min, std::int64_t extent) {
  return {min, clamp(static_cast<Wide>(min) + extent - 1)};
}

Interval operator+(Interval a, Interval b) {
  std::int64_t lo = a.min == kNegInf || b.min == kNegInf ? kNegInf : clamp(Wide{a.min} + b.min);
  std::int64_t hi = a.max == kPosInf || b.max == kPosInf ? kPosInf : clamp(Wide{a.max} + b.max);
  return {lo, hi};
}

Interval operator-(Interval a, Interval b) { return a + Interval{negate(b.max), negate(b.min)}; }

Interval operator*(Interval a, Interval b) {
  std::int64_t c[] = {mul_ends(a.min, b.min), mul_ends(a.min, b.max), mul_ends(a.max, b.min),
                      mul_ends(a.max, b.max)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

Interval operator*(Interval a, std::int64_t c) { return a * Interval::point(c); }

Interval floor_div(Interval a, Interval b) {
  if (b.max < 0) {
    // a / b == (-a) / (-b) for floor division.
    return floor_div(Interval{negate(a.max), negate(a.min)},
                     Interval{negate(b.max), negate(b.min)});
  }
  if (b.min <= 0) return Interval::everything();
  // floor(x / d) rises with x, and moves toward 0 (x > 0) or -1 (x < 0) as d grows.
  return {std::min(div_ends(a.min, b.min), div_ends(a.min, b.max)),
          std::max(div_ends(a.max, b.min), div_ends(a.max, b.max))};
}

Interval floor_mod(Interval a, Interval b) {
  if (b.min > 0) {
    if (b.is_point() && a.has_lower() && a.has_upper()) {
      // Within one period the remainder is the value less the period's start.
      std::int64_t start = floor_div(a.min, b.min) * b.min;
      if (Wide{a.max} - start < b.min) return {a.min - start, clamp(Wide{a.max} - start)};
    }
    std::int64_t hi = b.max == kPosInf ? kPosInf : b.max - 1;
    if (a.min >= 0) {
      if (a.max < b.min) return a;
      hi = std::min(hi, a.max);
    }
    return {0, hi};
  }
  if (b.max < 0) return {b.min == kNegInf ? kNegInf : b.min + 1, 0};
  return Interval::everything();
}

Interval min(Interval a, Interval b) { return {std::min(a.min, b.min), std::min(a.max, b.max)}; }
Interval max(Interval a, Interval b) { return {std::max(a.min, b.min), std::max(a.max, b.max)}; }
Interval hull(Interval a, Interval b) { return {std::min(a.min, b.min), std::max(a.max, b.max)}; }
Interval intersect(Interval a, Interval b) {
  return {std::max(a.min, b.min), std::min(a.max, b.max)};
}

Interval bounds_of(const Expr& e, const Bounds& known) { return BoundsOf(known).of(e); }

}  // namespace uma::tir
