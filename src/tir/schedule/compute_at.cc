// compute_at: a producer block moves under a loop of its consumer and computes, at each
// iteration of that loop, only the region of its buffer that the iteration reads.
#include <algorithm>

#include "schedule_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tir {

using sched::Path;

namespace {

// The loops of a pointwise producer, by the dimension of the buffer each one indexes, and
// in nest order (outermost first); with the store at the bottom of the nest.
struct PointwiseNest {
  std::vector<const ForNode*> nest;
  std::vector<const ForNode*> by_dimension;
  Stmt store;
};

// `block` as one loop per dimension of `buffer` around one store to `buffer` at the loop
// variables (in any order), whose bounds use none of the nest's variables; else nullopt.
std::optional<PointwiseNest> pointwise_nest(const BlockNode& block, const Buffer& buffer) {
  PointwiseNest out;
  Stmt body = block.body;
  while (const auto* loop = body.as<ForNode>()) {
    out.nest.push_back(loop);
    body = loop->body;
  }
  const auto* store = body.as<StoreNode>();
  if (store == nullptr || store->buffer != buffer || store->indices.size() != out.nest.size() ||
      store->indices.size() != buffer->shape.size())
    return std::nullopt;
  std::unordered_set<const VarNode*> vars;
  for (const ForNode* loop : out.nest) vars.insert(loop->var.as<VarNode>());
  for (const ForNode* loop : out.nest)
    if (sched::uses_any(loop->min, vars) || sched::uses_any(loop->extent, vars))
      return std::nullopt;
  for (const Expr& index : store->indices) {
    auto it = std::find_if(out.nest.begin(), out.nest.end(),
                           [&](const ForNode* loop) { return loop->var.same_as(index); });
    if (it == out.nest.end() ||
        std::find(out.by_dimension.begin(), out.by_dimension.end(), *it) != out.by_dimension.end())
      return std::nullopt;
    out.by_dimension.push_back(*it);
  }
  for (const Buffer& read : sched::accessed_buffers(body, /*loads=*/true, /*stores=*/false))
    if (read == buffer) return std::nullopt;
  out.store = body;
  return out;
}

// Bounds of index expressions over every iteration of the loops inside a statement, as
// expressions of the variables bound outside it: each variable of an inner loop is replaced
// by its first or last value, where the expression is monotonic in it.
class RegionBounder {
 public:
  explicit RegionBounder(const Stmt& body) {
    pre_order_visit(body, [&](const ExprNode* e, const StmtNode* s) {
      if (s != nullptr && s->kind == StmtKind::For) {
        const auto* loop = static_cast<const ForNode*>(s);
        loops_.emplace(loop->var.as<VarNode>(), loop);
        inner_.insert(loop->var.as<VarNode>());
      }
      if (s != nullptr && s->kind == StmtKind::LetStmt)
        inner_.insert(static_cast<const LetStmtNode*>(s)->var.as<VarNode>());
      if (e != nullptr && e->kind == ExprKind::Let)
        inner_.insert(static_cast<const LetNode*>(e)->var.as<VarNode>());
    });
  }

  // The smallest (or largest) value of `e`, or nullopt when `e` is not monotonic in the
  // inner variables in a way this knows.
  std::optional<Expr> bound(const Expr& e, bool upper) const {
    if (!sched::uses_any(e, inner_)) return e;
    switch (e.kind()) {
      case ExprKind::Var: {
        auto it = loops_.find(e.as<VarNode>());
        if (it == loops_.end()) return std::nullopt;  // a let's variable
        const ForNode* loop = it->second;
        return upper ? bound(loop->min + loop->extent - 1, true) : bound(loop->min, false);
      }
      case ExprKind::Add:
        return combine(e.as<AddNode>()->a, upper, e.as<AddNode>()->b, upper,
                       [](Expr a, Expr b) { return a + b; });
      case ExprKind::Sub:
        return combine(e.as<SubNode>()->a, upper, e.as<SubNode>()->b, !upper,
                       [](Expr a, Expr b) { return a - b; });
      case ExprKind::Mul: {
        const auto* op = e.as<MulNode>();
        auto c = as_const_int(op->b);
        Expr other = op->a;
        if (!c) {
          c = as_const_int(op->a);
          other = op->b;
        }
        if (!c) return std::nullopt;
        auto b = bound(other, *c >= 0 ? upper : !upper);
        if (!b) return std::nullopt;
        return *b * sched::constant_like(other, *c);
      }
      case ExprKind::Div: {
        const auto* op = e.as<DivNode>();
        auto c = as_const_int(op->b);
        if (!c || *c == 0) return std::nullopt;
        auto a = bound(op->a, *c > 0 ? upper : !upper);
        if (!a) return std::nullopt;
        return *a / op->b;
      }
      case ExprKind::Mod: {
        // Floor modulo by a positive constant lies in [0, c).
        auto c = as_const_int(e.as<ModNode>()->b);
        if (!c || *c <= 0) return std::nullopt;
        return sched::constant_like(e, upper ? *c - 1 : 0);
      }
      case ExprKind::Min:
        return combine(e.as<MinNode>()->a, upper, e.as<MinNode>()->b, upper,
                       [](Expr a, Expr b) { return min(a, b); });
      case ExprKind::Max:
        return combine(e.as<MaxNode>()->a, upper, e.as<MaxNode>()->b, upper,
                       [](Expr a, Expr b) { return max(a, b); });
      case ExprKind::Select: {
        // Either value, whatever the condition.
        const auto* op = e.as<SelectNode>();
        return combine(op->true_value, upper, op->false_value, upper,
                       [upper](Expr a, Expr b) { return upper ? max(a, b) : min(a, b); });
      }
      default:
        return std::nullopt;
    }
  }

