// lower-dma: the DMA intrinsics become the engine's calls (see uma/tiling/passes.h).
#include "uma/tiling/passes.h"
#include "uma/tir/dma.h"
#include "uma/tir/functor.h"

namespace uma::tiling {
namespace {

using namespace tir;

class LowerDma : public Mutator {
 public:
  explicit LowerDma(const DmaEngine& engine) : engine_(engine) {}
  using Mutator::mutate;

 protected:
  Expr mutate(const CallNode& op, const Expr& self) override {
    if (op.call_kind != CallNode::CallKind::kIntrinsic) return Mutator::mutate(op, self);
    bool own = !engine_.start_function.empty();
    std::string function;
    if (op.name == kDmaStart)
      function = own ? engine_.start_function : std::string(kCoreDmaStart);
    else if (op.name == kDmaWait)
      function = own ? engine_.wait_function : std::string(kCoreDmaWait);
    else
      return Mutator::mutate(op, self);
    return CallNode::make(op.type, function, op.args, CallNode::CallKind::kExtern);
  }

 private:
  const DmaEngine& engine_;
};

}  // namespace

tir::FuncPass lower_dma_pass(const DmaEngine& engine) {
  return {"lower-dma", [engine](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = LowerDma(engine).mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc result = func;
            result.body = body;
            if (result.init.defined()) result.init = LowerDma(engine).mutate(result.init);
            return result;
          }};
}

}  // namespace uma::tiling
