// dnnl-load-state (TIR_PHASE_0): oneDNN's primitives, reordered weights and scratchpads
// created once, when the executor loads the model, and destroyed with it.
//
// Assumes: the function's calls of the kernel are the extern calls dnnl_kernel_<op>(args...)
// its composite lowerings made (calls.cc), each outside any loop.
// Guarantees: the function has a state of kSlotBytes per call (uma/tir/state.h); the k-th
// call becomes dnnl_kernel_<op>(&state[k * kSlotBytes], args...), the init calls
// dnnl_kernel_<op>_init(&state[k * kSlotBytes], args...) for each in order (with null for the
// buffers the function allocates itself, which do not exist at load time, and for arrays that
// hold one), the fini
// dnnl_kernel_release on each slot. A function without such calls is returned unchanged.
#include <fmt/format.h>

#include "backends/dnnl/dnnl.h"
#include "uma/tir/array.h"
#include "uma/tir/functor.h"
#include "uma/tir/state.h"

#include <algorithm>
#include <unordered_set>

namespace uma::backends::dnnl {
namespace {

using namespace tir;

bool is_entry(const CallNode& call) {
  return call.call_kind == CallNode::CallKind::kExtern && call.name.starts_with(kEntryPrefix);
}

Stmt call(DataType type, const std::string& name, std::vector<Expr> args) {
  return EvaluateNode::make(
      CallNode::make(type, name, std::move(args), CallNode::CallKind::kExtern));
}

class AddSlots : public Mutator {
 public:
  AddSlots(const PrimFunc& func, Buffer state) : state_(std::move(state)) {
    for (const Buffer& param : func.params) params_.insert(param.get());
  }

  using Mutator::mutate;

  std::vector<Stmt> inits, finis;

 protected:
  Expr mutate(const CallNode& op, const Expr& self) override {
    if (!is_entry(op)) return Mutator::mutate(op, self);
    Expr slot = AddressNode::make(state_, {Expr(next_slot_++ * kSlotBytes)});
    std::vector<Expr> args = {slot}, init_args = {slot};
    for (const Expr& arg : op.args) {
      args.push_back(arg);
      init_args.push_back(exists_at_load(arg) ? arg : null_pointer());
    }
    inits.push_back(call(op.type, op.name + std::string(kInitSuffix), std::move(init_args)));
    finis.push_back(call(op.type, std::string(kReleaseName), {slot}));
    return CallNode::make(op.type, op.name, std::move(args), op.call_kind);
  }

 private:
  static Expr null_pointer() { return CastNode::make(DataType::pointer(), Expr(std::int64_t{0})); }

  // Whether `arg` is no address of a buffer the function allocates while it runs, nor an
  // array holding one.
  bool exists_at_load(const Expr& arg) const {
    if (const auto* array = arg.as<CallNode>(); array != nullptr && array->name == kArrayIntrinsic)
      return std::all_of(array->args.begin(), array->args.end(),
                         [&](const Expr& element) { return exists_at_load(element); });
    const auto* address = arg.as<AddressNode>();
    return address == nullptr || params_.contains(address->buffer.get());
  }

  Buffer state_;
  std::unordered_set<const BufferNode*> params_;
  std::int64_t next_slot_ = 0;
};

}  // namespace

Expected<PrimFunc> add_load_state(const PrimFunc& func, const Target&) {
  std::int64_t calls = 0;
  pre_order_visit(func.body, [&](const ExprNode* e, const StmtNode*) {
    if (e != nullptr && e->kind == ExprKind::Call && is_entry(*static_cast<const CallNode*>(e)))
      ++calls;
  });
  if (calls == 0) return func;
  PrimFunc result = func;
  UMA_TRY_ASSIGN(Buffer state, add_state(result, calls * kSlotBytes, "dnnl_state"));
  AddSlots slots(func, state);
  result.body = slots.mutate(func.body);
  result.init = SeqNode::make(std::move(slots.inits));
  result.fini = SeqNode::make(std::move(slots.finis));
  return result;
}

}  // namespace uma::backends::dnnl