 private:
  template <typename F>
  std::optional<Expr> combine(const Expr& a, bool a_upper, const Expr& b, bool b_upper, F f) const {
    auto x = bound(a, a_upper), y = bound(b, b_upper);
    if (!x || !y) return std::nullopt;
    return f(*x, *y);
  }

  std::unordered_map<const VarNode*, const ForNode*> loops_;
  std::unordered_set<const VarNode*> inner_;  // every variable bound inside
};

// Counts the loads, stores and addresses of `buffer`.
struct Uses {
  std::size_t loads = 0, stores = 0, addresses = 0;
  std::size_t total() const { return loads + stores + addresses; }
};
Uses uses_of(const Stmt& s, const Buffer& buffer) {
  Uses uses;
  pre_order_visit(s, [&](const ExprNode* e, const StmtNode* st) {
    if (e != nullptr && e->kind == ExprKind::Load)
      uses.loads += static_cast<const LoadNode*>(e)->buffer == buffer;
    if (e != nullptr && e->kind == ExprKind::Address)
      uses.addresses += static_cast<const AddressNode*>(e)->buffer == buffer;
    if (st != nullptr && st->kind == StmtKind::Store)
      uses.stores += static_cast<const StoreNode*>(st)->buffer == buffer;
  });
  return uses;
}

// Removes the producer from its sequence and puts its new form first in the loop's body.
class MoveProducer final : public sched::TrackingMutator {
 public:
  MoveProducer(sched::BlockRemap& remap, const StmtNode* producer, const ForNode* loop, Stmt moved)
      : TrackingMutator(remap), producer_(producer), loop_(loop), moved_(std::move(moved)) {}
  using TrackingMutator::mutate;

 protected:
  Stmt mutate(const SeqNode& op, const Stmt& self) override {
    auto it = std::find_if(op.stmts.begin(), op.stmts.end(),
                           [&](const Stmt& s) { return s.get() == producer_; });
    if (it == op.stmts.end()) return TrackingMutator::mutate(op, self);
    std::vector<Stmt> rest;
    for (const Stmt& s : op.stmts)
      if (s.get() != producer_) rest.push_back(mutate(s));
    return SeqNode::make(std::move(rest));
  }
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    if (&op != loop_) return TrackingMutator::mutate(op, self);
    return ForNode::make(op.var, op.min, op.extent, op.for_kind, SeqNode::make({moved_, op.body}));
  }

 private:
  const StmtNode* producer_;
  const ForNode* loop_;
  Stmt moved_;
};

}  // namespace

