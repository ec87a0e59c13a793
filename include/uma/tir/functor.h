// Visitors and mutators of the loop IR. Both recurse into every child by default, so a
// pass overrides only the nodes it cares about (with `using Visitor::visit;` to keep the
// other overloads visible). A mutator returns its input unchanged (the same handle) when
// nothing below changed, so unchanged subtrees are shared, never copied.
#pragma once

#include <functional>
#include <unordered_map>

#include "uma/tir/ir.h"

namespace uma::tir {

class Visitor {
 public:
  virtual ~Visitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
#define UMA_TIR_VISIT_EXPR(k) virtual void visit(const k##Node& op);
  UMA_FOR_EACH_TIR_EXPR(UMA_TIR_VISIT_EXPR)
#undef UMA_TIR_VISIT_EXPR
#define UMA_TIR_VISIT_STMT(k) virtual void visit(const k##Node& op);
  UMA_FOR_EACH_TIR_STMT(UMA_TIR_VISIT_STMT)
#undef UMA_TIR_VISIT_STMT
  // Visits a buffer's shape and strides; called where a node names a buffer.
  virtual void visit_buffer(const Buffer& buffer);
};

class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);

 protected:
  // `self` is the handle of `op`, returned when nothing changed.
#define UMA_TIR_MUTATE_EXPR(k) virtual Expr mutate(const k##Node& op, const Expr& self);
  UMA_FOR_EACH_TIR_EXPR(UMA_TIR_MUTATE_EXPR)
#undef UMA_TIR_MUTATE_EXPR
#define UMA_TIR_MUTATE_STMT(k) virtual Stmt mutate(const k##Node& op, const Stmt& self);
  UMA_FOR_EACH_TIR_STMT(UMA_TIR_MUTATE_STMT)
#undef UMA_TIR_MUTATE_STMT
  // The buffer a load, store, address, allocation or block refers to; by default the same.
  // A pass that replaces buffers (flattening, moving into a scope) overrides this.
  virtual Buffer mutate_buffer(const Buffer& buffer) { return buffer; }
};

// Calls `f` on every statement and expression below `s` (and on `s`), parents before
// children; exactly one of the two pointers is set in each call.
void pre_order_visit(const Stmt& s, const std::function<void(const ExprNode*, const StmtNode*)>& f);

// Replaces variables by expressions (by identity).
Expr substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map);
Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map);

}  // namespace uma::tir
