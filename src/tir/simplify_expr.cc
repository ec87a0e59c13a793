// The simplifier's expression rules for every type: dispatch, constant folding, exact
// identities, logical operators, vectors, casts, selects and lets.
#include <cmath>

#include "const_fold.h"
#include "simplifier.h"
#include "uma/tir/simplify.h"

namespace uma::tir {
namespace {

bool is_int_value(const Expr& e, std::int64_t v) {
  auto c = as_const_int(e);
  return c && *c == v;
}

// A float immediate equal to `v`, with `v`'s sign when it is a zero.
bool is_float_value(const Expr& e, double v) {
  const auto* imm = e.as<FloatImmNode>();
  return imm != nullptr && imm->value == v && std::signbit(imm->value) == std::signbit(v);
}

}  // namespace

Expr make_binary(ExprKind kind, const Expr& a, const Expr& b) {
  switch (kind) {
#define UMA_TIR_MAKE(k) \
  case ExprKind::k:     \
    return k##Node::make(a, b);
    UMA_FOR_EACH_TIR_BINARY(UMA_TIR_MAKE)
#undef UMA_TIR_MAKE
    default:
      UMA_CHECK(false, "{} is not a binary operation", expr_kind_name(kind));
  }
  return Expr();
}

Expr Simplifier::binary(ExprKind kind, const Expr& a, const Expr& b) {
  Expr r = rewrite(kind, a, b);
  return r.defined() ? r : make_binary(kind, a, b);
}

template <typename T>
Expr Simplifier::simplify_binary(const T& op, const Expr& self) {
  constexpr ExprKind kind = T::kKind;
  if constexpr (kind == ExprKind::Add || kind == ExprKind::Sub || kind == ExprKind::Mul) {
    if (is_index_type(op.type)) {
      if (Expr r = simplify_sum(self); r.defined()) return r;
    }
  }
  Expr a = mutate(op.a), b = mutate(op.b);
  bool same_operands = a.same_as(op.a) && b.same_as(op.b);
  Expr r = rewrite(T::kKind, a, b);
  if (!r.defined()) return same_operands ? self : T::make(a, b);
  // A rule may rebuild what it was given: keep the original handle then.
  return same_operands && equal(r, self) ? self : r;
}

#define UMA_TIR_SIMPLIFY_BINARY(k) \
  Expr Simplifier::mutate(const k##Node& op, const Expr& self) { return simplify_binary(op, self); }
UMA_FOR_EACH_TIR_BINARY(UMA_TIR_SIMPLIFY_BINARY)
#undef UMA_TIR_SIMPLIFY_BINARY

Expr Simplifier::rewrite(ExprKind kind, const Expr& a, const Expr& b) {
  if (auto folded = fold_binary(kind, a, b)) return *folded;
  if (a.type().lanes > 1) return rewrite_vector(kind, a, b);
  if (kind == ExprKind::And || kind == ExprKind::Or) return rewrite_logical(kind, a, b);
  if (is_index_type(a.type())) return rewrite_index(kind, a, b);
  return rewrite_identity(kind, a, b);
}

Expr Simplifier::rewrite_logical(ExprKind kind, const Expr& a, const Expr& b) {
  // x && true is x, x && false is false; x || false is x, x || true is true.
  bool absorbing = kind == ExprKind::Or;
  if (auto c = as_const_int(a)) return (*c != 0) == absorbing ? a : b;
  if (auto c = as_const_int(b)) return (*c != 0) == absorbing ? b : a;
  if (equal(a, b)) return a;
  return Expr();
}

// Identities that hold exactly for integers of any width, or for IEEE floats.
Expr Simplifier::rewrite_identity(ExprKind kind, const Expr& a, const Expr& b) {
  DataType type = a.type();
  if (type.handle) return Expr();
  if (is_float(type.dtype)) {
    // x * 0.0 is not 0.0 (NaN, inf, -0.0), and x + 0.0 is not x when x is -0.0.
    switch (kind) {
      case ExprKind::Mul:
        if (is_float_value(b, 1.0)) return a;
        if (is_float_value(a, 1.0)) return b;
        return Expr();
      case ExprKind::Div:
        return is_float_value(b, 1.0) ? a : Expr();
      case ExprKind::Sub:
        return is_float_value(b, 0.0) ? a : Expr();
      case ExprKind::Add:
        if (is_float_value(b, -0.0)) return a;
        if (is_float_value(a, -0.0)) return b;
        return Expr();
      default:
        return Expr();
    }
  }
  bool same = equal(a, b);
  switch (kind) {
    case ExprKind::Add:
      if (is_int_value(b, 0)) return a;
      if (is_int_value(a, 0)) return b;
      break;
    case ExprKind::Sub:
      if (is_int_value(b, 0)) return a;
      if (same) return make_const(type, 0);
      break;
    case ExprKind::Mul:
      if (is_int_value(b, 1)) return a;
      if (is_int_value(a, 1)) return b;
      if (is_int_value(a, 0)) return a;
      if (is_int_value(b, 0)) return b;
      break;
    case ExprKind::Div:
      if (is_int_value(b, 1)) return a;
      break;
    case ExprKind::Mod:
      if (is_int_value(b, 1)) return make_const(type, 0);
      break;
    case ExprKind::Min:
    case ExprKind::Max:
      if (same) return a;
      break;
    case ExprKind::EQ:
    case ExprKind::LE:
    case ExprKind::GE:
      if (same) return make_const(DataType::scalar(DType::boolean), 1);
      break;
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::GT:
      if (same) return make_const(DataType::scalar(DType::boolean), 0);
      break;
    default:
      break;
  }
  return Expr();
}

Expr Simplifier::ramp(const Expr& base, const Expr& stride, std::uint16_t lanes) {
  if (is_int_value(stride, 0)) return BroadcastNode::make(base, lanes);
  return RampNode::make(base, stride, lanes);
}

// Vectors: elementwise operations of broadcasts are broadcasts, and ramps stay ramps
// under addition and products by a broadcast.
Expr Simplifier::rewrite_vector(ExprKind kind, const Expr& a, const Expr& b) {
  std::uint16_t lanes = a.type().lanes;
  const auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  if (ba && bb) return BroadcastNode::make(binary(kind, ba->value, bb->value), lanes);
  const auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
  bool add = kind == ExprKind::Add || kind == ExprKind::Sub;
  Expr zero = make_const(a.type().element(), 0);
  if (add && ra && rb)
    return ramp(binary(kind, ra->base, rb->base), binary(kind, ra->stride, rb->stride), lanes);
  if (add && ra && bb) return ramp(binary(kind, ra->base, bb->value), ra->stride, lanes);
  if (add && ba && rb)
    return ramp(binary(kind, ba->value, rb->base), binary(kind, zero, rb->stride), lanes);
  if (kind == ExprKind::Mul && ra && bb)
    return ramp(binary(kind, ra->base, bb->value), binary(kind, ra->stride, bb->value), lanes);
  if (kind == ExprKind::Mul && ba && rb)
    return ramp(binary(kind, rb->base, ba->value), binary(kind, rb->stride, ba->value), lanes);
  return Expr();
}

Expr Simplifier::mutate(const CastNode& op, const Expr& self) {
  Expr value = mutate(op.value);
  if (value.type() == op.type) return value;
  if (auto folded = fold_cast(op.type, value)) return *folded;
  if (const auto* b = value.as<BroadcastNode>())
    return BroadcastNode::make(mutate(CastNode::make(op.type.element(), b->value)), b->lanes);
  return value.same_as(op.value) ? self : CastNode::make(op.type, value);
}

// The negation of a simplified condition, simplified.
Expr Simplifier::negate_condition(const Expr& c) {
  if (auto v = as_const_int(c)) return make_const(c.type(), *v == 0);
  if (const auto* n = c.as<NotNode>()) return n->a;
  if (const auto* b = c.as<BroadcastNode>())
    return BroadcastNode::make(negate_condition(b->value), b->lanes);
  // !(a < b) is a >= b for integers; for floats only == and != are each other's negation
  // (a comparison with NaN is false either way).
  auto flip = [&](const auto* node, ExprKind negated) -> Expr {
    if (node == nullptr) return Expr();
    if (is_float(node->a.type().dtype) && negated != ExprKind::EQ && negated != ExprKind::NE)
      return Expr();
    return binary(negated, node->a, node->b);
  };
  for (Expr r : {flip(c.as<EQNode>(), ExprKind::NE), flip(c.as<NENode>(), ExprKind::EQ),
                 flip(c.as<LTNode>(), ExprKind::GE), flip(c.as<LENode>(), ExprKind::GT),
                 flip(c.as<GTNode>(), ExprKind::LE), flip(c.as<GENode>(), ExprKind::LT)})
    if (r.defined()) return r;
  return NotNode::make(c);
}

Expr Simplifier::mutate(const NotNode& op, const Expr& self) {
  Expr a = mutate(op.a);
  Expr r = negate_condition(a);
  if (const auto* n = r.as<NotNode>(); n != nullptr && a.same_as(op.a) && n->a.same_as(a))
    return self;
  return r;
}

Expr Simplifier::mutate(const SelectNode& op, const Expr& self) {
  Expr c = mutate(op.condition);
  if (auto v = as_const_int(c)) return mutate(*v ? op.true_value : op.false_value);
  Expr t = mutate(op.true_value), f = mutate(op.false_value);
  if (equal(t, f)) return t;
  if (c.same_as(op.condition) && t.same_as(op.true_value) && f.same_as(op.false_value)) return self;
  return SelectNode::make(c, t, f);
}

Expr Simplifier::mutate(const RampNode& op, const Expr& self) {
  Expr base = mutate(op.base), stride = mutate(op.stride);
  if (base.same_as(op.base) && stride.same_as(op.stride) && !is_int_value(stride, 0)) return self;
  return ramp(base, stride, op.lanes);
}

Expr Simplifier::mutate(const BroadcastNode& op, const Expr& self) {
  Expr value = mutate(op.value);
  return value.same_as(op.value) ? self : BroadcastNode::make(value, op.lanes);
}

Expr Simplifier::mutate(const LetNode& op, const Expr& self) {
  Expr value = mutate(op.value);
  const auto* var = op.var.as<VarNode>();
  // Constants and variables are substituted: the let would only rename them.
  if (value.as<IntImmNode>() || value.as<FloatImmNode>() || value.as<VarNode>())
    return mutate(substitute(op.body, {{var, value}}));
  Bounds saved = bounds_;
  if (is_index_type(var->type)) bounds_[var] = bounds(value);
  Expr body = mutate(op.body);
  bounds_ = std::move(saved);
  if (!uses_var(body, var)) return body;
  if (value.same_as(op.value) && body.same_as(op.body)) return self;
  return LetNode::make(op.var, value, body);
}

Expr simplify(const Expr& e, const Bounds& known) { return Simplifier(known).mutate(e); }

}  // namespace uma::tir
