// Helpers shared by the schedule primitives (schedule_util.h).
#include "schedule_util.h"

#include <algorithm>

#include "uma/tir/printer.h"

namespace uma::tir::sched {

std::vector<Stmt> children(const Stmt& s) {
  switch (s.kind()) {
    case StmtKind::LetStmt:
      return {s.as<LetStmtNode>()->body};
    case StmtKind::For:
      return {s.as<ForNode>()->body};
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      if (op->else_case.defined()) return {op->then_case, op->else_case};
      return {op->then_case};
    }
    case StmtKind::Allocate:
      return {s.as<AllocateNode>()->body};
    case StmtKind::Seq:
      return s.as<SeqNode>()->stmts;
    case StmtKind::Block:
      return {s.as<BlockNode>()->body};
    case StmtKind::Store:
    case StmtKind::Evaluate:
      return {};
  }
  return {};
}

namespace {

void walk_from(Path& path, const std::function<bool(const Path&)>& f) {
  if (!f(path)) return;
  for (const Stmt& child : children(path.back())) {
    path.push_back(child);
    walk_from(path, f);
    path.pop_back();
  }
}

}  // namespace

void walk(const Stmt& root, const std::function<bool(const Path&)>& f) {
  if (!root.defined()) return;
  Path path{root};
  walk_from(path, f);
}

std::optional<Path> find_stmt(const Stmt& root, const StmtNode* node) {
  std::optional<Path> found;
  walk(root, [&](const Path& path) {
    if (found) return false;
    if (path.back().get() == node) found = path;
    return !found;
  });
  return found;
}

Expected<Path> find_loop(const PrimFunc& func, const LoopRef& loop, std::string_view primitive) {
  const auto* var = loop.var.as<VarNode>();
  if (var == nullptr) return make_error("{}: the loop handle is empty", primitive);
  std::vector<Path> found;
  walk(func.body, [&](const Path& path) {
    const auto* op = path.back().as<ForNode>();
    if (op != nullptr && op->var.get() == var) found.push_back(path);
    return true;
  });
  if (found.empty())
    return make_error(
        "{}: loop '{}' is not in function @{}; a split, fuse, tile, partition or "
        "replace_with_extern removed it",
        primitive, var->name, func.name);
  if (found.size() > 1)
    return make_error(
        "{}: {} loops of function @{} have the variable '{}'; a loop handle names one", primitive,
        found.size(), func.name, var->name);
  return std::move(found.front());
}

std::vector<const ForNode*> loops_in(const Stmt& s) {
  std::vector<const ForNode*> loops;
  walk(s, [&](const Path& path) {
    const Stmt& node = path.back();
    if (path.size() > 1 && node.kind() == StmtKind::Block) return false;
    if (const auto* op = node.as<ForNode>()) loops.push_back(op);
    return true;
  });
  return loops;
}

void record(BlockRemap& remap, const Stmt& old, const Stmt& now) {
  if (!old.same_as(now) && now.kind() == StmtKind::Block) remap[old.get()] = now;
}

Interval loop_range(const ForNode& loop, const Bounds& known) {
  Interval lo = bounds_of(loop.min, known), count = bounds_of(loop.extent, known);
  if (!lo.has_lower()) return Interval::everything();
  if (!lo.has_upper() || !count.has_upper()) return {lo.min, Interval::kPosInf};
  return {lo.min, (Interval::point(lo.max) + Interval::point(count.max - 1)).max};
}

Bounds loop_bounds(const Path& path) {
  Bounds known;
  for (std::size_t i = 0; i + 1 < path.size(); ++i)
    if (const auto* loop = path[i].as<ForNode>())
      known[loop->var.as<VarNode>()] = loop_range(*loop, known);
  return known;
}

