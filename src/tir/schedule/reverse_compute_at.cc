// reverse_compute_at: a consumer block moves under a loop of its producer and computes, at
// the end of each iteration of that loop, the region of the producer's buffer that the
// iteration finished (an epilogue brought into a reduction's spatial loops).
#include <algorithm>

#include "schedule_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tir {

using sched::Path;

Status Schedule::reverse_compute_at(const BlockRef& block, const LoopRef& loop) {
  UMA_TRY_ASSIGN(Stmt consumer, block_stmt(block, "reverse_compute_at"));
  UMA_TRY_ASSIGN(Path loop_path, sched::find_loop(func_, loop, "reverse_compute_at"));
  const auto* c = consumer.as<BlockNode>();
  const auto* l = loop_path.back().as<ForNode>();
  const std::string& loop_name = l->var.as<VarNode>()->name;
  Path consumer_path = *sched::find_stmt(func_.body, consumer.get());

  // Where the two are: one sequence holds the consumer, and the loop in an earlier statement.
  std::size_t common = 0;
  while (common < consumer_path.size() && common < loop_path.size() &&
         consumer_path[common].same_as(loop_path[common]))
    ++common;
  if (common == consumer_path.size())
    return make_error("reverse_compute_at: loop '{}' is inside block '{}' itself", loop_name,
                      c->name);
  if (common == loop_path.size())
    return make_error("reverse_compute_at: block '{}' is inside loop '{}' already", c->name,
                      loop_name);
  const auto* seq = consumer_path[common - 1].as<SeqNode>();
  auto position = [&](const Stmt& s) {
    return std::find_if(seq->stmts.begin(), seq->stmts.end(),
                        [&](const Stmt& x) { return x.same_as(s); });
  };
  if (seq == nullptr || consumer_path.size() != common + 1 ||
      position(loop_path[common]) > position(consumer))
    return make_error(
        "reverse_compute_at: loop '{}' and block '{}' are not in one sequence of statements "
        "with the loop first",
        loop_name, c->name);

  // The consumer: a pointwise nest that reads, at the indices it writes, a buffer the loop
  // writes.
  if (c->writes.size() != 1)
    return make_error(
        "reverse_compute_at: block '{}' writes {} buffers; only a block that writes one buffer "
        "can be computed at a loop",
        c->name, c->writes.size());
  const Buffer& out = c->writes.front();
  std::optional<sched::StoreNest> nest = sched::pointwise_nest(*c, out);
  if (!nest)
    return make_error(
        "reverse_compute_at: block '{}' is not a pointwise loop nest (one loop per dimension of "
        "%{} around one store to %{} at the loop variables); only such consumers are supported",
        c->name, out->name, out->name);
  const auto* store = nest->store.as<StoreNode>();
  std::vector<Buffer> written = sched::accessed_buffers(l->body, /*loads=*/false, /*stores=*/true);
  std::vector<Buffer> read = sched::accessed_buffers(consumer, /*loads=*/true, /*stores=*/false);
  auto it = std::find_if(read.begin(), read.end(), [&](const Buffer& b) {
    return std::find(written.begin(), written.end(), b) != written.end();
  });
  if (it == read.end())
    return make_error("reverse_compute_at: block '{}' reads nothing that loop '{}' writes", c->name,
                      loop_name);
  const Buffer buffer = *it;
  bool pointwise = true;
  pre_order_visit(nest->store, [&](const ExprNode* e, const StmtNode*) {
    if (e == nullptr || e->kind != ExprKind::Load) return;
    const auto* load = static_cast<const LoadNode*>(e);
    if (load->buffer != buffer) return;
    pointwise &= load->indices.size() == store->indices.size() &&
                 std::equal(load->indices.begin(), load->indices.end(), store->indices.begin(),
                            [](const Expr& a, const Expr& b) { return a.same_as(b); });
  });
  if (!pointwise)
    return make_error(
        "reverse_compute_at: block '{}' reads %{} at other indices than those it writes; only "
        "pointwise consumers are supported",
        c->name, buffer->name);
  for (auto s = position(loop_path[common]) + 1; s != position(consumer); ++s) {
    for (const Buffer& used : sched::accessed_buffers(*s, /*loads=*/true, /*stores=*/true))
      if (used == buffer || used == out)
        return make_error(
            "reverse_compute_at: a statement between loop '{}' and block '{}' uses %{}", loop_name,
            c->name, used->name);
  }
  for (const Buffer& used : sched::accessed_buffers(l->body, /*loads=*/true, /*stores=*/true))
    if (used == out)
      return make_error("reverse_compute_at: loop '{}' uses %{}, which block '{}' writes",
                        loop_name, out->name, c->name);

  // The region one iteration writes, per dimension.
  UMA_TRY_ASSIGN(sched::Region region, sched::accessed_region(l->body, buffer, /*stores=*/true,
                                                              "reverse_compute_at", loop_name));
  std::vector<Expr>& lo = region.lo;
  std::vector<Expr>& hi = region.hi;
  if (lo.size() != nest->by_dimension.size() || !lo.front().defined())
    return make_error("reverse_compute_at: loop '{}' writes %{} with the wrong number of indices",
                      loop_name, buffer->name);

  // What is known at the loop: the ranges of the loops around it and of itself.
  Bounds known;
  for (const Stmt& s : loop_path) {
    if (const auto* outer = s.as<ForNode>()) {
      Interval first = bounds_of(outer->min, known);
      Interval last = bounds_of(outer->min + outer->extent - 1, known);
      known[outer->var.as<VarNode>()] = Interval{first.min, last.max};
    }
  }
  // The region is final at the end of an iteration only when no later iteration of the loop,
  // or of a loop around it that is not around the consumer, writes it again: in some
  // dimension, the region moves by at least its size from one iteration to the next.
  std::vector<std::int64_t> sizes;
  for (std::size_t d = 0; d < lo.size(); ++d) {
    auto size = as_const_int(simplify(hi[d] - lo[d] + 1, known));
    if (!size)
      return make_error(
          "reverse_compute_at: the region of %{} an iteration of loop '{}' writes has no "
          "constant size",
          buffer->name, loop_name);
    sizes.push_back(*size);
  }
  for (std::size_t k = common; k < loop_path.size(); ++k) {
    const auto* outer = loop_path[k].as<ForNode>();
    if (outer == nullptr) continue;
    bool moves = false;
    for (std::size_t d = 0; d < lo.size(); ++d) {
      Expr next = substitute(lo[d], {{outer->var.as<VarNode>(), outer->var + 1}});
      auto step = as_const_int(simplify(next - lo[d], known));
      moves |= step && std::abs(*step) >= sizes[d];
    }
    if (!moves)
      return make_error(
          "reverse_compute_at: iterations of loop '{}' write the same elements of %{} (a "
          "reduction over it), so an iteration of loop '{}' does not finish them",
          outer->var.as<VarNode>()->name, buffer->name, loop_name);
  }

  // Every element the consumer computed must be in some iteration's region, or moving it
  // would leave the others unwritten (a consumer larger than what the loop writes, as a
  // concatenation of a reduction with other values): over the iterations of the loops from
  // the common sequence down to this one, the regions reach from the consumer's first index
  // to its last in each dimension.
  Bounds inner;
  for (std::size_t k = common; k < loop_path.size(); ++k) {
    if (const auto* f = loop_path[k].as<ForNode>()) {
      Interval first = bounds_of(f->min, inner);
      Interval last = bounds_of(f->min + f->extent - 1, inner);
      inner[f->var.as<VarNode>()] = Interval{first.min, last.max};
    }
  }
  for (std::size_t d = 0; d < lo.size(); ++d) {
    const ForNode* old = nest->by_dimension[d];
    Interval before = bounds_of(simplify(lo[d] - old->min, inner), inner);
    Interval after = bounds_of(simplify(hi[d] + 1 - old->min - old->extent, inner), inner);
    if (!before.has_lower() || before.min > 0 || !after.has_upper() || after.max < 0)
      return make_error(
          "reverse_compute_at: block '{}' computes %{} beyond the elements of %{} that loop '{}' "
          "writes (dimension {}); moved under it, it would leave the others unwritten",
          c->name, out->name, buffer->name, loop_name, d);
  }

  // The consumer's loops over the region, clamped to what it computed before where the
  // region may stick out of it.
  std::unordered_map<const ForNode*, std::pair<Expr, Expr>> ranges;
  for (std::size_t d = 0; d < lo.size(); ++d) {
    const ForNode* old = nest->by_dimension[d];
    Expr begin = simplify(lo[d], known), end = simplify(hi[d] + 1, known);
    bool inside = bounds_of(simplify(begin - old->min, known), known).min >= 0 &&
                  bounds_of(simplify(old->min + old->extent - end, known), known).min >= 0;
    if (!inside) {
      begin = simplify(max(lo[d], old->min), known);
      end = simplify(min(hi[d] + 1, old->min + old->extent), known);
    }
    ranges[old] = {begin, simplify(end - begin, known)};
  }
  Stmt body = nest->store;
  for (auto loop_it = nest->nest.rbegin(); loop_it != nest->nest.rend(); ++loop_it) {
    const auto& [begin, extent] = ranges.at(*loop_it);
    body = ForNode::make((*loop_it)->var, begin, extent, ForKind::kSerial, body);
  }

  sched::BlockRemap remap;
  Stmt moved = BlockNode::make(c->name, c->reads, c->writes, body, c->attrs, c->iter_vars, c->init);
  sched::record(remap, consumer, moved);
  commit(sched::move_into_loop(func_.body, consumer.get(), l, moved, /*at_end=*/true, remap),
         remap);
  return Status::success();
}

}  // namespace uma::tir
