// parallelize-blocks: runs each block's outer loop in parallel (the thread-count option of
// host builds; the C generator makes it an OpenMP loop).
//
// Assumes blocked, multi-dimensional buffers (it runs before flattening). For each block,
// the loop chosen is the outermost one with more than one iteration, below only loops of
// one iteration (the batch loop of NCHW tensors); it becomes parallel when its iterations
// provably touch disjoint elements: every store in it to a buffer allocated outside it, and
// every load of such a buffer, has the loop's variable itself as the index of one
// dimension, the same for all of them. A block with a parallel loop already, or whose loop
// this cannot prove independent, or with less work than the threshold (the elements its
// stores write, each as often as its loops repeat it), is left as it is. Blocks inside
// blocks are not visited.
#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "uma/tir/functor.h"
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

// The dimension where `indices` is exactly `var`, if any.
std::optional<std::size_t> var_dimension(const std::vector<Expr>& indices, const VarNode* var) {
  for (std::size_t d = 0; d < indices.size(); ++d)
    if (indices[d].get() == var) return d;
  return std::nullopt;
}

// Whether iterations of `loop` touch disjoint elements of the buffers they write.
bool iterations_independent(const ForNode& loop) {
  const auto* var = loop.var.as<VarNode>();
  std::unordered_map<const BufferNode*, bool> local;  // allocated inside the loop
  std::unordered_map<const BufferNode*, std::size_t> written_at;
  bool ok = true, has_parallel = false;
  pre_order_visit(loop.body, [&](const ExprNode*, const StmtNode* s) {
    if (s == nullptr) return;
    if (s->kind == StmtKind::Allocate) local[static_cast<const AllocateNode*>(s)->buffer.get()];
    if (s->kind == StmtKind::For)
      has_parallel |= static_cast<const ForNode*>(s)->for_kind == ForKind::kParallel;
    if (s->kind != StmtKind::Store) return;
    const auto* store = static_cast<const StoreNode*>(s);
    if (local.count(store->buffer.get())) return;
    std::optional<std::size_t> d = var_dimension(store->indices, var);
    auto [it, added] = written_at.emplace(store->buffer.get(), d.value_or(0));
    ok &= d.has_value() && it->second == *d;
  });
  if (!ok || has_parallel) return false;
  pre_order_visit(loop.body, [&](const ExprNode* e, const StmtNode*) {
    if (e == nullptr) return;
    const std::vector<Expr>* indices = nullptr;
    const BufferNode* buffer = nullptr;
    if (e->kind == ExprKind::Load) {
      indices = &static_cast<const LoadNode*>(e)->indices;
      buffer = static_cast<const LoadNode*>(e)->buffer.get();
    } else if (e->kind == ExprKind::Address) {
      // An extern call may read or write anything through an address: unprovable.
      ok = false;
      return;
    } else {
      return;
    }
    auto it = written_at.find(buffer);
    if (it == written_at.end()) return;
    std::optional<std::size_t> d = var_dimension(*indices, var);
    ok &= d.has_value() && *d == it->second;
  });
  return ok;
}

// How many times the stores in `s` run, saturating; a loop of unknown extent counts as
// large.
std::int64_t store_count(const Stmt& s) {
  constexpr std::int64_t kLarge = std::numeric_limits<std::int64_t>::max();
  auto saturating_add = [](std::int64_t a, std::int64_t b) {
    std::int64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? kLarge : sum;
  };
  switch (s.kind()) {
    case StmtKind::Store:
      return 1;
    case StmtKind::For: {
      const auto& loop = *s.as<ForNode>();
      std::int64_t body = store_count(loop.body), product = 0;
      std::optional<std::int64_t> extent = as_const_int(loop.extent);
      if (!extent) return body == 0 ? 0 : kLarge;
      return __builtin_mul_overflow(body, std::max<std::int64_t>(*extent, 0), &product) ? kLarge
                                                                                        : product;
    }
    case StmtKind::Seq: {
      std::int64_t total = 0;
      for (const Stmt& child : s.as<SeqNode>()->stmts)
        total = saturating_add(total, store_count(child));
      return total;
    }
    case StmtKind::IfThenElse: {
      const auto& op = *s.as<IfThenElseNode>();
      return saturating_add(store_count(op.then_case),
                            op.else_case.defined() ? store_count(op.else_case) : 0);
    }
    case StmtKind::LetStmt:
      return store_count(s.as<LetStmtNode>()->body);
    case StmtKind::Allocate:
      return store_count(s.as<AllocateNode>()->body);
    case StmtKind::Block:
      return store_count(s.as<BlockNode>()->body);
    case StmtKind::Evaluate:
      return 0;
  }
  return 0;
}

class ParallelizeBlocks : public Mutator {
 public:
  explicit ParallelizeBlocks(std::int64_t min_work) : min_work_(min_work) {}
  using Mutator::mutate;

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    if (store_count(op.body) < min_work_) return self;
    Stmt body = parallelize(op.body);
    if (body.same_as(op.body)) return self;
    return BlockNode::make(op.name, op.reads, op.writes, body, op.attrs, op.iter_vars, op.init);
  }

 private:
  // The first loop of more than one iteration under loops of one, made parallel.
  Stmt parallelize(const Stmt& s) {
    const ForNode* loop = s.as<ForNode>();
    if (loop == nullptr || loop->for_kind != ForKind::kSerial) return s;
    std::optional<std::int64_t> extent = as_const_int(loop->extent);
    if (extent && *extent == 1) {
      Stmt body = parallelize(loop->body);
      if (body.same_as(loop->body)) return s;
      return ForNode::make(loop->var, loop->min, loop->extent, loop->for_kind, body);
    }
    if (!iterations_independent(*loop)) return s;
    return ForNode::make(loop->var, loop->min, loop->extent, ForKind::kParallel, loop->body);
  }

  std::int64_t min_work_;
};

}  // namespace

FuncPass parallelize_blocks_pass(std::int64_t min_work) {
  return {"parallelize-blocks", [min_work](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = ParallelizeBlocks(min_work).mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            return out;
          }};
}

}  // namespace uma::tir
