// The default recursion of visitors and mutators, and substitution.
#include "uma/tir/functor.h"

#include "uma/support/error.h"

namespace uma::tir {

// ---- Visitor ----

void Visitor::visit(const Expr& e) {
  if (!e.defined()) return;
  switch (e.kind()) {
#define UMA_TIR_DISPATCH(k) \
  case ExprKind::k:         \
    return visit(*e.as<k##Node>());
    UMA_FOR_EACH_TIR_EXPR(UMA_TIR_DISPATCH)
#undef UMA_TIR_DISPATCH
  }
}

void Visitor::visit(const Stmt& s) {
  if (!s.defined()) return;
  switch (s.kind()) {
#define UMA_TIR_DISPATCH(k) \
  case StmtKind::k:         \
    return visit(*s.as<k##Node>());
    UMA_FOR_EACH_TIR_STMT(UMA_TIR_DISPATCH)
#undef UMA_TIR_DISPATCH
  }
}

void Visitor::visit_buffer(const Buffer& buffer) {
  for (const Expr& e : buffer->shape) visit(e);
  for (const Expr& e : buffer->strides) visit(e);
}

void Visitor::visit(const IntImmNode&) {}
void Visitor::visit(const FloatImmNode&) {}
void Visitor::visit(const VarNode&) {}
void Visitor::visit(const CastNode& op) { visit(op.value); }
#define UMA_TIR_VISIT_BINARY(k)            \
  void Visitor::visit(const k##Node& op) { \
    visit(op.a);                           \
    visit(op.b);                           \
  }
UMA_FOR_EACH_TIR_BINARY(UMA_TIR_VISIT_BINARY)
#undef UMA_TIR_VISIT_BINARY
void Visitor::visit(const NotNode& op) { visit(op.a); }
void Visitor::visit(const SelectNode& op) {
  visit(op.condition);
  visit(op.true_value);
  visit(op.false_value);
}
void Visitor::visit(const LoadNode& op) {
  visit_buffer(op.buffer);
  for (const Expr& i : op.indices) visit(i);
}
void Visitor::visit(const RampNode& op) {
  visit(op.base);
  visit(op.stride);
}
void Visitor::visit(const BroadcastNode& op) { visit(op.value); }
void Visitor::visit(const CallNode& op) {
  for (const Expr& a : op.args) visit(a);
}
void Visitor::visit(const LetNode& op) {
  visit(op.value);
  visit(op.body);
}
void Visitor::visit(const AddressNode& op) {
  visit_buffer(op.buffer);
  for (const Expr& i : op.indices) visit(i);
}

void Visitor::visit(const LetStmtNode& op) {
  visit(op.value);
  visit(op.body);
}
void Visitor::visit(const ForNode& op) {
  visit(op.min);
  visit(op.extent);
  visit(op.body);
}
void Visitor::visit(const IfThenElseNode& op) {
  visit(op.condition);
  visit(op.then_case);
  visit(op.else_case);
}
void Visitor::visit(const StoreNode& op) {
  visit_buffer(op.buffer);
  visit(op.value);
  for (const Expr& i : op.indices) visit(i);
}
void Visitor::visit(const AllocateNode& op) {
  visit_buffer(op.buffer);
  visit(op.body);
}
void Visitor::visit(const SeqNode& op) {
  for (const Stmt& s : op.stmts) visit(s);
}
void Visitor::visit(const EvaluateNode& op) { visit(op.value); }
void Visitor::visit(const BlockNode& op) {
  for (const IterVar& iv : op.iter_vars) {
    visit(iv.extent);
    visit(iv.binding);
  }
  visit(op.init);
  visit(op.body);
}

// ---- Mutator ----

Expr Mutator::mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e.kind()) {
#define UMA_TIR_DISPATCH(k) \
  case ExprKind::k:         \
    return mutate(*e.as<k##Node>(), e);
    UMA_FOR_EACH_TIR_EXPR(UMA_TIR_DISPATCH)
#undef UMA_TIR_DISPATCH
  }
  return e;
}

Stmt Mutator::mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s.kind()) {
#define UMA_TIR_DISPATCH(k) \
  case StmtKind::k:         \
    return mutate(*s.as<k##Node>(), s);
    UMA_FOR_EACH_TIR_STMT(UMA_TIR_DISPATCH)
#undef UMA_TIR_DISPATCH
  }
  return s;
}

namespace {

// Mutates each element; `changed` is set when any element is a different handle.
std::vector<Expr> mutate_all(Mutator& m, const std::vector<Expr>& v, bool& changed,
                             Expr (Mutator::*fn)(const Expr&)) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const Expr& e : v) {
    out.push_back((m.*fn)(e));
    changed |= !out.back().same_as(e);
  }
  return out;
}

}  // namespace

