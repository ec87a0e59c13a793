// decompose-reductions: every block that still has an init (a reduction as lowering makes
// it, which no backend scheduled) gets it decomposed at its outermost reduce loop
// (Schedule::decompose_reduction), so that later passes and code generation see plain loop
// nests: the init block, then the reduce loops, inside the spatial loops. First, a
// pointwise block right after it in a sequence that reads the buffer it writes (its
// epilogue) moves under its innermost spatial loop (Schedule::reverse_compute_at), so that
// compact-buffers then shrinks the accumulator to the point: lowering's reduction with an
// epilogue becomes one loop nest with a scalar accumulator again.
//
// Then every block drops its iteration variables: they serve scheduling, which is over by
// TIR_PHASE_1, and later passes do not keep them (simplify removes a loop of one iteration,
// to which a binding may refer).
//
// Assumes the verifier's rules on iteration variables. Each block (with its epilogue) is
// rewritten on its own, as the whole body of a scratch function, so that blocks of the same
// name elsewhere do not matter. An epilogue that reverse_compute_at does not support stays
// where it is (a full-size accumulator, still correct). A block with an init but no loop of
// a reduce iteration variable (a reduction over nothing) is an Error.
#include <algorithm>
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

// `reduction` with `consumer` moved under its innermost spatial loop (the last loop, in
// get_loops order, before the first reduce loop), when that loop exists and
// reverse_compute_at supports the pair.
std::optional<Stmt> fuse_epilogue(const Stmt& reduction, const Stmt& consumer) {
  const auto* block = reduction.as<BlockNode>();
  const auto* epilogue = consumer.as<BlockNode>();
  if (block == nullptr || epilogue == nullptr || !block->init.defined() ||
      block->writes.size() != 1 || epilogue->init.defined() || block->name == epilogue->name ||
      std::find(epilogue->reads.begin(), epilogue->reads.end(), block->writes.front()) ==
          epilogue->reads.end())
    return std::nullopt;
  PrimFunc scratch;
  scratch.name = block->name;
  scratch.body = SeqNode::make({reduction, consumer});
  Schedule sch(std::move(scratch));
  Expected<BlockRef> ref = sch.get_block(block->name);
  Expected<BlockRef> consumer_ref = sch.get_block(epilogue->name);
  if (!ref.ok() || !consumer_ref.ok()) return std::nullopt;
  Expected<std::vector<LoopRef>> loops = sch.get_loops(*ref);
  if (!loops.ok()) return std::nullopt;
  std::unordered_set<const VarNode*> reduce = reduce_vars(*block);
  std::optional<LoopRef> innermost;
  for (const LoopRef& loop : *loops) {
    if (reduce.contains(loop.var.as<VarNode>())) break;
    innermost = loop;
  }
  if (!innermost || !sch.reverse_compute_at(*consumer_ref, *innermost).ok()) return std::nullopt;
  return sch.func().body;
}

class DecomposeReductions final : public Mutator {
 public:
  using Mutator::mutate;
  std::optional<Error> error;

 protected:
  Stmt mutate(const SeqNode& op, const Stmt& self) override {
    std::vector<Stmt> stmts;
    bool fused = false;
    for (const Stmt& s : op.stmts) {
      if (!stmts.empty()) {
        if (std::optional<Stmt> both = fuse_epilogue(stmts.back(), s)) {
          stmts.back() = *both;
          fused = true;
          continue;
        }
      }
      stmts.push_back(s);
    }
    if (!fused) return Mutator::mutate(op, self);
    Stmt seq = SeqNode::make(std::move(stmts));
    if (const auto* rest = seq.as<SeqNode>()) return Mutator::mutate(*rest, seq);
    return mutate(seq);
  }
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

// Every block without its iteration variables.
class DropIterVars final : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto* block = visited.as<BlockNode>();
    if (block->iter_vars.empty()) return visited;
    return BlockNode::make(block->name, block->reads, block->writes, block->body, block->attrs);
  }
};

}  // namespace

FuncPass decompose_reductions_pass() {
  return {"decompose-reductions", [](const PrimFunc& func) -> Expected<PrimFunc> {
            DecomposeReductions pass;
            Stmt body = pass.mutate(func.body);
            if (pass.error) return *pass.error;
            body = DropIterVars().mutate(body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = body;
            return out;
          }};
}

}  // namespace uma::tir
