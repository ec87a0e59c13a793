// Linear forms of index expressions and their canonical order.
#include "linear.h"

#include <algorithm>

namespace uma::tir {
namespace {

bool fits(DataType type, std::int64_t v) {
  if (type.dtype == DType::i32) return v >= INT32_MIN && v <= INT32_MAX;
  return true;
}

// The operands of a binary node, or nulls.
std::pair<const Expr*, const Expr*> operands(const Expr& e) {
  switch (e.kind()) {
#define UMA_TIR_OPERANDS(k)             \
  case ExprKind::k: {                   \
    const auto* node = e.as<k##Node>(); \
    return {&node->a, &node->b};        \
  }
    UMA_FOR_EACH_TIR_BINARY(UMA_TIR_OPERANDS)
#undef UMA_TIR_OPERANDS
    default:
      return {nullptr, nullptr};
  }
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_all(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (int c = three_way(a.size(), b.size())) return c;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (int c = compare_structure(a[i], b[i])) return c;
  return 0;
}

int compare_types(DataType a, DataType b) {
  if (int c = three_way(a.handle, b.handle)) return c;
  if (int c = three_way(a.dtype, b.dtype)) return c;
  return three_way(a.lanes, b.lanes);
}

std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

bool build(const Expr& e, std::int64_t scale, LinearForm& form) {
  if (auto v = as_const_int(e)) {
    auto term = checked_mul(*v, scale);
    auto sum = term ? checked_add(form.constant, *term) : std::nullopt;
    if (!sum) return false;
    form.constant = *sum;
    return true;
  }
  if (const auto* add = e.as<AddNode>())
    return build(add->a, scale, form) && build(add->b, scale, form);
  if (const auto* sub = e.as<SubNode>()) {
    auto negated = checked_mul(scale, -1);
    return negated && build(sub->a, scale, form) && build(sub->b, *negated, form);
  }
  if (const auto* mul = e.as<MulNode>()) {
    // A product by a constant scales; any other product is a term.
    for (auto [factor, other] : {std::pair{&mul->b, &mul->a}, std::pair{&mul->a, &mul->b}}) {
      if (auto c = as_const_int(*factor)) {
        auto scaled = checked_mul(scale, *c);
        return scaled && build(*other, *scaled, form);
      }
    }
  }
  return form.add(e, scale);
}

}  // namespace

bool LinearForm::add(const Expr& term, std::int64_t coeff) {
  if (coeff == 0) return true;
  for (auto it = terms.begin(); it != terms.end(); ++it) {
    if (!equal(it->term, term)) continue;
    auto sum = checked_add(it->coeff, coeff);
    if (!sum) return false;
    if (*sum == 0)
      terms.erase(it);
    else
      it->coeff = *sum;
    return true;
  }
  terms.push_back({term, coeff});
  return true;
}

bool LinearForm::add(const LinearForm& other, std::int64_t scale) {
  auto constant_term = checked_mul(other.constant, scale);
  auto sum = constant_term ? checked_add(constant, *constant_term) : std::nullopt;
  if (!sum) return false;
  constant = *sum;
  for (const LinearTerm& t : other.terms) {
    auto coeff = checked_mul(t.coeff, scale);
    if (!coeff || !add(t.term, *coeff)) return false;
  }
  return true;
}

std::optional<LinearForm> to_linear(const Expr& e) {
  LinearForm form{e.type(), {}, 0};
  if (!build(e, 1, form)) return std::nullopt;
  return form;
}

std::optional<Expr> from_linear(const LinearForm& form) {
  DataType type = form.type;
  if (!fits(type, form.constant)) return std::nullopt;
  for (const LinearTerm& t : form.terms)
    if (!fits(type, t.coeff) || t.coeff == INT64_MIN) return std::nullopt;
  std::vector<LinearTerm> terms = form.terms;
  std::stable_sort(terms.begin(), terms.end(), [](const LinearTerm& x, const LinearTerm& y) {
    std::int64_t ax = x.coeff < 0 ? -x.coeff : x.coeff, ay = y.coeff < 0 ? -y.coeff : y.coeff;
    if (ax != ay) return ax > ay;
    return compare_structure(x.term, y.term) < 0;
  });
  auto scaled = [&](const Expr& term, std::int64_t coeff) {
    return coeff == 1 ? term : MulNode::make(term, IntImmNode::make(type, coeff));
  };
  auto constant = [&](std::int64_t v) { return IntImmNode::make(type, v); };

  Expr result;
  std::int64_t rest = form.constant;
  auto first_positive =
      std::find_if(terms.begin(), terms.end(), [](const LinearTerm& t) { return t.coeff > 0; });
  if (first_positive != terms.end()) {
    result = scaled(first_positive->term, first_positive->coeff);
    terms.erase(first_positive);
  } else if (!terms.empty() && rest > 0) {
    result = constant(rest);  // 5 - i rather than i * -1 + 5
    rest = 0;
  } else if (!terms.empty()) {
    result = scaled(terms.front().term, terms.front().coeff);
    terms.erase(terms.begin());
  } else {
    return constant(rest);
  }
  for (const LinearTerm& t : terms)
    result = t.coeff > 0 ? AddNode::make(result, scaled(t.term, t.coeff))
                         : SubNode::make(result, scaled(t.term, -t.coeff));
  if (rest > 0) result = AddNode::make(result, constant(rest));
  if (rest < 0)
    result = rest == INT64_MIN ? AddNode::make(result, constant(rest))
                               : SubNode::make(result, constant(-rest));
  return result;
}

Interval bounds_of(const LinearForm& form, const Bounds& known) {
  Interval sum = Interval::point(form.constant);
  for (const LinearTerm& t : form.terms) sum = sum + bounds_of(t.term, known) * t.coeff;
  return sum;
}

int compare_structure(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return 0;
  if (!a.defined() || !b.defined()) return three_way(a.defined(), b.defined());
  if (int c = three_way(a.kind(), b.kind())) return c;
  if (int c = compare_types(a.type(), b.type())) return c;
  if (auto [a1, a2] = operands(a); a1 != nullptr) {
    auto [b1, b2] = operands(b);
    if (int c = compare_structure(*a1, *b1)) return c;
    return compare_structure(*a2, *b2);
  }
  switch (a.kind()) {
    case ExprKind::IntImm:
      return three_way(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value);
    case ExprKind::FloatImm:
      return three_way(a.as<FloatImmNode>()->value, b.as<FloatImmNode>()->value);
    case ExprKind::Var:
      return three_way(a.as<VarNode>()->name, b.as<VarNode>()->name);
    case ExprKind::Cast:
      return compare_structure(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Not:
      return compare_structure(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return compare_all({x->condition, x->true_value, x->false_value},
                         {y->condition, y->true_value, y->false_value});
    }
    case ExprKind::Load: {
      const auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      if (int c = three_way(x->buffer->name, y->buffer->name)) return c;
      return compare_all(x->indices, y->indices);
    }
    case ExprKind::Address: {
      const auto *x = a.as<AddressNode>(), *y = b.as<AddressNode>();
      if (int c = three_way(x->buffer->name, y->buffer->name)) return c;
      return compare_all(x->indices, y->indices);
    }
    case ExprKind::Ramp: {
      const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
      return compare_all({x->base, x->stride}, {y->base, y->stride});
    }
    case ExprKind::Broadcast:
      return compare_structure(a.as<BroadcastNode>()->value, b.as<BroadcastNode>()->value);
    case ExprKind::Call: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      if (int c = three_way(x->name, y->name)) return c;
      return compare_all(x->args, y->args);
    }
    case ExprKind::Let: {
      const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
      return compare_all({x->var, x->value, x->body}, {y->var, y->value, y->body});
    }
    default:
      return 0;
  }
}

}  // namespace uma::tir
