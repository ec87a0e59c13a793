// The DMA intrinsics (see uma/tir/dma.h).
#include "uma/tir/dma.h"

namespace uma::tir {
namespace {

Stmt intrinsic(std::string_view name, std::vector<Expr> args) {
  return EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), std::string(name),
                                           std::move(args), CallNode::CallKind::kIntrinsic));
}

}  // namespace

Stmt dma_start(Expr queue, Expr dst, Expr src, Expr row_bytes, Expr rows, Expr dst_stride,
               Expr src_stride) {
  return intrinsic(kDmaStart, {std::move(queue), std::move(dst), std::move(src),
                               std::move(row_bytes), std::move(rows), std::move(dst_stride),
                               std::move(src_stride)});
}

Stmt dma_wait(Expr queue) { return intrinsic(kDmaWait, {std::move(queue)}); }

const CallNode* as_dma_call(const Stmt& s, std::string_view name) {
  const auto* evaluate = s.as<EvaluateNode>();
  if (evaluate == nullptr) return nullptr;
  const auto* call = evaluate->value.as<CallNode>();
  if (call == nullptr || call->call_kind != CallNode::CallKind::kIntrinsic || call->name != name)
    return nullptr;
  return call;
}

}  // namespace uma::tir