Expr Mutator::mutate(const IntImmNode&, const Expr& self) { return self; }
Expr Mutator::mutate(const FloatImmNode&, const Expr& self) { return self; }
Expr Mutator::mutate(const VarNode&, const Expr& self) { return self; }
Expr Mutator::mutate(const CastNode& op, const Expr& self) {
  Expr value = mutate(op.value);
  return value.same_as(op.value) ? self : CastNode::make(op.type, value);
}
#define UMA_TIR_MUTATE_BINARY(k)                                            \
  Expr Mutator::mutate(const k##Node& op, const Expr& self) {               \
    Expr a = mutate(op.a), b = mutate(op.b);                                \
    return a.same_as(op.a) && b.same_as(op.b) ? self : k##Node::make(a, b); \
  }
UMA_FOR_EACH_TIR_BINARY(UMA_TIR_MUTATE_BINARY)
#undef UMA_TIR_MUTATE_BINARY
Expr Mutator::mutate(const NotNode& op, const Expr& self) {
  Expr a = mutate(op.a);
  return a.same_as(op.a) ? self : NotNode::make(a);
}
Expr Mutator::mutate(const SelectNode& op, const Expr& self) {
  Expr c = mutate(op.condition), t = mutate(op.true_value), f = mutate(op.false_value);
  if (c.same_as(op.condition) && t.same_as(op.true_value) && f.same_as(op.false_value)) return self;
  return SelectNode::make(c, t, f);
}
Expr Mutator::mutate(const LoadNode& op, const Expr& self) {
  bool changed = false;
  Buffer buffer = mutate_buffer(op.buffer);
  changed |= buffer != op.buffer;
  auto indices = mutate_all(*this, op.indices, changed, &Mutator::mutate);
  return changed ? LoadNode::make(buffer, std::move(indices)) : self;
}
Expr Mutator::mutate(const RampNode& op, const Expr& self) {
  Expr base = mutate(op.base), stride = mutate(op.stride);
  return base.same_as(op.base) && stride.same_as(op.stride)
             ? self
             : RampNode::make(base, stride, op.lanes);
}
Expr Mutator::mutate(const BroadcastNode& op, const Expr& self) {
  Expr value = mutate(op.value);
  return value.same_as(op.value) ? self : BroadcastNode::make(value, op.lanes);
}
Expr Mutator::mutate(const CallNode& op, const Expr& self) {
  bool changed = false;
  auto args = mutate_all(*this, op.args, changed, &Mutator::mutate);
  return changed ? CallNode::make(op.type, op.name, std::move(args), op.call_kind) : self;
}
Expr Mutator::mutate(const LetNode& op, const Expr& self) {
  Expr value = mutate(op.value), body = mutate(op.body);
  return value.same_as(op.value) && body.same_as(op.body) ? self
                                                          : LetNode::make(op.var, value, body);
}
Expr Mutator::mutate(const AddressNode& op, const Expr& self) {
  bool changed = false;
  Buffer buffer = mutate_buffer(op.buffer);
  changed |= buffer != op.buffer;
  auto indices = mutate_all(*this, op.indices, changed, &Mutator::mutate);
  return changed ? AddressNode::make(buffer, std::move(indices)) : self;
}

