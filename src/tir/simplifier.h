// The simplifier's mutator, shared by its files: simplify_expr.cc (dispatch, folding and
// the rules of every type), simplify_index.cc (i32/i64 arithmetic: linear forms, division,
// min/max, comparisons) and simplify_stmt.cc (statements, and the bounds they imply).
#pragma once

#include "uma/tir/functor.h"
#include "uma/tir/interval.h"

namespace uma::tir {

struct LinearForm;

// Simplifies bottom-up: a node's operands first, then the node's rules, which see only
// simplified operands. Rules build their results through binary(), so a result is
// simplified too.
class Simplifier : public Mutator {
 public:
  explicit Simplifier(Bounds known) : bounds_(std::move(known)) {}
  using Mutator::mutate;

  // `a op b` for simplified operands, simplified.
  Expr binary(ExprKind kind, const Expr& a, const Expr& b);

 protected:
  Expr mutate(const CastNode& op, const Expr& self) override;
#define UMA_TIR_SIMPLIFY_BINARY(k) Expr mutate(const k##Node& op, const Expr& self) override;
  UMA_FOR_EACH_TIR_BINARY(UMA_TIR_SIMPLIFY_BINARY)
#undef UMA_TIR_SIMPLIFY_BINARY
  Expr mutate(const NotNode& op, const Expr& self) override;
  Expr mutate(const SelectNode& op, const Expr& self) override;
  Expr mutate(const RampNode& op, const Expr& self) override;
  Expr mutate(const BroadcastNode& op, const Expr& self) override;
  Expr mutate(const LetNode& op, const Expr& self) override;

  Stmt mutate(const LetStmtNode& op, const Stmt& self) override;
  Stmt mutate(const ForNode& op, const Stmt& self) override;
  Stmt mutate(const IfThenElseNode& op, const Stmt& self) override;
  Stmt mutate(const SeqNode& op, const Stmt& self) override;
  Stmt mutate(const AllocateNode& op, const Stmt& self) override;

 private:
  template <typename T>
  Expr simplify_binary(const T& op, const Expr& self);

  // Each rule returns the simplified `a op b`, or an undefined Expr when it does not apply.
  Expr rewrite(ExprKind kind, const Expr& a, const Expr& b);
  Expr rewrite_vector(ExprKind kind, const Expr& a, const Expr& b);
  Expr rewrite_logical(ExprKind kind, const Expr& a, const Expr& b);
  Expr rewrite_identity(ExprKind kind, const Expr& a, const Expr& b);
  // simplify_index.cc
  Expr rewrite_index(ExprKind kind, const Expr& a, const Expr& b);
  Expr rewrite_linear(ExprKind kind, const Expr& a, const Expr& b);
  Expr simplify_sum(const Expr& self);
  bool collect_sum(const Expr& e, std::int64_t scale, LinearForm& form);
  void merge_div_mod(LinearForm& form);
  Expr rewrite_div(const Expr& a, const Expr& b);
  Expr rewrite_mod(const Expr& a, const Expr& b);
  Expr rewrite_min_max(ExprKind kind, const Expr& a, const Expr& b);
  Expr rewrite_compare(ExprKind kind, const Expr& a, const Expr& b);

  Expr negate_condition(const Expr& condition);
  Expr ramp(const Expr& base, const Expr& stride, std::uint16_t lanes);
  // Narrows the bounds of variables compared with constants in `condition`, knowing that
  // it is `truth`.
  void refine(const Expr& condition, bool truth);

  Interval bounds(const Expr& e) const { return bounds_of(e, bounds_); }

 protected:
  Bounds bounds_;
};

// The types whose arithmetic is canonicalized and reasoned about with bounds: the signed
// types whose overflow is undefined in C.
inline bool is_index_type(DataType type) {
  return type.is_scalar() && (type.dtype == DType::i64 || type.dtype == DType::i32);
}

// The expression `a op b` of a binary kind, unsimplified.
Expr make_binary(ExprKind kind, const Expr& a, const Expr& b);

// Whether `var` occurs in the node.
bool uses_var(const Stmt& s, const VarNode* var);
bool uses_var(const Expr& e, const VarNode* var);

// The statement that does nothing, and the test for it.
Stmt no_op();
bool is_no_op(const Stmt& s);

}  // namespace uma::tir
