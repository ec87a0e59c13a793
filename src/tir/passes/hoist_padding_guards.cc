// hoist-padding-guards: padding out of the hot loop. Lowering reads a padded input through
// a guard, select(in_bounds, x[...], 0), in the innermost statement of a reduction; most of
// the guard depends on outer loops only (a convolution's input row on the output row and
// the kernel row), yet it is tested at every tap. When every store in a loop's body adds to
// its own element a term that its guard zeroes,
//   acc[i] = acc[i] + select(g && c, x, 0) * y    (or fma(select(g && c, x, 0), y, acc[i]))
// the conjuncts g that no variable of the body decides are tested once per iteration:
//   for (rh) { if (g) { ...acc[i] = acc[i] + select(c, x, 0) * y... } }
// A tap it skips would have added 0 times a finite y; the reference interpreter skips
// padded taps too.
//
// Assumes: flattened buffers; the body's stores are the loop's only effects (no extern call).
// Guarantees: the same results; the conjuncts hoisted are gone from the selects below the
// new `if`. A vectorized loop's body is left alone (an `if` there would stop vectorize).
#include <unordered_set>

#include "uma/tir/functor.h"
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

bool is_zero(const Expr& e) {
  if (const auto* b = e.as<BroadcastNode>()) return is_zero(b->value);
  if (const auto* f = e.as<FloatImmNode>()) return f->value == 0.0;
  if (const auto* i = e.as<IntImmNode>()) return i->value == 0;
  return false;
}

void conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (const auto* a = e.as<AndNode>()) {
    conjuncts(a->a, out);
    conjuncts(a->b, out);
    return;
  }
  out.push_back(e);
}

// The guard of a term: the condition of a select with a zero false value that the term is,
// or that is a factor of it (through casts and broadcasts).
std::optional<Expr> guard_of(const Expr& term) {
  if (const auto* c = term.as<CastNode>()) return guard_of(c->value);
  if (const auto* b = term.as<BroadcastNode>()) return guard_of(b->value);
  if (const auto* s = term.as<SelectNode>())
    return is_zero(s->false_value) ? std::optional<Expr>(s->condition) : std::nullopt;
  if (const auto* m = term.as<MulNode>()) {
    if (std::optional<Expr> g = guard_of(m->a)) return g;
    return guard_of(m->b);
  }
  return std::nullopt;
}

// The guard of the term a store adds to its own element, if it is such a store.
std::optional<Expr> accumulated_guard(const StoreNode& store) {
  auto is_self = [&](const Expr& e) {
    const auto* load = e.as<LoadNode>();
    if (load == nullptr || load->buffer != store.buffer ||
        load->indices.size() != store.indices.size())
      return false;
    for (std::size_t d = 0; d < load->indices.size(); ++d)
      if (!equal(load->indices[d], store.indices[d])) return false;
    return true;
  };
  if (const auto* add = store.value.as<AddNode>()) {
    if (is_self(add->a)) return guard_of(add->b);
    if (is_self(add->b)) return guard_of(add->a);
  }
  if (const auto* call = store.value.as<CallNode>();
      call != nullptr && call->name == "fma" && call->args.size() == 3 && is_self(call->args[2])) {
    if (std::optional<Expr> g = guard_of(call->args[0])) return g;
    return guard_of(call->args[1]);
  }
  return std::nullopt;
}

// The conjuncts of the guards of every store in `body` that all of them share and that
// depend on no variable the body binds and on no buffer's contents; none when a store is
// not a guarded accumulation or the body calls an extern function.
std::vector<Expr> shared_guards(const Stmt& body) {
  std::vector<std::vector<Expr>> guards;
  std::unordered_set<const VarNode*> bound;
  bool other_effect = false;
  pre_order_visit(body, [&](const ExprNode* e, const StmtNode* s) {
    if (e != nullptr && e->kind == ExprKind::Call)
      other_effect |= static_cast<const CallNode*>(e)->call_kind == CallNode::CallKind::kExtern;
    if (e != nullptr && e->kind == ExprKind::Let)
      bound.insert(static_cast<const LetNode*>(e)->var.as<VarNode>());
    if (s == nullptr) return;
    if (s->kind == StmtKind::For) bound.insert(static_cast<const ForNode*>(s)->var.as<VarNode>());
    if (s->kind == StmtKind::LetStmt)
      bound.insert(static_cast<const LetStmtNode*>(s)->var.as<VarNode>());
    if (s->kind != StmtKind::Store) return;
    std::optional<Expr> guard = accumulated_guard(*static_cast<const StoreNode*>(s));
    if (!guard) {
      other_effect = true;
      return;
    }
    guards.emplace_back();
    conjuncts(*guard, guards.back());
  });
  if (other_effect || guards.empty()) return {};
  std::vector<Expr> shared;
  for (const Expr& candidate : guards.front()) {
    bool everywhere = true;
    for (const std::vector<Expr>& other : guards) {
      bool found = false;
      for (const Expr& e : other) found |= equal(e, candidate);
      everywhere &= found;
    }
    bool decided_outside = true;
    pre_order_visit(EvaluateNode::make(candidate), [&](const ExprNode* e, const StmtNode*) {
      if (e == nullptr) return;
      if (e->kind == ExprKind::Load) decided_outside = false;
      if (e->kind == ExprKind::Var && bound.count(static_cast<const VarNode*>(e)) != 0)
        decided_outside = false;
    });
    if (everywhere && decided_outside) shared.push_back(candidate);
  }
  return shared;
}

// Drops the known-true conjuncts from every select's condition.
class DropConjuncts final : public Mutator {
 public:
  explicit DropConjuncts(const std::vector<Expr>& known) : known_(known) {}
  using Mutator::mutate;

 protected:
  Expr mutate(const SelectNode& op, const Expr& self) override {
    std::vector<Expr> all, kept;
    conjuncts(op.condition, all);
    for (const Expr& c : all) {
      bool is_known = false;
      for (const Expr& k : known_) is_known |= equal(c, k);
      if (!is_known) kept.push_back(c);
    }
    if (kept.size() == all.size()) return Mutator::mutate(op, self);
    Expr t = mutate(op.true_value);
    if (kept.empty()) return t;
    Expr condition = kept.front();
    for (std::size_t i = 1; i < kept.size(); ++i) condition = condition && kept[i];
    return SelectNode::make(mutate(condition), t, mutate(op.false_value));
  }

 private:
  const std::vector<Expr>& known_;
};

class HoistGuards final : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    if (op.for_kind == ForKind::kVectorized) return self;
    std::vector<Expr> guards = shared_guards(op.body);
    if (guards.empty()) return Mutator::mutate(op, self);
    Expr condition = guards.front();
    for (std::size_t i = 1; i < guards.size(); ++i) condition = condition && guards[i];
    Stmt body = mutate(DropConjuncts(guards).mutate(op.body));
    return ForNode::make(op.var, op.min, op.extent, op.for_kind,
                         IfThenElseNode::make(condition, body));
  }
};

}  // namespace

FuncPass hoist_padding_guards_pass() {
  return {"hoist-padding-guards", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = HoistGuards().mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            return out;
          }};
}

}  // namespace uma::tir
