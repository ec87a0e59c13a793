// vectorize: loops marked vectorized become vector code.
//
// Assumes: the iterations of a vectorized loop are independent (the contract of the
// vectorize schedule primitive): no iteration reads what another writes.
// Guarantees: no loop is left marked vectorized. A vectorized loop of constant extent L
// (2 <= L <= max_lanes) whose body is stores, lets and sequences of them is replaced by its
// body computed once on L lanes: the loop variable becomes ramp(min, 1, L), an expression
// that uses it becomes an L-lane vector (sums and products with invariants stay ramps, other
// operands are broadcast), and every store writes L elements at once. Any other loop marked
// vectorized becomes serial, and the reason joins the function's attribute
// `vectorize_fallback` ("loop 'k': its body holds the loop 'j'"), for a user or a test to
// read: a body with loops, `if`s, allocations, blocks, extern calls or vectors of its own; a
// store to an index that does not use the loop variable (a reduction); an address taken at
// such an index; an extent that is not a constant or exceeds max_lanes. A loop of extent 1
// becomes its body, one of no iterations nothing. Inner loops are vectorized before outer
// ones.
#include <algorithm>
#include <unordered_map>

#include "../const_fold.h"
#include "uma/tir/functor.h"
#include "uma/tir/passes.h"
#include "uma/tir/printer.h"

namespace uma::tir {
namespace {

std::string_view var_name(const Expr& var) { return var.as<VarNode>()->name; }

// The body of one vectorized loop, on `lanes` lanes; an Error says why it cannot be.
class LoopVectorizer {
 public:
  LoopVectorizer(const ForNode& loop, std::uint16_t lanes) : loop_(loop), lanes_(lanes) {
    vars_[loop.var.as<VarNode>()] = RampNode::make(loop.min, Expr(1), lanes);
  }

  Expected<Stmt> stmt(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::Store: {
        const auto& op = *s.as<StoreNode>();
        UMA_TRY_ASSIGN(std::vector<Expr> indices, exprs(op.indices));
        if (!is_vector(indices))
          return make_error("it stores to %{} at an index that does not use '{}'", op.buffer->name,
                            var_name(loop_.var));
        UMA_TRY_ASSIGN(Expr value, expr(op.value));
        return StoreNode::make(op.buffer, widen(value), widen(indices));
      }
      case StmtKind::Seq: {
        std::vector<Stmt> stmts;
        for (const Stmt& child : s.as<SeqNode>()->stmts) {
          UMA_TRY_ASSIGN(Stmt vector, stmt(child));
          stmts.push_back(std::move(vector));
        }
        return SeqNode::make(std::move(stmts));
      }
      case StmtKind::LetStmt: {
        const auto& op = *s.as<LetStmtNode>();
        UMA_TRY_ASSIGN(Expr value, expr(op.value));
        Var var = bind(op.var, value);
        UMA_TRY_ASSIGN(Stmt body, stmt(op.body));
        return LetStmtNode::make(var, value, body);
      }
      case StmtKind::Evaluate: {
        // A constant evaluated is the IR's no-op; anything else is there for an effect.
        const Expr& value = s.as<EvaluateNode>()->value;
        if (as_const_int(value)) return s;
        if (const auto* call = value.as<CallNode>())
          return make_error("it calls '{}' for its effect", call->name);
        return make_error("it evaluates {} for its effect", to_string(value));
      }
      case StmtKind::For:
        return make_error("its body holds the loop '{}'", var_name(s.as<ForNode>()->var));
      case StmtKind::IfThenElse:
        return make_error("its body holds an if");
      case StmtKind::Allocate:
        return make_error("its body allocates %{}", s.as<AllocateNode>()->buffer->name);
      case StmtKind::Block:
        return make_error("its body holds the block '{}'", s.as<BlockNode>()->name);
    }
    return s;
  }

