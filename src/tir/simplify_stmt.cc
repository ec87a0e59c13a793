// The simplifier's statement rules: loop variables' ranges and `if` conditions become
// bounds for the expressions below them; trivial loops, branches and lets go away.
#include "const_fold.h"
#include "simplifier.h"
#include "uma/tir/simplify.h"

namespace uma::tir {
namespace {

// Restores a variable's bounds when a scope ends.
class ScopedBounds {
 public:
  ScopedBounds(Bounds& bounds, const VarNode* var, Interval interval) : bounds_(bounds), var_(var) {
    auto it = bounds_.find(var);
    if (it != bounds_.end()) saved_ = it->second;
    bounds_[var] = interval;
  }
  ~ScopedBounds() {
    if (saved_)
      bounds_[var_] = *saved_;
    else
      bounds_.erase(var_);
  }
  ScopedBounds(const ScopedBounds&) = delete;
  ScopedBounds& operator=(const ScopedBounds&) = delete;

 private:
  Bounds& bounds_;
  const VarNode* var_;
  std::optional<Interval> saved_;
};

}  // namespace

bool uses_var(const Stmt& s, const VarNode* var) {
  bool found = false;
  pre_order_visit(s, [&](const ExprNode* node, const StmtNode*) { found |= node == var; });
  return found;
}

bool uses_var(const Expr& e, const VarNode* var) { return uses_var(EvaluateNode::make(e), var); }

Stmt no_op() { return EvaluateNode::make(Expr(0)); }

bool is_no_op(const Stmt& s) {
  const auto* e = s.as<EvaluateNode>();
  return e != nullptr && (e->value.as<IntImmNode>() || e->value.as<FloatImmNode>());
}

void Simplifier::refine(const Expr& c, bool truth) {
  if (const auto* n = c.as<NotNode>()) return refine(n->a, !truth);
  if (const auto* both = c.as<AndNode>(); both && truth) {
    refine(both->a, true);
    refine(both->b, true);
    return;
  }
  if (const auto* either = c.as<OrNode>(); either && !truth) {
    refine(either->a, false);
    refine(either->b, false);
    return;
  }
  // var op constant, the canonical form of a comparison with a constant.
  auto narrow = [&](const auto* cmp, ExprKind kind) {
    if (cmp == nullptr) return;
    const auto* var = cmp->a.template as<VarNode>();
    auto v = as_const_int(cmp->b);
    if (var == nullptr || !v || !is_index_type(var->type)) return;
    if (!truth) {
      static constexpr std::pair<ExprKind, ExprKind> kNegation[] = {
          {ExprKind::LT, ExprKind::GE}, {ExprKind::LE, ExprKind::GT}, {ExprKind::GT, ExprKind::LE},
          {ExprKind::GE, ExprKind::LT}, {ExprKind::EQ, ExprKind::NE}, {ExprKind::NE, ExprKind::EQ}};
      for (auto [from, to] : kNegation)
        if (from == kind) {
          kind = to;
          break;
        }
    }
    Interval known = Interval::everything();
    if (kind == ExprKind::LT && *v != Interval::kNegInf) known.max = *v - 1;
    if (kind == ExprKind::LE) known.max = *v;
    if (kind == ExprKind::GT && *v != Interval::kPosInf) known.min = *v + 1;
    if (kind == ExprKind::GE) known.min = *v;
    if (kind == ExprKind::EQ) known = Interval::point(*v);
    bounds_[var] = intersect(bounds(cmp->a), known);
  };
  narrow(c.as<LTNode>(), ExprKind::LT);
  narrow(c.as<LENode>(), ExprKind::LE);
  narrow(c.as<GTNode>(), ExprKind::GT);
  narrow(c.as<GENode>(), ExprKind::GE);
  narrow(c.as<EQNode>(), ExprKind::EQ);
  narrow(c.as<NENode>(), ExprKind::NE);
}

Stmt Simplifier::mutate(const LetStmtNode& op, const Stmt& self) {
  Expr value = mutate(op.value);
  const auto* var = op.var.as<VarNode>();
  if (value.as<IntImmNode>() || value.as<FloatImmNode>() || value.as<VarNode>())
    return mutate(substitute(op.body, {{var, value}}));
  Stmt body;
  if (is_index_type(var->type)) {
    ScopedBounds scope(bounds_, var, bounds(value));
    body = mutate(op.body);
  } else {
    body = mutate(op.body);
  }
  if (!uses_var(body, var)) return body;
  if (value.same_as(op.value) && body.same_as(op.body)) return self;
  return LetStmtNode::make(op.var, value, body);
}

Stmt Simplifier::mutate(const ForNode& op, const Stmt& self) {
  Expr min = mutate(op.min), extent = mutate(op.extent);
  auto n = as_const_int(extent);
  if (n && *n <= 0) return no_op();
  if (n && *n == 1) return mutate(substitute(op.body, {{op.var.as<VarNode>(), min}}));
  // The variable lies in [min, min + extent - 1] for the smallest min and largest extent.
  Interval lo = bounds(min), count = bounds(extent);
  Interval range{lo.min,
                 (Interval::point(lo.max) + Interval::point(count.max) - Interval::point(1)).max};
  if (!lo.has_upper() || !count.has_upper()) range.max = Interval::kPosInf;
  Stmt body;
  {
    ScopedBounds scope(bounds_, op.var.as<VarNode>(), range);
    body = mutate(op.body);
  }
  if (is_no_op(body)) return body;
  if (min.same_as(op.min) && extent.same_as(op.extent) && body.same_as(op.body)) return self;
  return ForNode::make(op.var, min, extent, op.for_kind, body);
}

Stmt Simplifier::mutate(const IfThenElseNode& op, const Stmt& self) {
  Expr condition = mutate(op.condition);
  if (auto v = as_const_int(condition)) {
    if (*v != 0) return mutate(op.then_case);
    return op.else_case.defined() ? mutate(op.else_case) : no_op();
  }
  Bounds saved = bounds_;
  refine(condition, true);
  Stmt then_case = mutate(op.then_case);
  bounds_ = saved;
  Stmt else_case;
  if (op.else_case.defined()) {
    refine(condition, false);
    else_case = mutate(op.else_case);
    bounds_ = std::move(saved);
    if (is_no_op(else_case)) else_case = Stmt();
  }
  if (condition.same_as(op.condition) && then_case.same_as(op.then_case) &&
      else_case.same_as(op.else_case))
    return self;
  return IfThenElseNode::make(condition, then_case, else_case);
}

Stmt Simplifier::mutate(const SeqNode& op, const Stmt& self) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const Stmt& s : op.stmts) {
    Stmt r = mutate(s);
    changed |= !r.same_as(s);
    if (is_no_op(r))
      changed = true;
    else
      stmts.push_back(std::move(r));
  }
  if (!changed) return self;
  return stmts.empty() ? no_op() : SeqNode::make(std::move(stmts));
}

Stmt Simplifier::mutate(const AllocateNode& op, const Stmt& self) {
  Stmt body = mutate(op.body);
  if (is_no_op(body)) return body;
  return body.same_as(op.body) ? self : AllocateNode::make(op.buffer, body);
}

Stmt simplify(const Stmt& s, const Bounds& known) { return Simplifier(known).mutate(s); }

}  // namespace uma::tir
