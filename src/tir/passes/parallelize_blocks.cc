// parallelize-blocks: runs each block's outer loop in parallel (the thread-count option of
// host builds; the C generator makes it an OpenMP loop).
//
// Assumes blocked, multi-dimensional buffers (it runs before flattening). For each block,
// the loop chosen is the outermost one with more than one iteration, below only loops of
// one iteration (the batch loop of NCHW tensors); it becomes parallel when its iterations
// provably touch disjoint elements: every store in it to a buffer allocated outside it, and
// every load of such a buffer, has the loop's variable itself as the index of one
// dimension, the same for all of them. A block with a parallel loop already, or whose loop
// this cannot prove independent, is left as it is. Blocks inside blocks are not visited.
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

class ParallelizeBlocks : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
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
};

}  // namespace

FuncPass parallelize_blocks_pass() {
  return {"parallelize-blocks", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = ParallelizeBlocks().mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            return out;
          }};
}

}  // namespace uma::tir