Stmt BoundedMutator::mutate(const ForNode& op, const Stmt& self) {
  const auto* var = op.var.as<VarNode>();
  known_[var] = loop_range(op, known_);
  Stmt out = TrackingMutator::mutate(op, self);
  // A loop's variable is bound once in a function (the verifier's rule), so its range
  // needs no restoring, only forgetting.
  known_.erase(var);
  return out;
}

Stmt TrackingMutator::mutate(const BlockNode& op, const Stmt& self) {
  Stmt out = mutate_block(op, self);
  record(remap_, self, out);
  return out;
}

namespace {

class Replace final : public TrackingMutator {
 public:
  Replace(BlockRemap& remap, const StmtNode* old, Stmt now)
      : TrackingMutator(remap), old_(old), now_(std::move(now)) {}
  using TrackingMutator::mutate;

  Stmt run(const Stmt& root) { return root.get() == old_ ? now_ : mutate(root); }

 protected:
  // Every statement kind but Block (see mutate_block) is compared with the one to replace
  // before the default recursion, so the replaced node itself is never rebuilt.
#define UMA_SCHED_REPLACE(k)                                    \
  Stmt mutate(const k##Node& op, const Stmt& self) override {   \
    if (static_cast<const StmtNode*>(&op) == old_) return now_; \
    return TrackingMutator::mutate(op, self);                   \
  }
  UMA_SCHED_REPLACE(LetStmt)
  UMA_SCHED_REPLACE(For)
  UMA_SCHED_REPLACE(IfThenElse)
  UMA_SCHED_REPLACE(Store)
  UMA_SCHED_REPLACE(Allocate)
  UMA_SCHED_REPLACE(Seq)
  UMA_SCHED_REPLACE(Evaluate)
#undef UMA_SCHED_REPLACE
  Stmt mutate_block(const BlockNode& op, const Stmt& self) override {
    if (static_cast<const StmtNode*>(&op) == old_) return now_;
    return TrackingMutator::mutate_block(op, self);
  }

 private:
  const StmtNode* old_;
  Stmt now_;
};

class Substitute final : public TrackingMutator {
 public:
  Substitute(BlockRemap& remap, const std::unordered_map<const VarNode*, Expr>& map)
      : TrackingMutator(remap), map_(map) {}
  using TrackingMutator::mutate;

 protected:
  Expr mutate(const VarNode& op, const Expr& self) override {
    auto it = map_.find(&op);
    return it == map_.end() ? self : it->second;
  }

 private:
  const std::unordered_map<const VarNode*, Expr>& map_;
};

class ReplaceBuffer final : public TrackingMutator {
 public:
  ReplaceBuffer(BlockRemap& remap, const Buffer& old, const Buffer& now)
      : TrackingMutator(remap), old_(old), now_(now) {}
  using TrackingMutator::mutate;

 protected:
  Buffer mutate_buffer(const Buffer& buffer) override { return buffer == old_ ? now_ : buffer; }

 private:
  const Buffer& old_;
  const Buffer& now_;
};

// Takes a block out of its sequence and puts its new form first or last in a loop's body.
class MoveBlock final : public TrackingMutator {
 public:
  MoveBlock(BlockRemap& remap, const StmtNode* block, const ForNode* loop, Stmt moved, bool at_end)
      : TrackingMutator(remap),
        block_(block),
        loop_(loop),
        moved_(std::move(moved)),
        at_end_(at_end) {}
  using TrackingMutator::mutate;

 protected:
  Stmt mutate(const SeqNode& op, const Stmt& self) override {
    auto it = std::find_if(op.stmts.begin(), op.stmts.end(),
                           [&](const Stmt& s) { return s.get() == block_; });
    if (it == op.stmts.end()) return TrackingMutator::mutate(op, self);
    std::vector<Stmt> rest;
    for (const Stmt& s : op.stmts)
      if (s.get() != block_) rest.push_back(mutate(s));
    return SeqNode::make(std::move(rest));
  }
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    if (&op != loop_) return TrackingMutator::mutate(op, self);
    Stmt body = mutate(op.body);
    return ForNode::make(
        op.var, op.min, op.extent, op.for_kind,
        SeqNode::make(at_end_ ? std::vector<Stmt>{body, moved_} : std::vector<Stmt>{moved_, body}));
  }

