// rfactor: a reduction's loop becomes an axis of partial results (a block accumulating one
// partial per iteration of the loop, independent, so vectorizable) followed by a block
// combining the partials into the output.
#include <algorithm>
#include <limits>

#include "schedule_util.h"
#include "uma/tir/printer.h"

namespace uma::tir {

namespace {

// The value `x` for which combine(a, x) is a: the partial sums' starting value.
std::optional<Expr> identity(ExprKind combine, DataType type) {
  bool is_float = type.dtype == DType::f32 || type.dtype == DType::f64;
  auto constant = [&](double f, std::int64_t i) {
    return is_float ? FloatImmNode::make(type, f) : IntImmNode::make(type, i);
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (combine) {
    case ExprKind::Add:
      return constant(0.0, 0);
    case ExprKind::Mul:
      return constant(1.0, 1);
    case ExprKind::Max:
      if (is_float) return constant(-kInf, 0);
      if (type.dtype == DType::i32) return constant(0, std::numeric_limits<std::int32_t>::min());
      if (type.dtype == DType::i64) return constant(0, std::numeric_limits<std::int64_t>::min());
      return std::nullopt;
    case ExprKind::Min:
      if (is_float) return constant(kInf, 0);
      if (type.dtype == DType::i32) return constant(0, std::numeric_limits<std::int32_t>::max());
      if (type.dtype == DType::i64) return constant(0, std::numeric_limits<std::int64_t>::max());
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// combine(a, b) of the kind of a binary node.
Expr combine(ExprKind kind, Expr a, Expr b) {
  switch (kind) {
    case ExprKind::Add:
      return a + b;
    case ExprKind::Mul:
      return a * b;
    case ExprKind::Max:
      return max(a, b);
    default:
      return min(a, b);
  }
}

// The update of a reduction block: out[indices] = combine(out[indices], value).
struct Update {
  const StoreNode* store = nullptr;
  ExprKind kind = ExprKind::Add;
  Expr value;  // what is combined in, which does not read the output
};

// The one store of `body` as an update, or a message saying why it is not one.
Expected<Update> find_update(const std::string& block, const Stmt& body) {
  std::vector<const StoreNode*> stores;
  pre_order_visit(body, [&](const ExprNode*, const StmtNode* s) {
    if (s != nullptr && s->kind == StmtKind::Store)
      stores.push_back(static_cast<const StoreNode*>(s));
  });
  if (stores.size() != 1)
    return make_error("rfactor: block '{}' has {} stores, not one update", block, stores.size());
  Update update{stores[0]};
  const Buffer& out = update.store->buffer;
  auto is_acc = [&](const Expr& e) {
    const auto* load = e.as<LoadNode>();
    if (load == nullptr || load->buffer != out ||
        load->indices.size() != update.store->indices.size())
      return false;
    for (std::size_t d = 0; d < load->indices.size(); ++d)
      if (!equal(load->indices[d], update.store->indices[d])) return false;
    return true;
  };
  auto operands = [&](const auto* op) -> bool {
    if (op == nullptr) return false;
    update.kind = op->kKind;
    if (is_acc(op->a))
      update.value = op->b;
    else if (is_acc(op->b))
      update.value = op->a;
    return update.value.defined();
  };
  const Expr& v = update.store->value;
  if (!operands(v.as<AddNode>()) && !operands(v.as<MulNode>()) && !operands(v.as<MaxNode>()) &&
      !operands(v.as<MinNode>()))
    return make_error(
        "rfactor: the store of block '{}' to %{} is not %{}[...] = %{}[...] combined (+, *, min, "
        "max) with a value",
        block, out->name, out->name, out->name);
  bool reads_out = false;
  pre_order_visit(EvaluateNode::make(update.value), [&](const ExprNode* e, const StmtNode*) {
    if (e != nullptr && e->kind == ExprKind::Load)
      reads_out |= static_cast<const LoadNode*>(e)->buffer == out;
  });
  if (reads_out)
    return make_error("rfactor: the update of block '{}' reads %{} apart from its accumulator",
                      block, out->name);
  return update;
}

// The variables of the bindings of the block's iteration variables of `kind`.
std::unordered_set<const VarNode*> bound_vars(const BlockNode& block, IterKind kind) {
  std::unordered_set<const VarNode*> vars;
  for (const IterVar& iv : block.iter_vars) {
    if (iv.kind != kind) continue;
    pre_order_visit(EvaluateNode::make(iv.binding), [&](const ExprNode* e, const StmtNode*) {
      if (e != nullptr && e->kind == ExprKind::Var) vars.insert(static_cast<const VarNode*>(e));
    });
  }
  return vars;
}

// Rewrites the update into one of the partials: rf[indices..., lane] = combine(rf[...], value).
class ToPartials final : public sched::TrackingMutator {
 public:
  ToPartials(sched::BlockRemap& remap, const Update& update, const Buffer& rf, const Var& lane)
      : TrackingMutator(remap), update_(update), rf_(rf), lane_(lane) {}
  using TrackingMutator::mutate;

 protected:
  Stmt mutate(const StoreNode& op, const Stmt& self) override {
    if (&op != update_.store) return TrackingMutator::mutate(op, self);
    std::vector<Expr> indices = op.indices;
    indices.push_back(lane_);
    return StoreNode::make(rf_, combine(update_.kind, LoadNode::make(rf_, indices), update_.value),
                           indices);
  }
  Buffer mutate_buffer(const Buffer& buffer) override {
    return buffer == update_.store->buffer ? rf_ : buffer;
  }

 private:
  const Update& update_;
  const Buffer& rf_;
  const Var& lane_;
};

}  // namespace

Expected<BlockRef> Schedule::rfactor(const BlockRef& block, const LoopRef& loop,
                                     const std::string& scope) {
  UMA_TRY_ASSIGN(Stmt stmt, block_stmt(block, "rfactor"));
  const auto* b = stmt.as<BlockNode>();
  UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "rfactor"));
  const auto* target = path.back().as<ForNode>();
  const std::string& name = target->var.as<VarNode>()->name;
  if (scope.empty()) return make_error("rfactor: the scope of the partials is empty");
  std::vector<const ForNode*> own = sched::loops_in(b->body);
  if (std::find(own.begin(), own.end(), target) == own.end())
    return make_error("rfactor: loop '{}' is not a loop of block '{}'", name, b->name);
  std::unordered_set<const VarNode*> spatial = bound_vars(*b, IterKind::kSpatial);
  std::unordered_set<const VarNode*> reduce = bound_vars(*b, IterKind::kReduce);
  const auto* var = target->var.as<VarNode>();
  if (!reduce.contains(var) || spatial.contains(var))
    return make_error(
        "rfactor: loop '{}' is not bound to a reduce iteration variable alone of "
        "block '{}'",
        name, b->name);
  auto lanes = as_const_int(target->extent);
  if (!lanes)
    return make_error("rfactor: loop '{}' has extent {}, not a constant", name,
                      to_string(target->extent));
  UMA_TRY_ASSIGN(Update update, find_update(b->name, b->body));
  const Buffer& out = update.store->buffer;
  auto unit = identity(update.kind, update.store->value.type());
  if (!unit)
    return make_error("rfactor: no starting value for {} of {} in block '{}'",
                      expr_kind_name(update.kind), to_string(update.store->value.type()), b->name);

  // The store's nest: the loops on its path (its spatial loops are copied around the
  // combining of the partials) and `if`s on reduce loops only, which the partials keep.
  sched::Path nest = *sched::find_stmt(b->body, update.store);
  std::vector<const ForNode*> spatial_loops;
  std::unordered_set<const VarNode*> spatial_set;
  for (std::size_t d = 0; d + 1 < nest.size(); ++d) {
    if (const auto* op = nest[d].as<ForNode>()) {
      if (!spatial.contains(op->var.as<VarNode>())) continue;
      if (reduce.contains(op->var.as<VarNode>()))
        return make_error(
            "rfactor: loop '{}' is bound to a spatial and a reduce iteration variable",
            op->var.as<VarNode>()->name);
      spatial_loops.push_back(op);
      spatial_set.insert(op->var.as<VarNode>());
      continue;
    }
    const auto* guard = nest[d].as<IfThenElseNode>();
    if (guard == nullptr || guard->else_case.defined() ||
        sched::uses_any(guard->condition, spatial_set))
      return make_error(
          "rfactor: the update of block '{}' is not in a nest of loops and of `if`s on reduce "
          "loops (a {} lies on its way)",
          b->name, stmt_kind_name(nest[d].kind()));
  }
  for (const ForNode* op : own)
    if (std::find_if(nest.begin(), nest.end(), [&](const Stmt& s) { return s.get() == op; }) ==
        nest.end())
      return make_error("rfactor: loop '{}' of block '{}' does not enclose its update",
                        op->var.as<VarNode>()->name, b->name);
  for (const Expr& index : update.store->indices)
    if (sched::uses_any(index, reduce))
      return make_error(
          "rfactor: the update of block '{}' stores at indices that use its reduce "
          "loops",
          b->name);

  // The partials: one more dimension, innermost, so the lanes are contiguous.
  std::vector<Expr> rf_shape = out->shape;
  rf_shape.push_back(
      IntImmNode::make(out->shape.empty() ? target->var.type() : out->shape.back().type(), *lanes));
  Buffer rf = make_buffer(out->name + "_rf", out->dtype, std::move(rf_shape), scope);
  Var lane_var = target->var;

  // The partials' block: the loop becomes spatial; the other reduce loops each get a reduce
  // iteration variable of their own where a binding mixed them with the loop.
  std::vector<IterVar> rf_iters;
  for (const IterVar& iv : b->iter_vars)
    if (iv.kind == IterKind::kSpatial) rf_iters.push_back(iv);
  rf_iters.push_back({name, target->extent, IterKind::kSpatial, target->var});
  for (const IterVar& iv : b->iter_vars) {
    if (iv.kind != IterKind::kReduce) continue;
    if (!sched::uses(iv.binding, target->var)) {
      rf_iters.push_back(iv);
      continue;
    }
    for (const ForNode* op : own)
      if (op != target && sched::uses(iv.binding, op->var))
        rf_iters.push_back({op->var.as<VarNode>()->name, op->extent, IterKind::kReduce, op->var});
  }
  std::vector<Expr> rf_indices = update.store->indices;
  rf_indices.push_back(lane_var);
  Stmt rf_init = StoreNode::make(rf, *unit, rf_indices);
  sched::BlockRemap remap;
  Stmt rf_body = ToPartials(remap, update, rf, lane_var).mutate(b->body);
  std::vector<Buffer> rf_reads;
  for (const Buffer& read : sched::accessed_buffers(b->body, /*loads=*/true, /*stores=*/false))
    if (read != out) rf_reads.push_back(read);
  Stmt rf_block = BlockNode::make(b->name + "_rf", rf_reads, {rf}, rf_body, b->attrs,
                                  std::move(rf_iters), rf_init);

  // The combining block: copies of the spatial loops around a reduce loop over the lanes.
  std::unordered_map<const VarNode*, Expr> copies;
  for (const ForNode* op : spatial_loops)
    copies.emplace(op->var.as<VarNode>(),
                   VarNode::make(op->var.as<VarNode>()->name, op->var.type()));
  Var lane = VarNode::make(name, target->var.type());
  std::vector<Expr> out_indices, partial_indices;
  for (const Expr& index : update.store->indices) out_indices.push_back(substitute(index, copies));
  partial_indices = out_indices;
  partial_indices.push_back(lane);
  Stmt body = StoreNode::make(
      out,
      combine(update.kind, LoadNode::make(out, out_indices), LoadNode::make(rf, partial_indices)),
      out_indices);
  body =
      ForNode::make(lane, IntImmNode::make(lane.type(), 0), target->extent, ForKind::kSerial, body);
  for (std::size_t d = spatial_loops.size(); d-- > 0;) {
    const ForNode* op = spatial_loops[d];
    body = ForNode::make(copies.at(op->var.as<VarNode>()), substitute(op->min, copies),
                         substitute(op->extent, copies), op->for_kind, body);
  }
  std::vector<IterVar> iters;
  for (IterVar iv : b->iter_vars) {
    if (iv.kind != IterKind::kSpatial) continue;
    iv.binding = substitute(iv.binding, copies);
    iters.push_back(std::move(iv));
  }
  iters.push_back({name, target->extent, IterKind::kReduce, lane});
  Stmt init = substitute(b->init, copies);
  std::vector<Buffer> reads{rf};
  for (const Buffer& read : sched::accessed_buffers(init, /*loads=*/true, /*stores=*/false))
    if (read != out && read != rf) reads.push_back(read);
  Stmt combined =
      BlockNode::make(b->name, std::move(reads), b->writes, body, b->attrs, std::move(iters), init);
  sched::record(remap, stmt, combined);
  Stmt now = AllocateNode::make(rf, SeqNode::make({rf_block, combined}));
  commit(sched::replace(func_.body, b, now, remap), remap);
  return track(rf_block);
}

}  // namespace uma::tir
