// The simplifier's rules for i32 and i64 arithmetic, which C does not let overflow: sums in
// canonical linear form, floor division and modulo by constants, min/max and comparisons
// decided by the bounds of a difference.
#include <numeric>

#include "const_fold.h"
#include "linear.h"
#include "simplifier.h"

namespace uma::tir {
namespace {

bool fits(DataType type, std::int64_t v) {
  return type.dtype != DType::i32 || (v >= INT32_MIN && v <= INT32_MAX);
}

Expr or_undefined(const std::optional<Expr>& e) { return e ? *e : Expr(); }

// Whether `a op b` holds for every a - b in `d`, if the bounds decide it.
std::optional<bool> decide(ExprKind kind, Interval d) {
  auto negated = [](std::optional<bool> v) { return v ? std::optional<bool>(!*v) : v; };
  switch (kind) {
    case ExprKind::LT:
      if (d.max < 0) return true;
      if (d.min >= 0) return false;
      return std::nullopt;
    case ExprKind::LE:
      if (d.max <= 0) return true;
      if (d.min > 0) return false;
      return std::nullopt;
    case ExprKind::EQ:
      if (d.min == 0 && d.max == 0) return true;
      if (d.min > 0 || d.max < 0) return false;
      return std::nullopt;
    case ExprKind::GT:
      return negated(decide(ExprKind::LE, d));
    case ExprKind::GE:
      return negated(decide(ExprKind::LT, d));
    case ExprKind::NE:
      return negated(decide(ExprKind::EQ, d));
    default:
      return std::nullopt;
  }
}

// The comparison with its operands swapped: a < b is b > a.
ExprKind mirror(ExprKind kind) {
  switch (kind) {
    case ExprKind::LT:
      return ExprKind::GT;
    case ExprKind::LE:
      return ExprKind::GE;
    case ExprKind::GT:
      return ExprKind::LT;
    case ExprKind::GE:
      return ExprKind::LE;
    default:
      return kind;
  }
}

// The greatest common divisor of `c` and the form's coefficients and constant.
std::int64_t common_divisor(const LinearForm& form, std::int64_t c) {
  std::int64_t g = c;
  auto absolute = [](std::int64_t v) { return v < 0 ? -v : v; };  // never INT64_MIN here
  for (const LinearTerm& t : form.terms) g = std::gcd(g, absolute(t.coeff));
  return std::gcd(g, absolute(form.constant));
}

bool has_int64_min(const LinearForm& form) {
  if (form.constant == INT64_MIN) return true;
  for (const LinearTerm& t : form.terms)
    if (t.coeff == INT64_MIN) return true;
  return false;
}

// form += coeff * e, for a simplified `e` that may itself be a sum.
bool add_expr(LinearForm& form, const Expr& e, std::int64_t coeff) {
  auto linear = to_linear(e);
  return linear && form.add(*linear, coeff);
}

LinearForm divided(const LinearForm& form, std::int64_t g) {
  LinearForm out{form.type, form.terms, form.constant / g};
  for (LinearTerm& t : out.terms) t.coeff /= g;
  return out;
}

}  // namespace

Expr Simplifier::rewrite_index(ExprKind kind, const Expr& a, const Expr& b) {
  switch (kind) {
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
      return rewrite_linear(kind, a, b);
    case ExprKind::Div:
      return rewrite_div(a, b);
    case ExprKind::Mod:
      return rewrite_mod(a, b);
    case ExprKind::Min:
    case ExprKind::Max:
      return rewrite_min_max(kind, a, b);
    default:
      return rewrite_compare(kind, a, b);
  }
}

Expr Simplifier::rewrite_linear(ExprKind kind, const Expr& a, const Expr& b) {
  auto la = to_linear(a), lb = to_linear(b);
  if (!la || !lb) return Expr();
  LinearForm sum{a.type()};
  bool ok;
  if (kind == ExprKind::Mul) {
    if (lb->is_constant()) {
      ok = sum.add(*la, lb->constant);
    } else if (la->is_constant()) {
      ok = sum.add(*lb, la->constant);
    } else if (la->terms.size() == 1 && la->constant == 0 && lb->terms.size() == 1 &&
               lb->constant == 0) {
      // A product of two non-constant factors is a term of its own, factors ordered, with
      // their coefficients outside: (x * 2) * (y * 3) is x * y * 6.
      const LinearTerm &x = la->terms[0], &y = lb->terms[0];
      if (x.coeff == 1 && y.coeff == 1)
        return compare_structure(b, a) < 0 ? MulNode::make(b, a) : Expr();
      std::int64_t coeff;
      if (__builtin_mul_overflow(x.coeff, y.coeff, &coeff)) return Expr();
      ok = sum.add(compare_structure(y.term, x.term) < 0 ? MulNode::make(y.term, x.term)
                                                         : MulNode::make(x.term, y.term),
                   coeff);
    } else {
      return compare_structure(b, a) < 0 ? MulNode::make(b, a) : Expr();
    }
  } else {
    ok = sum.add(*la, 1) && sum.add(*lb, kind == ExprKind::Sub ? -1 : 1);
  }
  if (!ok) return Expr();
  merge_div_mod(sum);
  return or_undefined(from_linear(sum));
}

// A whole tree of +, - and products by constants in one linear form, its other nodes
// simplified on the way: a sum of n terms costs one pass, not one per node.
Expr Simplifier::simplify_sum(const Expr& self) {
  LinearForm form{self.type()};
  if (!collect_sum(self, 1, form)) return Expr();
  merge_div_mod(form);
  auto r = from_linear(form);
  if (!r) return Expr();
  return equal(*r, self) ? self : *r;
}

bool Simplifier::collect_sum(const Expr& e, std::int64_t scale, LinearForm& form) {
  if (auto v = as_const_int(e)) {
    LinearForm constant{form.type, {}, *v};
    return form.add(constant, scale);
  }
  if (const auto* add = e.as<AddNode>())
    return collect_sum(add->a, scale, form) && collect_sum(add->b, scale, form);
  std::int64_t scaled;
  if (const auto* sub = e.as<SubNode>())
    return !__builtin_mul_overflow(scale, -1, &scaled) && collect_sum(sub->a, scale, form) &&
           collect_sum(sub->b, scaled, form);
  if (const auto* mul = e.as<MulNode>()) {
    if (auto c = as_const_int(mul->b))
      return !__builtin_mul_overflow(scale, *c, &scaled) && collect_sum(mul->a, scaled, form);
    if (auto c = as_const_int(mul->a))
      return !__builtin_mul_overflow(scale, *c, &scaled) && collect_sum(mul->b, scaled, form);
    return add_expr(form, binary(ExprKind::Mul, mutate(mul->a), mutate(mul->b)), scale);
  }
  return add_expr(form, mutate(e), scale);
}

// x / c * c + x % c is x, and x - x / c * c is x % c (floor division, c > 0): what
// splitting a loop and fusing it back leaves.
void Simplifier::merge_div_mod(LinearForm& form) {
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < form.terms.size() && !changed; ++i) {
      const auto* div = form.terms[i].term.as<DivNode>();
      auto c = div != nullptr ? as_const_int(div->b) : std::nullopt;
      if (!c || *c <= 0 || form.terms[i].coeff % *c != 0) continue;
      std::int64_t k = form.terms[i].coeff / *c;  // the term is k * c * (x / c)
      Expr x = div->a, divisor = div->b;
      auto lx = to_linear(x);
      if (!lx) continue;
      LinearForm merged = form;
      merged.terms.erase(merged.terms.begin() + static_cast<std::ptrdiff_t>(i));
      // k*c*(x/c) + k*(x%c) is k*x.
      Expr mod = ModNode::make(x, divisor);
      auto it = std::find_if(merged.terms.begin(), merged.terms.end(), [&](const LinearTerm& t) {
        return t.coeff == k && equal(t.term, mod);
      });
      if (it != merged.terms.end()) {
        merged.terms.erase(it);
        if (merged.add(*lx, k)) {
          form = std::move(merged);
          changed = true;
        }
        continue;
      }
      // -k*x + k*c*(x/c) is -k*(x%c), when every term of x cancels.
      if (!merged.add(*lx, k)) continue;
      bool cancelled = std::none_of(lx->terms.begin(), lx->terms.end(), [&](const LinearTerm& t) {
        return std::any_of(merged.terms.begin(), merged.terms.end(),
                           [&](const LinearTerm& m) { return equal(m.term, t.term); });
      });
      if (cancelled && add_expr(merged, binary(ExprKind::Mod, x, divisor), -k)) {
        form = std::move(merged);
        changed = true;
      }
    }
  }
}

