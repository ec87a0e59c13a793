// unroll: loops become one copy of their body per iteration.
//
// Assumes nothing.
// Guarantees: a loop marked unrolled with a constant extent of at most max_extent, and a
// serial loop with a constant extent of at most auto_max_extent, is replaced by the sequence
// of its body's copies for min, min + 1, ... in order, its variable replaced by the value
// (left unsimplified: `%A[0 * 4 + j]`; simplify folds it). Inner loops are unrolled first.
// A loop of no iterations vanishes. Loops marked unrolled with a symbolic or larger extent
// stay loops (the C code generator asks the C compiler to unroll those of constant extent).
// Copies share the variables and buffers bound inside the body: each copy binds them in
// its own scope, one after the other.
#include "uma/tir/functor.h"
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

class Unroll final : public Mutator {
 public:
  explicit Unroll(const UnrollOptions& options) : options_(options) {}
  using Mutator::mutate;

 protected:
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto& loop = *visited.as<ForNode>();
    auto extent = as_const_int(loop.extent);
    if (!extent) return visited;
    bool marked = loop.for_kind == ForKind::kUnrolled && *extent <= options_.max_extent;
    bool small = loop.for_kind == ForKind::kSerial && *extent <= options_.auto_max_extent;
    if (!marked && !small) return visited;
    std::vector<Stmt> copies;
    auto min = as_const_int(loop.min);
    for (std::int64_t k = 0; k < *extent; ++k) {
      Expr value = min ? IntImmNode::make(loop.var.type(), *min + k)
                       : loop.min + IntImmNode::make(loop.var.type(), k);
      copies.push_back(substitute(loop.body, {{loop.var.as<VarNode>(), value}}));
    }
    return SeqNode::make(std::move(copies));
  }

 private:
  const UnrollOptions& options_;
};

}  // namespace

FuncPass unroll_pass(UnrollOptions options) {
  return {"unroll", [options](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = Unroll(options).mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            return out;
          }};
}

}  // namespace uma::tir
