// count-events: the counters of an accelerator's functional model (see uma/sim/count_events.h).
#include "uma/sim/count_events.h"

#include <algorithm>
#include <cstring>

#include "uma/tir/dma.h"
#include "uma/tir/functor.h"
#include "uma/tir/state.h"

namespace uma::sim {
namespace {

using namespace tir;

class PassCounters : public Mutator {
 public:
  PassCounters(std::size_t num_events, const std::vector<std::string>& functions, Buffer state)
      : row_bytes_(static_cast<std::int64_t>(num_events * sizeof(std::int64_t))),
        functions_(functions),
        state_(std::move(state)) {}
  using Mutator::mutate;

  std::int64_t layers() const { return layer_; }
  bool counted() const { return counted_; }

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    if (op.name != kTilesBlock) return Mutator::mutate(op, self);
    inside_ = true;
    Stmt result = Mutator::mutate(op, self);
    inside_ = false;
    ++layer_;
    return result;
  }

  Expr mutate(const CallNode& op, const Expr& self) override {
    if (!inside_ || op.call_kind != CallNode::CallKind::kExtern ||
        std::find(functions_.begin(), functions_.end(), op.name) == functions_.end())
      return Mutator::mutate(op, self);
    counted_ = true;
    std::vector<Expr> args = op.args;
    // Defined only when the state is: the first walk counts the layers for its size.
    if (state_ != nullptr) args.push_back(AddressNode::make(state_, {Expr(layer_ * row_bytes_)}));
    return CallNode::make(op.type, op.name, std::move(args), op.call_kind);
  }

 private:
  std::int64_t row_bytes_;
  const std::vector<std::string>& functions_;
  Buffer state_;
  std::int64_t layer_ = 0;
  bool inside_ = false, counted_ = false;
};

}  // namespace

tir::FuncPass count_events_pass(std::size_t num_events, std::vector<std::string> functions) {
  return {"count-events",
          [num_events, functions = std::move(functions)](const PrimFunc& func) -> Expected<PrimFunc> {
            PassCounters census(num_events, functions, Buffer());
            census.mutate(func.body);
            if (!census.counted() || num_events == 0) return func;
            PrimFunc result = func;
            UMA_TRY_ASSIGN(Buffer state,
                           add_state(result, census.layers() * static_cast<std::int64_t>(
                                                                   num_events * sizeof(std::int64_t)),
                                     "events"));
            result.body = PassCounters(num_events, functions, state).mutate(func.body);
            return result;
          }};
}

std::optional<std::vector<std::int64_t>> counted_events(const runtime::Executor& executor,
                                                       const std::string& function,
                                                       std::size_t layer, std::size_t num_events) {
  std::span<const std::byte> state = executor.state();
  for (const runtime::HostCall& call : executor.program().calls) {
    if (call.name != function) continue;
    for (const runtime::ArgLocation& arg : call.args) {
      if (arg.kind != runtime::ArgLocation::Kind::kState) continue;
      std::size_t row = num_events * sizeof(std::int64_t);
      std::size_t offset = static_cast<std::size_t>(arg.index) + layer * row;
      if (offset + row > state.size()) return std::nullopt;
      std::vector<std::int64_t> events(num_events);
      std::memcpy(events.data(), state.data() + offset, row);
      return events;
    }
  }
  return std::nullopt;
}

}  // namespace uma::sim