Status Schedule::compute_at(const BlockRef& block, const LoopRef& loop) {
  UMA_TRY_ASSIGN(Stmt producer, block_stmt(block, "compute_at"));
  UMA_TRY_ASSIGN(Path loop_path, sched::find_loop(func_, loop, "compute_at"));
  const auto* p = producer.as<BlockNode>();
  const auto* l = loop_path.back().as<ForNode>();
  const std::string& loop_name = l->var.as<VarNode>()->name;
  Path producer_path = *sched::find_stmt(func_.body, producer.get());

  // Where the two are: one sequence holds the producer, and the loop in a later statement.
  std::size_t common = 0;
  while (common < producer_path.size() && common < loop_path.size() &&
         producer_path[common].same_as(loop_path[common]))
    ++common;
  if (common == producer_path.size())
    return make_error("compute_at: loop '{}' is inside block '{}' itself", loop_name, p->name);
  if (common == loop_path.size())
    return make_error("compute_at: block '{}' is inside loop '{}' already", p->name, loop_name);
  const auto* seq = producer_path[common - 1].as<SeqNode>();
  auto position = [&](const Stmt& s) {
    return std::find_if(seq->stmts.begin(), seq->stmts.end(),
                        [&](const Stmt& x) { return x.same_as(s); });
  };
  if (seq == nullptr || producer_path.size() != common + 1 ||
      position(producer) > position(loop_path[common]))
    return make_error(
        "compute_at: block '{}' and loop '{}' are not in one sequence of statements with the "
        "block first",
        p->name, loop_name);

  // The producer.
  if (p->writes.size() != 1)
    return make_error(
        "compute_at: block '{}' writes {} buffers; only a block that writes one buffer can be "
        "computed at a loop",
        p->name, p->writes.size());
  const Buffer& buffer = p->writes.front();
  std::optional<PointwiseNest> nest = pointwise_nest(*p, buffer);
  if (!nest)
    return make_error(
        "compute_at: block '{}' is not a pointwise loop nest (one loop per dimension of %{} "
        "around one store to %{} at the loop variables); only such producers are supported",
        p->name, buffer->name, buffer->name);
  auto outputs = std::find(func_.params.begin() + func_.num_inputs, func_.params.end(), buffer);
  if (outputs != func_.params.end())
    return make_error("compute_at: %{} is an output of function @{}: all of it must be computed",
                      buffer->name, func_.name);

  // The consumer: the loop reads the buffer, and nothing else uses it.
  Uses inside = uses_of(l->body, buffer);
  Uses outside = uses_of(func_.body, buffer), in_producer = uses_of(producer, buffer);
  outside.loads -= in_producer.loads;
  outside.stores -= in_producer.stores;
  outside.addresses -= in_producer.addresses;
  if (inside.loads == 0)
    return make_error("compute_at: loop '{}' does not read %{}", loop_name, buffer->name);
  if (inside.stores != 0)
    return make_error("compute_at: loop '{}' writes %{} too", loop_name, buffer->name);
  if (inside.addresses != 0)
    return make_error(
        "compute_at: loop '{}' takes the address of %{}, so the region it reads is unknown",
        loop_name, buffer->name);
  if (outside.total() != inside.total())
    return make_error("compute_at: %{} is also used outside loop '{}'", buffer->name, loop_name);

  // The region one iteration reads, per dimension.
  RegionBounder bounder(l->body);
  std::vector<Expr> lo(buffer->shape.size()), hi(buffer->shape.size());
  std::optional<Error> error;
  pre_order_visit(l->body, [&](const ExprNode* e, const StmtNode*) {
    if (error || e == nullptr || e->kind != ExprKind::Load) return;
    const auto* load = static_cast<const LoadNode*>(e);
    if (load->buffer != buffer) return;
    for (std::size_t d = 0; d < load->indices.size(); ++d) {
      auto low = bounder.bound(load->indices[d], false);
      auto high = bounder.bound(load->indices[d], true);
      if (!low || !high) {
        error = make_error(
            "compute_at: cannot bound the index {} of %{} over an iteration of loop '{}' (an "
            "index must be monotonic in the inner loops' variables: sums, products and floor "
            "divisions by constants, min, max)",
            to_string(load->indices[d]), buffer->name, loop_name);
        return;
      }
      lo[d] = lo[d].defined() ? min(lo[d], *low) : *low;
      hi[d] = hi[d].defined() ? max(hi[d], *high) : *high;
    }
  });
  if (error) return *error;
  if (lo.size() != nest->by_dimension.size())
    return make_error("compute_at: %{} is read with the wrong number of indices", buffer->name);

  // What is known at the loop: the ranges of the loops around it and of itself.
  Bounds known;
  for (const Stmt& s : loop_path) {
    if (const auto* outer = s.as<ForNode>()) {
      Interval first = bounds_of(outer->min, known);
      Interval last = bounds_of(outer->min + outer->extent - 1, known);
      known[outer->var.as<VarNode>()] = Interval{first.min, last.max};
    }
  }
  // The producer's loops over the region, clamped to what it computed before.
  std::unordered_map<const ForNode*, std::pair<Expr, Expr>> ranges;
  for (std::size_t d = 0; d < lo.size(); ++d) {
    const ForNode* old = nest->by_dimension[d];
    Expr begin = simplify(max(lo[d], old->min), known);
    Expr end = simplify(min(hi[d] + 1, old->min + old->extent), known);
    ranges[old] = {begin, simplify(end - begin, known)};
  }
  Stmt body = nest->store;
  for (auto it = nest->nest.rbegin(); it != nest->nest.rend(); ++it) {
    const auto& [begin, extent] = ranges.at(*it);
    body = ForNode::make((*it)->var, begin, extent, ForKind::kSerial, body);
  }

  sched::BlockRemap remap;
  Stmt moved = BlockNode::make(p->name, p->reads, p->writes, body, p->attrs, p->iter_vars, p->init);
  sched::record(remap, producer, moved);
  Stmt root = MoveProducer(remap, producer.get(), l, moved).mutate(func_.body);
  commit(root, remap);
  return Status::success();
}

}  // namespace uma::tir