 private:
  const StmtNode* block_;
  const ForNode* loop_;
  Stmt moved_;
  bool at_end_;
};

}  // namespace

Stmt replace_buffer(const Stmt& s, const Buffer& old, const Buffer& now, BlockRemap& remap) {
  return ReplaceBuffer(remap, old, now).mutate(s);
}

Stmt copy_block(const std::string& name, const Buffer& from, const Buffer& to) {
  std::vector<Expr> vars;
  for (std::size_t d = 0; d < from->shape.size(); ++d)
    vars.push_back(VarNode::make(fmt::format("ax{}", d), from->shape[d].type()));
  Stmt body = StoreNode::make(to, LoadNode::make(from, vars), vars);
  for (std::size_t d = from->shape.size(); d-- > 0;)
    body = ForNode::make(vars[d], constant_like(from->shape[d], 0), from->shape[d],
                         ForKind::kSerial, body);
  return BlockNode::make(name, {from}, {to}, body);
}

Stmt move_into_loop(const Stmt& root, const StmtNode* block, const ForNode* loop, Stmt moved,
                    bool at_end, BlockRemap& remap) {
  return MoveBlock(remap, block, loop, std::move(moved), at_end).mutate(root);
}

Stmt replace(const Stmt& root, const StmtNode* old, Stmt now, BlockRemap& remap) {
  return Replace(remap, old, std::move(now)).run(root);
}

Stmt replace_loop(const Stmt& root, const Path& path, Stmt now,
                  const std::unordered_map<const VarNode*, Expr>& map, BlockRemap& remap) {
  const StmtNode* loop = path.back().get();
  for (std::size_t d = path.size() - 1; d-- > 0;) {
    const auto* block = path[d].as<BlockNode>();
    if (block == nullptr) continue;
    if (block->iter_vars.empty() && !block->init.defined()) break;
    std::vector<IterVar> iters = block->iter_vars;
    for (IterVar& iv : iters) iv.binding = tir::substitute(iv.binding, map);
    Stmt rebuilt = BlockNode::make(block->name, block->reads, block->writes,
                                   replace(block->body, loop, std::move(now), remap), block->attrs,
                                   std::move(iters), tir::substitute(block->init, map));
    record(remap, path[d], rebuilt);
    return replace(root, block, rebuilt, remap);
  }
  return replace(root, loop, std::move(now), remap);
}

Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map,
                BlockRemap& remap) {
  return map.empty() ? s : Substitute(remap, map).mutate(s);
}

Expr offset_by(const Expr& base, const Expr& offset) {
  return as_const_int(base) == 0 ? offset : offset + base;
}

Expr constant_like(const Expr& like, std::int64_t value) {
  return IntImmNode::make(like.type().element(), value);
}

bool uses_any(const Expr& e, const std::unordered_set<const VarNode*>& vars) {
  bool found = false;
  Stmt probe = EvaluateNode::make(e);
  pre_order_visit(probe, [&](const ExprNode* node, const StmtNode*) {
    if (node != nullptr && node->kind == ExprKind::Var &&
        vars.contains(static_cast<const VarNode*>(node)))
      found = true;
  });
  return found;
}

bool uses(const Expr& e, const Var& var) { return uses_any(e, {var.as<VarNode>()}); }