Stmt Mutator::mutate(const LetStmtNode& op, const Stmt& self) {
  Expr value = mutate(op.value);
  Stmt body = mutate(op.body);
  return value.same_as(op.value) && body.same_as(op.body) ? self
                                                          : LetStmtNode::make(op.var, value, body);
}
Stmt Mutator::mutate(const ForNode& op, const Stmt& self) {
  Expr min = mutate(op.min), extent = mutate(op.extent);
  Stmt body = mutate(op.body);
  if (min.same_as(op.min) && extent.same_as(op.extent) && body.same_as(op.body)) return self;
  return ForNode::make(op.var, min, extent, op.for_kind, body);
}
Stmt Mutator::mutate(const IfThenElseNode& op, const Stmt& self) {
  Expr c = mutate(op.condition);
  Stmt t = mutate(op.then_case), e = mutate(op.else_case);
  if (c.same_as(op.condition) && t.same_as(op.then_case) && e.same_as(op.else_case)) return self;
  return IfThenElseNode::make(c, t, e);
}
Stmt Mutator::mutate(const StoreNode& op, const Stmt& self) {
  bool changed = false;
  Buffer buffer = mutate_buffer(op.buffer);
  changed |= buffer != op.buffer;
  Expr value = mutate(op.value);
  changed |= !value.same_as(op.value);
  auto indices = mutate_all(*this, op.indices, changed, &Mutator::mutate);
  return changed ? StoreNode::make(buffer, value, std::move(indices)) : self;
}
Stmt Mutator::mutate(const AllocateNode& op, const Stmt& self) {
  Buffer buffer = mutate_buffer(op.buffer);
  Stmt body = mutate(op.body);
  return buffer == op.buffer && body.same_as(op.body) ? self : AllocateNode::make(buffer, body);
}
Stmt Mutator::mutate(const SeqNode& op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> stmts;
  stmts.reserve(op.stmts.size());
  for (const Stmt& s : op.stmts) {
    stmts.push_back(mutate(s));
    changed |= !stmts.back().same_as(s);
  }
  return changed ? SeqNode::make(std::move(stmts)) : self;
}
Stmt Mutator::mutate(const EvaluateNode& op, const Stmt& self) {
  Expr value = mutate(op.value);
  return value.same_as(op.value) ? self : EvaluateNode::make(value);
}
Stmt Mutator::mutate(const BlockNode& op, const Stmt& self) {
  bool changed = false;
  auto buffers = [&](const std::vector<Buffer>& in) {
    std::vector<Buffer> out;
    for (const Buffer& b : in) {
      out.push_back(mutate_buffer(b));
      changed |= out.back() != b;
    }
    return out;
  };
  auto reads = buffers(op.reads);
  auto writes = buffers(op.writes);
  std::vector<IterVar> iter_vars = op.iter_vars;
  for (IterVar& iv : iter_vars) {
    Expr extent = mutate(iv.extent), binding = mutate(iv.binding);
    changed |= !extent.same_as(iv.extent) || !binding.same_as(iv.binding);
    iv.extent = std::move(extent);
    iv.binding = std::move(binding);
  }
  Stmt init = mutate(op.init);
  changed |= !init.same_as(op.init);
  Stmt body = mutate(op.body);
  changed |= !body.same_as(op.body);
  return changed ? BlockNode::make(op.name, std::move(reads), std::move(writes), body, op.attrs,
                                   std::move(iter_vars), init)
                 : self;
}

// ---- Helpers ----

namespace {

class PreOrder final : public Visitor {
 public:
  explicit PreOrder(const std::function<void(const ExprNode*, const StmtNode*)>& f) : f_(f) {}
  using Visitor::visit;

 protected:
#define UMA_TIR_PRE_EXPR(k)                \
  void visit(const k##Node& op) override { \
    f_(&op, nullptr);                      \
    Visitor::visit(op);                    \
  }
  UMA_FOR_EACH_TIR_EXPR(UMA_TIR_PRE_EXPR)
#undef UMA_TIR_PRE_EXPR
#define UMA_TIR_PRE_STMT(k)                \
  void visit(const k##Node& op) override { \
    f_(nullptr, &op);                      \
    Visitor::visit(op);                    \
  }
  UMA_FOR_EACH_TIR_STMT(UMA_TIR_PRE_STMT)
#undef UMA_TIR_PRE_STMT

 private:
  const std::function<void(const ExprNode*, const StmtNode*)>& f_;
};

class Substitute final : public Mutator {
 public:
  explicit Substitute(const std::unordered_map<const VarNode*, Expr>& map) : map_(map) {}
  using Mutator::mutate;

 protected:
  Expr mutate(const VarNode& op, const Expr& self) override {
    auto it = map_.find(&op);
    return it == map_.end() ? self : it->second;
  }

 private:
  const std::unordered_map<const VarNode*, Expr>& map_;
};

}  // namespace

void pre_order_visit(const Stmt& s,
                     const std::function<void(const ExprNode*, const StmtNode*)>& f) {
  PreOrder(f).visit(s);
}

Expr substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map) {
  return map.empty() ? e : Substitute(map).mutate(e);
}

Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map) {
  return map.empty() ? s : Substitute(map).mutate(s);
}

}  // namespace uma::tir
