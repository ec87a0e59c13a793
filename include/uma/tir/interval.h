// Integer intervals of loop-IR expressions: what the simplifier and the schedule primitives
// know about the values an index expression can take.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>

#include "uma/tir/ir.h"

namespace uma::tir {

// Floor division and modulo, the semantics of the IR's integer Div and Mod (the remainder
// has the divisor's sign). `b` must not be 0, nor -1 when `a` is the smallest int64.
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t floor_mod(std::int64_t a, std::int64_t b);

// The values [min, max], both included. The extreme int64 values stand for -inf and +inf,
// so an interval may be unbounded on either side; arithmetic saturates to them.
struct Interval {
  static constexpr std::int64_t kNegInf = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kPosInf = std::numeric_limits<std::int64_t>::max();
  std::int64_t min = kNegInf;
  std::int64_t max = kPosInf;

  static Interval everything() { return {}; }
  static Interval point(std::int64_t v) { return {v, v}; }
  // [min, min + extent): the values of a loop's variable.
  static Interval range(std::int64_t min, std::int64_t extent);
  bool has_lower() const { return min != kNegInf; }
  bool has_upper() const { return max != kPosInf; }
  bool is_point() const { return min == max && has_lower() && has_upper(); }
  bool operator==(const Interval&) const = default;
};

Interval operator+(Interval a, Interval b);
Interval operator-(Interval a, Interval b);
Interval operator*(Interval a, Interval b);
Interval operator*(Interval a, std::int64_t c);
Interval floor_div(Interval a, Interval b);  // everything when b may be 0
Interval floor_mod(Interval a, Interval b);
Interval min(Interval a, Interval b);
Interval max(Interval a, Interval b);
Interval hull(Interval a, Interval b);       // both
Interval intersect(Interval a, Interval b);  // may be empty (min > max)

// What is known about variables (by identity): their values lie in these intervals.
using Bounds = std::unordered_map<const VarNode*, Interval>;

// Every value `e` can take when its variables lie in `known` (variables not in it are
// unknown), for scalar i32 and i64 expressions, which are assumed not to overflow, as in
// C; for other types, the range of the type (everything for floats, vectors and handles).
Interval bounds_of(const Expr& e, const Bounds& known = {});

}  // namespace uma::tir