Expr Simplifier::rewrite_div(const Expr& a, const Expr& b) {
  DataType type = a.type();
  auto c = as_const_int(b);
  if (!c) {
    Interval ia = bounds(a), ib = bounds(b);
    if (ib.min > 0 && ia.min >= 0 && ia.max < ib.min) return make_const(type, 0);
    return Expr();
  }
  if (*c == 1) return a;
  if (*c <= 0) return Expr();  // by 0 it is undefined; negative divisors are left alone
  // (x / c1) / c is x / (c1 * c).
  if (const auto* inner = a.as<DivNode>()) {
    auto c1 = as_const_int(inner->b);
    std::int64_t product;
    if (c1 && *c1 > 0 && !__builtin_mul_overflow(*c1, *c, &product) && fits(type, product))
      return binary(ExprKind::Div, inner->a, make_const(type, product));
  }
  auto form = to_linear(a);
  if (!form || has_int64_min(*form)) return Expr();
  // floor((c*q + r) / c) is q + floor(r / c): the multiples of c leave the division.
  LinearForm quotient{type}, rest{type};
  for (const LinearTerm& t : form->terms) {
    if (t.coeff % *c == 0)
      quotient.add(t.term, t.coeff / *c);
    else
      rest.add(t.term, t.coeff);
  }
  quotient.constant = floor_div(form->constant, *c);
  rest.constant = floor_mod(form->constant, *c);
  Interval ir = bounds_of(rest, bounds_);
  if (ir.has_lower() && ir.has_upper() && floor_div(ir.min, *c) == floor_div(ir.max, *c)) {
    quotient.constant += floor_div(ir.min, *c);
    return or_undefined(from_linear(quotient));
  }
  if (quotient.is_constant()) {
    // Nothing but a constant would leave: keep (i + 5) / 4 whole, divided by common factors.
    std::int64_t g = common_divisor(*form, *c);
    if (g == 1) return Expr();
    auto numerator = from_linear(divided(*form, g));
    if (!numerator) return Expr();
    return binary(ExprKind::Div, *numerator, make_const(type, *c / g));
  }
  std::int64_t g = common_divisor(rest, *c);
  auto numerator = from_linear(divided(rest, g));
  if (!numerator) return Expr();
  Expr remainder =
      *c == g ? *numerator : binary(ExprKind::Div, *numerator, make_const(type, *c / g));
  if (!add_expr(quotient, remainder, 1)) return Expr();
  return or_undefined(from_linear(quotient));
}

