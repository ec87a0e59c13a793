// compute_at: a producer block moves under a loop of its consumer and computes, at each
// iteration of that loop, only the region of its buffer that the iteration reads. A
// reduction producer computes that region whole: all its reduce iterations, and its init.
#include <algorithm>

#include "schedule_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tir {

using sched::Path;

namespace {

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
  std::optional<sched::StoreNest> nest =
      p->init.defined() ? sched::reduction_nest(*p, buffer) : sched::pointwise_nest(*p, buffer);
  if (!nest)
    return make_error(
        "compute_at: block '{}' is not a perfect loop nest around one store to %{} at the "
        "loop variables (one loop per dimension, and a reduction's reduce loops); only such "
        "producers are supported",
        p->name, buffer->name);
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
  UMA_TRY_ASSIGN(sched::Region read, sched::accessed_region(l->body, buffer, /*stores=*/false,
                                                            "compute_at", loop_name));
  std::vector<Expr>& lo = read.lo;
  std::vector<Expr>& hi = read.hi;
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
  // The producer's loops over the region, clamped to what it computed before; a
  // reduction's reduce loops stay whole.
  std::unordered_map<const ForNode*, std::pair<Expr, Expr>> ranges;
  for (const ForNode* loop : nest->nest) ranges[loop] = {loop->min, loop->extent};
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
  Stmt root = sched::move_into_loop(func_.body, producer.get(), l, moved, /*at_end=*/false, remap);
  commit(root, remap);
  return Status::success();
}

}  // namespace uma::tir