std::optional<std::string> reduction_store(const ForNode& loop) {
  std::optional<std::string> found;
  std::unordered_set<const BufferNode*> local;
  // The loop's variable and those of the loops inside whose bounds depend on it (a tile
  // copied out at the loop's position): a store at any of them is a different element
  // in each iteration. Pre-order sees a loop before its body.
  std::unordered_set<const VarNode*> dependent = {loop.var.as<VarNode>()};
  pre_order_visit(loop.body, [&](const ExprNode*, const StmtNode* s) {
    if (s == nullptr || found) return;
    if (s->kind == StmtKind::Allocate)
      local.insert(static_cast<const AllocateNode*>(s)->buffer.get());
    if (s->kind == StmtKind::For) {
      const auto* inner = static_cast<const ForNode*>(s);
      if (uses_any(inner->min, dependent) || uses_any(inner->extent, dependent))
        dependent.insert(inner->var.as<VarNode>());
    }
    if (s->kind != StmtKind::Store) return;
    const auto* store = static_cast<const StoreNode*>(s);
    if (local.contains(store->buffer.get())) return;
    bool indexed = std::any_of(store->indices.begin(), store->indices.end(),
                               [&](const Expr& index) { return uses_any(index, dependent); });
    if (!indexed) found = store->buffer->name;
  });
  return found;
}

bool allocates(const Stmt& s, const Buffer& buffer) {
  bool found = false;
  walk(s, [&](const Path& path) {
    const auto* alloc = path.back().as<AllocateNode>();
    found |= alloc != nullptr && alloc->buffer == buffer;
    return !found;
  });
  return found;
}

std::vector<Buffer> accessed_buffers(const Stmt& s, bool loads, bool stores) {
  std::vector<Buffer> found;
  std::unordered_set<const BufferNode*> seen, local;
  auto add = [&](const Buffer& buffer) {
    if (!local.contains(buffer.get()) && seen.insert(buffer.get()).second) found.push_back(buffer);
  };
  // Allocations come before their uses in pre-order, so `local` is complete in time.
  pre_order_visit(s, [&](const ExprNode* e, const StmtNode* st) {
    if (st != nullptr && st->kind == StmtKind::Allocate)
      local.insert(static_cast<const AllocateNode*>(st)->buffer.get());
    if (stores && st != nullptr && st->kind == StmtKind::Store)
      add(static_cast<const StoreNode*>(st)->buffer);
    if (loads && e != nullptr && e->kind == ExprKind::Load)
      add(static_cast<const LoadNode*>(e)->buffer);
    if (loads && e != nullptr && e->kind == ExprKind::Address)
      add(static_cast<const AddressNode*>(e)->buffer);
  });
  return found;
}

template <typename F>
std::optional<Expr> RegionBounder::combine(const Expr& a, bool a_upper, const Expr& b, bool b_upper,
                                           F f) const {
  auto x = bound(a, a_upper), y = bound(b, b_upper);
  if (!x || !y) return std::nullopt;
  return f(*x, *y);
}

