// decompose-reductions: every block that still has an init (a reduction as lowering makes
// it, which no backend scheduled) gets it decomposed at its outermost reduce loop
// (Schedule::decompose_reduction), so that later passes and code generation see plain loop
// nests: the init block, then the reduce loops, inside the spatial loops.
//
// Assumes the verifier's rules on iteration variables. Each block is decomposed on its
// own, as the whole body of a scratch function, so that blocks of the same name do not
// matter. A block with an init but no loop of a reduce iteration variable (a reduction
// over nothing) is an Error.
#include <optional>
#include <unordered_set>

#include "uma/tir/functor.h"
#include "uma/tir/passes.h"
#include "uma/tir/schedule.h"

namespace uma::tir {
namespace {

// The loop variables of the block's reduce iteration variables.
std::unordered_set<const VarNode*> reduce_vars(const BlockNode& block) {
  std::unordered_set<const VarNode*> vars;
  for (const IterVar& iv : block.iter_vars) {
    if (iv.kind != IterKind::kReduce) continue;
    pre_order_visit(EvaluateNode::make(iv.binding), [&](const ExprNode* e, const StmtNode*) {
      if (e != nullptr && e->kind == ExprKind::Var) vars.insert(static_cast<const VarNode*>(e));
    });
  }
  return vars;
}

// The block `self` with its init decomposed.
Expected<Stmt> decompose(const BlockNode& block, const Stmt& self) {
  PrimFunc scratch;
  scratch.name = block.name;
  scratch.body = self;
  Schedule sch(std::move(scratch));
  UMA_TRY_ASSIGN(BlockRef ref, sch.get_block(block.name));
  UMA_TRY_ASSIGN(std::vector<LoopRef> loops, sch.get_loops(ref));
  std::unordered_set<const VarNode*> reduce = reduce_vars(block);
  for (const LoopRef& loop : loops) {
    if (!reduce.contains(loop.var.as<VarNode>())) continue;
    UMA_TRY_ASSIGN(BlockRef init, sch.decompose_reduction(ref, loop));
    (void)init;
    return sch.func().body;
  }
  return make_error("block '{}' has an init but no loop of a reduce iteration variable",
                    block.name);
}

class DecomposeReductions final : public Mutator {
 public:
  using Mutator::mutate;
  std::optional<Error> error;

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);  // blocks nested in it first
    const auto* block = visited.as<BlockNode>();
    if (error || !block->init.defined()) return visited;
    Expected<Stmt> decomposed = decompose(*block, visited);
    if (decomposed.ok()) return std::move(decomposed).value();
    error = decomposed.error();
    return visited;
  }
};

}  // namespace

FuncPass decompose_reductions_pass() {
  return {"decompose-reductions", [](const PrimFunc& func) -> Expected<PrimFunc> {
            DecomposeReductions pass;
            Stmt body = pass.mutate(func.body);
            if (pass.error) return *pass.error;
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = body;
            return out;
          }};
}

}  // namespace uma::tir
