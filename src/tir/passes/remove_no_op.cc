// remove-no-op: statements that do nothing go.
//
// Assumes: intrinsic calls have no effect (they are math), but for the DMA intrinsics
// (uma/tir/dma.h), which move memory; extern calls may have one.
// Guarantees: the function does the same, and no longer holds
// - sequences with no statement (an empty function body is the empty sequence), nor
//   statements that evaluate an expression without an extern call or DMA intrinsic;
// - loops of a constant extent <= 0, or whose body does nothing;
// - stores of a value loaded from the very element stored to (`%A[i] = %A[i]`);
// - `if`s with a constant condition (the branch taken replaces them), or whose branches do
//   nothing (an empty then-branch with an else becomes `if (!c)`);
// - lets and blocks whose body does nothing;
// - allocations whose buffer nothing reads: never loaded, addressed or passed by its data
//   variable. Their stores go with them (unless a store calls an extern function), and
//   so does the buffer from blocks' read and write lists.
// Expressions with an extern call (conditions, bounds, values) are kept where they would be
// evaluated.
#include <algorithm>

#include "uma/tir/dma.h"
#include "uma/tir/functor.h"
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

Stmt no_op() { return SeqNode::make({}); }

bool is_no_op(const Stmt& s) {
  if (const auto* seq = s.as<SeqNode>()) return seq->stmts.empty();
  return false;
}

class FindsExternCall final : public Visitor {
 public:
  bool found = false;
  using Visitor::visit;

 protected:
  void visit(const CallNode& op) override {
    found |=
        op.call_kind == CallNode::CallKind::kExtern || op.name == kDmaStart || op.name == kDmaWait;
    Visitor::visit(op);
  }
};

bool has_effect(const Expr& e) {
  FindsExternCall finder;
  finder.visit(e);
  return finder.found;
}

bool has_effect(const std::vector<Expr>& exprs) {
  return std::any_of(exprs.begin(), exprs.end(), [](const Expr& e) { return has_effect(e); });
}

// Whether anything below reads the buffer of data variable `data`: a load, an address, the
// variable itself, or a store that calls an extern function (kept for the effect).
class ReadsBuffer final : public Visitor {
 public:
  explicit ReadsBuffer(const VarNode* data) : data_(data) {}
  bool found = false;
  using Visitor::visit;

 protected:
  void visit(const LoadNode& op) override {
    found |= op.buffer->data.as<VarNode>() == data_;
    Visitor::visit(op);
  }
  void visit(const AddressNode& op) override {
    found |= op.buffer->data.as<VarNode>() == data_;
    Visitor::visit(op);
  }
  void visit(const VarNode& op) override { found |= &op == data_; }
  void visit(const StoreNode& op) override {
    found |=
        op.buffer->data.as<VarNode>() == data_ && (has_effect(op.value) || has_effect(op.indices));
    Visitor::visit(op);
  }

 private:
  const VarNode* data_;
};

// Removes the stores into a buffer nothing reads, and the buffer from blocks' lists.
class DropBuffer final : public Mutator {
 public:
  explicit DropBuffer(const VarNode* data) : data_(data) {}
  using Mutator::mutate;

 protected:
  Stmt mutate(const StoreNode& op, const Stmt& self) override {
    return op.buffer->data.as<VarNode>() == data_ ? no_op() : self;
  }
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    Stmt body = mutate(op.body);
    auto keep = [&](std::vector<Buffer> buffers) {
      std::erase_if(buffers, [&](const Buffer& b) { return b->data.as<VarNode>() == data_; });
      return buffers;
    };
    std::vector<Buffer> reads = keep(op.reads), writes = keep(op.writes);
    Stmt init = mutate(op.init);
    if (body.same_as(op.body) && init.same_as(op.init) && reads.size() == op.reads.size() &&
        writes.size() == op.writes.size())
      return self;
    return BlockNode::make(op.name, std::move(reads), std::move(writes), body, op.attrs,
                           op.iter_vars, init);
  }

 private:
  const VarNode* data_;
};

class RemoveNoOp final : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  Stmt mutate(const SeqNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto* seq = visited.as<SeqNode>();
    if (seq == nullptr || std::none_of(seq->stmts.begin(), seq->stmts.end(), is_no_op))
      return visited;
    std::vector<Stmt> kept;
    for (const Stmt& s : seq->stmts)
      if (!is_no_op(s)) kept.push_back(s);
    return SeqNode::make(std::move(kept));
  }

  Stmt mutate(const ForNode& op, const Stmt& self) override {
    auto extent = as_const_int(op.extent);
    bool pure_bounds = !has_effect(op.min) && !has_effect(op.extent);
    if (extent && *extent <= 0 && pure_bounds) return no_op();
    Stmt visited = Mutator::mutate(op, self);
    if (is_no_op(visited.as<ForNode>()->body) && pure_bounds) return no_op();
    return visited;
  }

  Stmt mutate(const IfThenElseNode& op, const Stmt& self) override {
    if (auto condition = as_const_int(op.condition)) {
      if (*condition != 0) return mutate(op.then_case);
      return op.else_case.defined() ? mutate(op.else_case) : no_op();
    }
    Stmt then_case = mutate(op.then_case);
    Stmt else_case = op.else_case.defined() ? mutate(op.else_case) : Stmt();
    if (else_case.defined() && is_no_op(else_case)) else_case = Stmt();
    if (is_no_op(then_case)) {
      if (!else_case.defined()) return has_effect(op.condition) ? keep_condition(op) : no_op();
      return IfThenElseNode::make(!op.condition, else_case);
    }
    if (then_case.same_as(op.then_case) && else_case.same_as(op.else_case)) return self;
    return IfThenElseNode::make(op.condition, then_case, else_case);
  }

  Stmt mutate(const StoreNode& op, const Stmt& self) override {
    const auto* load = op.value.as<LoadNode>();
    if (load && !has_effect(op.indices) && load->buffer->data.same_as(op.buffer->data) &&
        load->buffer->dtype == op.buffer->dtype && load->indices.size() == op.indices.size() &&
        std::equal(op.indices.begin(), op.indices.end(), load->indices.begin(), equal))
      return no_op();
    return Mutator::mutate(op, self);
  }

  Stmt mutate(const EvaluateNode& op, const Stmt& self) override {
    return has_effect(op.value) ? self : no_op();
  }

  Stmt mutate(const LetStmtNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto& let = *visited.as<LetStmtNode>();
    return is_no_op(let.body) && !has_effect(let.value) ? no_op() : visited;
  }

  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    return is_no_op(visited.as<BlockNode>()->body) ? no_op() : visited;
  }

  Stmt mutate(const AllocateNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto& allocate = *visited.as<AllocateNode>();
    if (is_no_op(allocate.body)) return no_op();
    const auto* data = allocate.buffer->data.as<VarNode>();
    ReadsBuffer reads(data);
    reads.visit(allocate.body);
    if (reads.found) return visited;
    // Without its stores, the body may hold more to remove (loops that only filled it).
    return mutate(DropBuffer(data).mutate(allocate.body));
  }

 private:
  // `if (c) {}` whose condition calls an extern function: the call stays.
  static Stmt keep_condition(const IfThenElseNode& op) { return EvaluateNode::make(op.condition); }
};

}  // namespace

FuncPass remove_no_op_pass() {
  return {"remove-no-op", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = RemoveNoOp().mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            return out;
          }};
}

}  // namespace uma::tir