 private:
  // `e` on the lanes: a vector when it depends on the loop variable, else scalar.
  Expected<Expr> expr(const Expr& e) {
    if (e.type().lanes > 1) return make_error("its body holds vectors already");
    switch (e.kind()) {
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
        return e;
      case ExprKind::Var: {
        auto it = vars_.find(e.as<VarNode>());
        return it == vars_.end() ? e : it->second;
      }
      case ExprKind::Cast: {
        const auto& op = *e.as<CastNode>();
        UMA_TRY_ASSIGN(Expr value, expr(op.value));
        if (value.same_as(op.value)) return e;
        return CastNode::make(op.type.with_lanes(value.type().lanes), value);
      }
#define UMA_VECTORIZE_BINARY(k) \
  case ExprKind::k:             \
    return binary<k##Node>(e);
        UMA_VECTORIZE_BINARY(Add)
        UMA_VECTORIZE_BINARY(Sub)
        UMA_VECTORIZE_BINARY(Mul)
        UMA_VECTORIZE_BINARY(Div)
        UMA_VECTORIZE_BINARY(Mod)
        UMA_VECTORIZE_BINARY(Min)
        UMA_VECTORIZE_BINARY(Max)
        UMA_VECTORIZE_BINARY(EQ)
        UMA_VECTORIZE_BINARY(NE)
        UMA_VECTORIZE_BINARY(LT)
        UMA_VECTORIZE_BINARY(LE)
        UMA_VECTORIZE_BINARY(GT)
        UMA_VECTORIZE_BINARY(GE)
        UMA_VECTORIZE_BINARY(And)
        UMA_VECTORIZE_BINARY(Or)
#undef UMA_VECTORIZE_BINARY
      case ExprKind::Not: {
        const auto& op = *e.as<NotNode>();
        UMA_TRY_ASSIGN(Expr a, expr(op.a));
        return a.same_as(op.a) ? e : NotNode::make(a);
      }
      case ExprKind::Select: {
        const auto& op = *e.as<SelectNode>();
        UMA_TRY_ASSIGN(std::vector<Expr> parts,
                       exprs({op.condition, op.true_value, op.false_value}));
        if (!is_vector(parts))
          return same(parts, {op.condition, op.true_value, op.false_value})
                     ? e
                     : SelectNode::make(parts[0], parts[1], parts[2]);
        return SelectNode::make(parts[0], widen(parts[1]), widen(parts[2]));
      }
      case ExprKind::Load: {
        const auto& op = *e.as<LoadNode>();
        UMA_TRY_ASSIGN(std::vector<Expr> indices, exprs(op.indices));
        if (!is_vector(indices) && same(indices, op.indices)) return e;
        return LoadNode::make(op.buffer, is_vector(indices) ? widen(indices) : indices);
      }
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
        return make_error("its body holds vectors already");
      case ExprKind::Call: {
        const auto& op = *e.as<CallNode>();
        if (op.call_kind == CallNode::CallKind::kExtern)
          return make_error("it calls the extern function '{}'", op.name);
        UMA_TRY_ASSIGN(std::vector<Expr> args, exprs(op.args));
        if (!is_vector(args))
          return same(args, op.args)
                     ? e
                     : CallNode::make(op.type, op.name, std::move(args), op.call_kind);
        return CallNode::make(op.type.with_lanes(lanes_), op.name, widen(args), op.call_kind);
      }
      case ExprKind::Let: {
        const auto& op = *e.as<LetNode>();
        UMA_TRY_ASSIGN(Expr value, expr(op.value));
        Var var = bind(op.var, value);
        UMA_TRY_ASSIGN(Expr body, expr(op.body));
        if (var.same_as(op.var) && value.same_as(op.value) && body.same_as(op.body)) return e;
        return LetNode::make(var, value, body);
      }
      case ExprKind::Address: {
        const auto& op = *e.as<AddressNode>();
        UMA_TRY_ASSIGN(std::vector<Expr> indices, exprs(op.indices));
        if (is_vector(indices))
          return make_error("it takes the address of %{} at an index that uses '{}'",
                            op.buffer->name, var_name(loop_.var));
        return same(indices, op.indices) ? e : AddressNode::make(op.buffer, indices);
      }
    }
    return e;
  }

  Expected<std::vector<Expr>> exprs(const std::vector<Expr>& in) {
    std::vector<Expr> out;
    for (const Expr& e : in) {
      UMA_TRY_ASSIGN(Expr vector, expr(e));
      out.push_back(std::move(vector));
    }
    return out;
  }

  // a op b, keeping ramps where the result is one: ramp + x, ramp - x, ramp * x for an
  // invariant x, and ramp +- ramp.
  template <typename Node>
  Expected<Expr> binary(const Expr& e) {
    const auto& op = *e.as<Node>();
    UMA_TRY_ASSIGN(Expr a, expr(op.a));
    UMA_TRY_ASSIGN(Expr b, expr(op.b));
    if (a.same_as(op.a) && b.same_as(op.b)) return e;
    if (a.type().lanes == 1 && b.type().lanes == 1) return Node::make(a, b);
    constexpr ExprKind kind = Node::kKind;
    const auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
    bool sa = a.type().lanes == 1, sb = b.type().lanes == 1;
    if constexpr (kind == ExprKind::Add || kind == ExprKind::Sub) {
      if (ra && rb) return ramp(fold<Node>(ra->base, rb->base), fold<Node>(ra->stride, rb->stride));
      if (ra && sb) return ramp(fold<Node>(ra->base, b), ra->stride);
      if (rb && sa && kind == ExprKind::Add) return ramp(fold<Node>(a, rb->base), rb->stride);
    }
    if constexpr (kind == ExprKind::Mul) {
      if (ra && sb) return ramp(fold<Node>(ra->base, b), fold<Node>(ra->stride, b));
      if (rb && sa) return ramp(fold<Node>(a, rb->base), fold<Node>(a, rb->stride));
    }
    return Node::make(widen(a), widen(b));
  }