Expr Simplifier::rewrite_mod(const Expr& a, const Expr& b) {
  DataType type = a.type();
  auto c = as_const_int(b);
  if (!c) {
    Interval ia = bounds(a), ib = bounds(b);
    if (ib.min > 0 && ia.min >= 0 && ia.max < ib.min) return a;
    return Expr();
  }
  if (*c == 1 || *c == -1) return make_const(type, 0);
  if (*c <= 0) return Expr();
  // (x % c1) % c is x % c when c divides c1.
  if (const auto* inner = a.as<ModNode>()) {
    auto c1 = as_const_int(inner->b);
    if (c1 && *c1 > 0 && *c1 % *c == 0) return binary(ExprKind::Mod, inner->a, b);
  }
  auto form = to_linear(a);
  if (!form || has_int64_min(*form)) return Expr();
  // Multiples of c leave the modulo; a coefficient or constant shrinks to its remainder
  // when that is smaller: (i * 5 + j) % 4 is (i + j) % 4, but (i - 1) % 4 stays.
  auto reduce = [&](std::int64_t v) {
    std::int64_t r = floor_mod(v, *c);
    return r < (v < 0 ? -v : v) ? r : v;
  };
  LinearForm rest{type};
  for (const LinearTerm& t : form->terms) rest.add(t.term, reduce(t.coeff));
  rest.constant = reduce(form->constant);
  if (rest.is_constant()) return make_const(type, floor_mod(rest.constant, *c));
  Interval ir = bounds_of(rest, bounds_);
  if (ir.has_lower() && ir.has_upper() && floor_div(ir.min, *c) == floor_div(ir.max, *c)) {
    rest.constant -= floor_div(ir.min, *c) * *c;
    return or_undefined(from_linear(rest));
  }
  auto numerator = from_linear(rest);
  if (!numerator || equal(*numerator, a)) return Expr();
  return ModNode::make(*numerator, b);
}

Expr Simplifier::rewrite_min_max(ExprKind kind, const Expr& a, const Expr& b) {
  bool is_min = kind == ExprKind::Min;
  if (as_const_int(a) && !as_const_int(b)) return binary(kind, b, a);  // constant last
  auto la = to_linear(a), lb = to_linear(b);
  if (la && lb && la->add(*lb, -1)) {
    Interval d = bounds_of(*la, bounds_);
    if (d.max <= 0) return is_min ? a : b;
    if (d.min >= 0) return is_min ? b : a;
  }
  // min(min(x, c1), c2) is min(x, min(c1, c2)).
  if (as_const_int(b)) {
    const Expr* x = nullptr;
    const Expr* c1 = nullptr;
    if (const auto* inner = a.as<MinNode>(); inner && is_min) x = &inner->a, c1 = &inner->b;
    if (const auto* inner = a.as<MaxNode>(); inner && !is_min) x = &inner->a, c1 = &inner->b;
    if (x != nullptr && as_const_int(*c1)) return binary(kind, *x, binary(kind, *c1, b));
  }
  return Expr();
}

Expr Simplifier::rewrite_compare(ExprKind kind, const Expr& a, const Expr& b) {
  auto d = to_linear(a), lb = to_linear(b);
  if (!d || !lb || !d->add(*lb, -1) || has_int64_min(*d)) return Expr();
  if (auto truth = decide(kind, bounds_of(*d, bounds_)))
    return make_const(DataType::scalar(DType::boolean), *truth);
  // a - b = p - n + k compares with 0 as p op n - k: terms left, constant right.
  DataType type = a.type();
  LinearForm left{type}, right{type};
  for (const LinearTerm& t : d->terms) {
    if (t.coeff > 0)
      left.add(t.term, t.coeff);
    else
      right.add(t.term, -t.coeff);
  }
  if (left.is_constant()) {
    // k op n is n mirror(op) k.
    std::swap(left, right);
    right.constant = d->constant;
    kind = mirror(kind);
  } else {
    right.constant = -d->constant;
  }
  auto l = from_linear(left), r = from_linear(right);
  if (!l || !r) return Expr();
  return make_binary(kind, *l, *r);
}

}  // namespace uma::tir