RegionBounder::RegionBounder(const Stmt& body) {
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

std::optional<Expr> RegionBounder::bound(const Expr& e, bool upper) const {
  if (!uses_any(e, inner_)) return e;
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
      return *b * constant_like(other, *c);
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
      return constant_like(e, upper ? *c - 1 : 0);
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

namespace {

// The nest of pointwise_nest (without `reduce`) or reduction_nest (with it).
std::optional<StoreNest> store_nest(const BlockNode& block, const Buffer& buffer, bool reduce) {
  StoreNest out;
  Stmt body = block.body;
  while (const auto* loop = body.as<ForNode>()) {
    out.nest.push_back(loop);
    body = loop->body;
  }
  const auto* store = body.as<StoreNode>();
  if (store == nullptr || store->buffer != buffer ||
      store->indices.size() != buffer->shape.size() ||
      (!reduce && store->indices.size() != out.nest.size()))
    return std::nullopt;
  std::unordered_set<const VarNode*> vars;
  for (const ForNode* loop : out.nest) vars.insert(loop->var.as<VarNode>());
  for (const ForNode* loop : out.nest)
    if (uses_any(loop->min, vars) || uses_any(loop->extent, vars)) return std::nullopt;
  for (const Expr& index : store->indices) {
    auto it = std::find_if(out.nest.begin(), out.nest.end(),
                           [&](const ForNode* loop) { return loop->var.same_as(index); });
    if (it == out.nest.end() ||
        std::find(out.by_dimension.begin(), out.by_dimension.end(), *it) != out.by_dimension.end())
      return std::nullopt;
    out.by_dimension.push_back(*it);
  }
  // Every other loop is one of the block's reduce loops.
  for (const ForNode* loop : out.nest) {
    if (std::find(out.by_dimension.begin(), out.by_dimension.end(), loop) != out.by_dimension.end())
      continue;
    bool bound =
        std::any_of(block.iter_vars.begin(), block.iter_vars.end(), [&](const IterVar& iv) {
          return iv.kind == IterKind::kReduce && iv.binding.same_as(loop->var);
        });
    if (!bound) return std::nullopt;
  }
  // A reduction reads only the element it accumulates into; anything else reads nothing of
  // its buffer.
  bool reads_other = false;
  pre_order_visit(body, [&](const ExprNode* e, const StmtNode*) {
    if (e != nullptr && e->kind == ExprKind::Address)
      reads_other |= static_cast<const AddressNode*>(e)->buffer == buffer;
    if (e == nullptr || e->kind != ExprKind::Load) return;
    const auto& load = *static_cast<const LoadNode*>(e);
    if (load.buffer != buffer) return;
    bool same = reduce && load.indices.size() == store->indices.size();
    for (std::size_t d = 0; same && d < load.indices.size(); ++d)
      same = load.indices[d].same_as(store->indices[d]);
    reads_other |= !same;
  });
  if (reads_other) return std::nullopt;
  out.store = body;
  return out;
}

}  // namespace

std::optional<StoreNest> pointwise_nest(const BlockNode& block, const Buffer& buffer) {
  return store_nest(block, buffer, /*reduce=*/false);
}

std::optional<StoreNest> reduction_nest(const BlockNode& block, const Buffer& buffer) {
  if (!block.init.defined()) return std::nullopt;
  return store_nest(block, buffer, /*reduce=*/true);
}

Expected<Region> accessed_region(const Stmt& body, const Buffer& buffer, bool stores,
                                 std::string_view primitive, std::string_view loop_name) {
  RegionBounder bounder(body);
  Region region{std::vector<Expr>(buffer->shape.size()), std::vector<Expr>(buffer->shape.size())};
  std::optional<Error> error;
  auto widen = [&](const std::vector<Expr>& indices) {
    if (error || indices.size() != region.lo.size()) return;
    for (std::size_t d = 0; d < indices.size(); ++d) {
      auto low = bounder.bound(indices[d], false);
      auto high = bounder.bound(indices[d], true);
      if (!low || !high) {
        error = make_error(
            "{}: cannot bound the index {} of %{} over an iteration of loop '{}' (an index must "
            "be monotonic in the inner loops' variables: sums, products and floor divisions by "
            "constants, min, max)",
            primitive, to_string(indices[d]), buffer->name, loop_name);
        return;
      }
      region.lo[d] = region.lo[d].defined() ? min(region.lo[d], *low) : *low;
      region.hi[d] = region.hi[d].defined() ? max(region.hi[d], *high) : *high;
    }
  };
  pre_order_visit(body, [&](const ExprNode* e, const StmtNode* s) {
    if (stores && s != nullptr && s->kind == StmtKind::Store) {
      const auto* write = static_cast<const StoreNode*>(s);
      if (write->buffer == buffer) widen(write->indices);
    } else if (!stores && e != nullptr && e->kind == ExprKind::Load) {
      const auto* load = static_cast<const LoadNode*>(e);
      if (load->buffer == buffer) widen(load->indices);
    }
  });
  if (error) return *error;
  return region;
}

}  // namespace uma::tir::sched