  // a op b on scalars, folding immediates and adding 0 or multiplying by 1, so that ramps
  // read as ramp(i * 8, 1, 8), not ramp(0 + i * 8, 1 * 1, 8).
  template <typename Node>
  static Expr fold(const Expr& a, const Expr& b) {
    Expr made = Node::make(a, b);
    const auto& op = *made.as<Node>();
    if (auto folded = fold_binary(Node::kKind, op.a, op.b)) return *folded;
    auto ca = as_const_int(op.a), cb = as_const_int(op.b);
    constexpr ExprKind kind = Node::kKind;
    if ((kind == ExprKind::Add && ca == 0) || (kind == ExprKind::Mul && ca == 1)) return op.b;
    if ((kind != ExprKind::Mul && cb == 0) || (kind == ExprKind::Mul && cb == 1)) return op.a;
    return made;
  }

  Expr ramp(const Expr& base, const Expr& stride) const {
    return RampNode::make(base, stride, lanes_);
  }

  // A new vector variable for a let whose value became a vector, else the same.
  Var bind(const Var& var, const Expr& value) {
    if (value.type().lanes == 1) return var;
    Var vector = VarNode::make(var.as<VarNode>()->name, value.type());
    vars_[var.as<VarNode>()] = vector;
    return vector;
  }

  static bool is_vector(const std::vector<Expr>& v) {
    return std::any_of(v.begin(), v.end(), [](const Expr& e) { return e.type().lanes > 1; });
  }
  static bool same(const std::vector<Expr>& now, const std::vector<Expr>& before) {
    for (std::size_t k = 0; k < now.size(); ++k)
      if (!now[k].same_as(before[k])) return false;
    return true;
  }
  Expr widen(const Expr& e) const {
    return e.type().lanes == 1 ? BroadcastNode::make(e, lanes_) : e;
  }
  std::vector<Expr> widen(std::vector<Expr> v) const {
    for (Expr& e : v) e = widen(e);
    return v;
  }

  const ForNode& loop_;
  std::uint16_t lanes_;
  // The loop variable and the variables of lets that became vectors -> their vector.
  std::unordered_map<const VarNode*, Expr> vars_;
};

class Vectorize final : public Mutator {
 public:
  explicit Vectorize(const VectorizeOptions& options) : options_(options) {}
  std::vector<std::string> fallbacks;
  using Mutator::mutate;

 protected:
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto& loop = *visited.as<ForNode>();
    if (loop.for_kind != ForKind::kVectorized) return visited;
    auto extent = as_const_int(loop.extent);
    if (extent && *extent <= 0) return SeqNode::make({});
    if (extent == 1) return substitute(loop.body, {{loop.var.as<VarNode>(), loop.min}});
    Expected<Stmt> vector = make_error("its extent {} is not a constant", to_string(loop.extent));
    if (extent && *extent > options_.max_lanes)
      vector = make_error("its extent {} is more than the {} lanes vectorize makes", *extent,
                          options_.max_lanes);
    else if (extent)
      vector = LoopVectorizer(loop, static_cast<std::uint16_t>(*extent)).stmt(loop.body);
    if (vector) return *vector;
    fallbacks.push_back(fmt::format("loop '{}': {}", var_name(loop.var), vector.error().message()));
    return ForNode::make(loop.var, loop.min, loop.extent, ForKind::kSerial, loop.body);
  }

 private:
  const VectorizeOptions& options_;
};

}  // namespace

FuncPass vectorize_pass(VectorizeOptions options) {
  // Lanes are 16-bit in the IR.
  options.max_lanes = std::clamp<std::int64_t>(options.max_lanes, 1, 65535);
  return {"vectorize", [options](const PrimFunc& func) -> Expected<PrimFunc> {
            Vectorize vectorize(options);
            Stmt body = vectorize.mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            if (!vectorize.fallbacks.empty()) {
              std::vector<std::string> reasons;
              if (const Attribute* old = func.attrs.find("vectorize_fallback"))
                if (const auto* list = std::get_if<std::vector<std::string>>(old)) reasons = *list;
              reasons.insert(reasons.end(), vectorize.fallbacks.begin(), vectorize.fallbacks.end());
              out.attrs.set("vectorize_fallback", std::move(reasons));
            }
            return out;
          }};
}

}  // namespace uma::tir
