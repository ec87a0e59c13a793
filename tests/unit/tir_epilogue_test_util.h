// The convolution of tir_schedule_test_util.h as lowering emits a reduction with an
// epilogue: the reduction block accumulating into an allocated %acc, then a pointwise block
// copying it to %out.
#pragma once

#include "tir_schedule_test_util.h"
#include "uma/tir/functor.h"

namespace uma::tir::testing_schedule {

// Replaces one buffer by another everywhere.
class RenameBuffer final : public Mutator {
 public:
  RenameBuffer(Buffer from, Buffer to) : from_(std::move(from)), to_(std::move(to)) {}
  using Mutator::mutate;

 protected:
  Buffer mutate_buffer(const Buffer& b) override { return b == from_ ? to_ : b; }

 private:
  Buffer from_, to_;
};

// The reduction block accumulates into an allocated %acc; block conv2d_nchw_epilogue then
// copies it to %out, as lowering does for a reduction with an epilogue.
inline PrimFunc with_epilogue(const ConvShape& sh) {
  PrimFunc func = conv2d_reduction(sh);
  const Buffer out = func.params[2];
  Buffer acc = make_buffer("acc", DType::f32, out->shape);
  Stmt conv = RenameBuffer(out, acc).mutate(func.body);
  std::vector<Var> vars;
  for (const char* name : {"i0", "i1", "i2", "i3"}) vars.push_back(VarNode::make(name));
  std::vector<Expr> indices(vars.begin(), vars.end());
  Stmt copy = StoreNode::make(out, LoadNode::make(acc, indices), indices);
  for (std::size_t d = 4; d-- > 0;) copy = loop(vars[d], out->shape[d], copy);
  Stmt epilogue = BlockNode::make("conv2d_nchw_epilogue", {acc}, {out}, copy);
  func.body = AllocateNode::make(acc, SeqNode::make({conv, epilogue}));
  return func;
}

}  // namespace uma::tir::testing_schedule
