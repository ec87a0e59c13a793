// contract-fma (the host's, TIR_PHASE_0): a float `a * b + c` (or `c + a * b`) becomes
// fma(a, b, c), rounded once instead of twice, so that a reduction's update is one FMA
// instruction (the generated C is compiled with -ffp-contract=off, which keeps every other
// expression as written). Results may differ from the reference in the last bit of each
// product, which the compiled models' tolerance allows.
#include "cpu.h"
#include "uma/tir/functor.h"

namespace uma::backends {
namespace {

using namespace tir;

class ContractFma : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  Expr mutate(const AddNode& op, const Expr& self) override {
    Expr a = mutate(op.a), b = mutate(op.b);
    DataType type = self.type();
    if (!type.handle && (type.dtype == DType::f32 || type.dtype == DType::f64)) {
      for (auto [product, addend] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
        if (const auto* mul = product->as<MulNode>())
          return CallNode::make(type, "fma", {mul->a, mul->b, *addend},
                                CallNode::CallKind::kIntrinsic);
      }
    }
    if (a.same_as(op.a) && b.same_as(op.b)) return self;
    return AddNode::make(a, b);
  }
};

}  // namespace

Expected<PrimFunc> contract_fma(const PrimFunc& func, const Target&) {
  PrimFunc result = func;
  result.body = ContractFma().mutate(func.body);
  return result;
}

}  // namespace uma::backends
