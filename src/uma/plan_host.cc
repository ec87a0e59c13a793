// plan_host: the host function as a list of calls whose arguments point into the inputs,
// the outputs, the weights and the arena (see uma/uma/build_stages.h).
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "uma/lower/lower.h"
#include "uma/tir/passes.h"
#include "uma/tir/run_checks.h"
#include "uma/tir/state.h"
#include "uma/uma/build_stages.h"

namespace uma::build {
namespace {

using runtime::ArgLocation;

// Where one tensor of the host lives while the calls are being collected.
struct Loc {
  enum class Kind : std::uint8_t { kInput, kWeight, kBuffer, kState, kError };
  Kind kind;
  std::size_t index;  // input, weight, buffer or state number (0 for the error record)
};

// A tensor some call writes: in the arena, or an output buffer when it is an output.
struct BufferInfo {
  TensorType type;
  std::size_t first = 0, last = 0;  // the calls writing it and reading it last
  std::optional<std::size_t> output;
};

void flatten_type(const Type& type, std::vector<TensorType>& out) {
  if (type.is_tensor()) {
    out.push_back(type.tensor());
    return;
  }
  for (const Type& field : type.tuple().fields) flatten_type(field, out);
}

std::size_t leaf_count(const Type& type) {
  std::vector<TensorType> leaves;
  flatten_type(type, leaves);
  return leaves.size();
}

// The element type and count of a parameter buffer, when its shape is constant.
bool buffer_matches(const tir::Buffer& buffer, const TensorType& type) {
  if (buffer->dtype != type.dtype) return false;
  std::int64_t elements = 1;
  for (const tir::Expr& extent : buffer->shape) {
    std::optional<std::int64_t> value = tir::as_const_int(extent);
    if (!value) return false;
    elements *= *value;
  }
  return elements == type.num_elements();
}

class HostPlanner {
 public:
  HostPlanner(const Function& host, const std::vector<LoweredCall>& lowered)
      : host_(host), lowered_(lowered) {
    for (std::size_t i = 0; i < lowered.size(); ++i) index_.emplace(lowered[i].callee, i);
  }

  Expected<PlannedHost> run() {
    auto program = std::make_shared<runtime::HostProgram>();
    for (std::size_t p = 0; p < host_.num_params(); ++p) {
      std::vector<Loc>& locs = where_[host_.param(p)];
      std::vector<TensorType> leaves;
      flatten_type(host_.param(p)->type(), leaves);
      for (TensorType& leaf : leaves) {
        locs.push_back({Loc::Kind::kInput, program->inputs.size()});
        program->inputs.push_back(std::move(leaf));
      }
    }
    for (const Node* node : live_nodes()) UMA_TRY(visit(*node));

    // Each output is written in place by the call computing it, or copied after the calls.
    std::vector<Loc> outputs;
    for (const Value* output : host_.outputs()) {
      const std::vector<Loc>& locs = where_.at(output);
      outputs.insert(outputs.end(), locs.begin(), locs.end());
      flatten_type(output->type(), program->outputs);
    }
    std::vector<std::pair<std::size_t, Loc>> copies;  // (output, source)
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const Loc& loc = outputs[k];
      if (loc.kind == Loc::Kind::kBuffer && !buffers_[loc.index].output)
        buffers_[loc.index].output = k;
      else
        copies.emplace_back(k, loc);
    }

    // The arena: the buffers no output holds.
    std::vector<runtime::BufferLifetime> lifetimes;
    std::vector<std::size_t> in_arena;
    for (std::size_t b = 0; b < buffers_.size(); ++b) {
      if (buffers_[b].output) continue;
      in_arena.push_back(b);
      lifetimes.push_back({buffers_[b].type.num_bytes(), buffers_[b].first, buffers_[b].last});
    }
    PlannedHost planned;
    planned.memory = runtime::plan_memory(lifetimes);
    arena_offset_.assign(buffers_.size(), 0);
    for (std::size_t i = 0; i < in_arena.size(); ++i)
      arena_offset_[in_arena[i]] = planned.memory.offsets[i];
    program->arena_size = planned.memory.arena_size;
    UMA_TRY_ASSIGN(program->weights, runtime::Weights::hold(weights_));
    // Each call's state at a 64-byte boundary of the executor's state block.
    for (std::int64_t bytes : state_bytes_) {
      state_offset_.push_back(program->state_size);
      program->state_size += (bytes + 63) / 64 * 64;
    }

    for (const PendingCall& pending : calls_) {
      runtime::HostCall call;
      call.name = pending.name;
      call.checks = pending.checks;
      for (const Loc& loc : pending.args) call.args.push_back(resolve(loc));
      program->calls.push_back(std::move(call));
      planned.callee.push_back(pending.lowered);
    }
    for (const auto& [output, loc] : copies) program->copies.push_back({output, resolve(loc)});
    planned.program = std::move(program);
    return planned;
  }

 private:
  // The nodes whose results the outputs need, in order: dead ones are neither run nor
  // given memory (nor need to be calls).
  std::vector<const Node*> live_nodes() const {
    std::unordered_set<const Value*> needed(host_.outputs().begin(), host_.outputs().end());
    std::vector<const Node*> live;
    const std::vector<Node*> nodes = host_.node_list();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const Node* node = *it;
      bool is_live = false;
      for (const Value* result : node->results()) is_live |= needed.count(result) != 0;
      if (!is_live) continue;
      live.push_back(node);
      needed.insert(node->operands().begin(), node->operands().end());
    }
    std::reverse(live.begin(), live.end());
    return live;
  }

  struct PendingCall {
    std::string name;
    std::size_t lowered = 0;
    std::vector<Loc> args;
    std::vector<std::string> checks;  // the messages of its run-time checks
  };

  Status visit(const Node& node) {
    if (node.is_op("constant")) {
      where_[node.result()] = {{Loc::Kind::kWeight, weights_.size()}};
      weights_.push_back(node.attrs().get_tensor("value"));
      return Status::success();
    }
    if (node.is_op("tuple")) {
      std::vector<Loc>& locs = where_[node.result()];
      for (const Value* operand : node.operands()) {
        const std::vector<Loc>& field = where_.at(operand);
        locs.insert(locs.end(), field.begin(), field.end());
      }
      return Status::success();
    }
    if (node.is_op("get_item")) {
      const std::vector<Loc>& tuple = where_.at(node.operand(0));
      const auto& fields = node.operand(0)->type().tuple().fields;
      auto index = static_cast<std::size_t>(node.attrs().get_int("index"));
      std::size_t begin = 0;
      for (std::size_t f = 0; f < index; ++f) begin += leaf_count(fields[f]);
      where_[node.result()].assign(
          tuple.begin() + static_cast<std::ptrdiff_t>(begin),
          tuple.begin() + static_cast<std::ptrdiff_t>(begin + leaf_count(fields[index])));
      return Status::success();
    }
    if (node.is_op("call")) return visit_call(node);
    return make_error(
        "{}: the host can only call functions, but op {} is outside any (run fuse-ops first)",
        node.location(), node.op_name());
  }

  Status visit_call(const Node& node) {
    auto found = index_.find(node.callee());
    if (found == index_.end())
      return make_error("{}: calls @{}, which was not lowered", node.location(),
                        node.callee() ? node.callee()->name() : "?");
    const tir::PrimFunc& func = lowered_[found->second].func;
    PendingCall call{node.callee()->name(), found->second, {}};
    std::vector<TensorType> arg_types;
    for (const Value* operand : node.operands()) {
      const std::vector<Loc>& locs = where_.at(operand);
      call.args.insert(call.args.end(), locs.begin(), locs.end());
      flatten_type(operand->type(), arg_types);
    }
    for (const auto& [index, tensor] : lower::bound_constants(func)) {
      if (index > call.args.size())
        return make_error("func @{}: bound constant at parameter {} after {} argument(s) (a bug)",
                          func.name, index, call.args.size());
      call.args.insert(call.args.begin() + static_cast<std::ptrdiff_t>(index),
                       Loc{Loc::Kind::kWeight, weights_.size()});
      arg_types.insert(arg_types.begin() + static_cast<std::ptrdiff_t>(index), tensor->type());
      weights_.push_back(tensor);
    }
    std::vector<std::size_t> workspace = tir::workspace_params(func);
    std::optional<std::size_t> state = tir::state_param(func);
    std::optional<std::size_t> error = tir::error_param(func);
    std::size_t num_outputs =
        func.params.size() - func.num_inputs - workspace.size() - (state ? 1 : 0) - (error ? 1 : 0);
    if (call.args.size() != func.num_inputs || num_outputs != node.num_results())
      return make_error(
          "{}: func @{} takes {} input(s) and {} output(s), the call has {} and {} "
          "(a bug in lowering)",
          node.location(), func.name, func.num_inputs, num_outputs, call.args.size(),
          node.num_results());
    std::size_t step = calls_.size();
    for (const Loc& loc : call.args)
      if (loc.kind == Loc::Kind::kBuffer) buffers_[loc.index].last = step;
    for (const Value* result : node.results()) {
      if (!result->type().is_tensor())
        return make_error("{}: result {} is a tuple; calls return tensors", node.location(),
                          result->index());
      arg_types.push_back(result->tensor_type());
      where_[result] = {{Loc::Kind::kBuffer, buffers_.size()}};
      call.args.push_back({Loc::Kind::kBuffer, buffers_.size()});
      buffers_.push_back({result->tensor_type(), step, step, std::nullopt});
    }
    // After the outputs, in any order: workspace, memory the function needs while it runs,
    // from the arena; the call's own state and the error record, which the executor holds.
    for (std::size_t index = call.args.size(); index < func.params.size(); ++index) {
      const tir::Buffer& buffer = func.params[index];
      TensorType type{buffer->dtype, {}};
      if (index == error) {
        type.shape = {tir::kErrorRecordSize};
        arg_types.push_back(type);
        call.args.push_back({Loc::Kind::kError, 0});
        if (const Attribute* checks = func.attrs.find(tir::kChecksAttr))
          call.checks = std::get<std::vector<std::string>>(*checks);
        continue;
      }
      if (index == state) {
        std::optional<std::int64_t> bytes =
            buffer->shape.size() == 1 ? tir::as_const_int(buffer->shape[0]) : std::nullopt;
        if (buffer->dtype != DType::u8 || !bytes || *bytes < 1)
          return make_error("func @{}: state '{}' is not u8 of a constant size (a bug)", func.name,
                            buffer->name);
        type.shape = {*bytes};
        arg_types.push_back(type);
        call.args.push_back({Loc::Kind::kState, state_bytes_.size()});
        state_bytes_.push_back(type.num_bytes());
        continue;
      }
      if (std::find(workspace.begin(), workspace.end(), index) == workspace.end())
        return make_error(
            "func @{}: parameter {} after the outputs is neither workspace nor state "
            "(a bug)",
            func.name, index);
      for (const tir::Expr& extent : buffer->shape)
        type.shape.push_back(tir::as_const_int(extent).value_or(-1));
      if (!type.checked_num_elements().ok())
        return make_error("func @{}: workspace '{}' has no constant size (a bug)", func.name,
                          buffer->name);
      arg_types.push_back(type);
      call.args.push_back({Loc::Kind::kBuffer, buffers_.size()});
      buffers_.push_back({type, step, step, std::nullopt});
    }
    for (std::size_t a = 0; a < call.args.size(); ++a)
      if (!buffer_matches(func.params[a], arg_types[a]))
        return make_error("{}: argument {} is {}, but parameter '{}' of func @{} differs (a bug)",
                          node.location(), a, to_string(Type(arg_types[a])), func.params[a]->name,
                          func.name);
    calls_.push_back(std::move(call));
    return Status::success();
  }

  ArgLocation resolve(const Loc& loc) const {
    switch (loc.kind) {
      case Loc::Kind::kInput:
        return {ArgLocation::Kind::kInput, static_cast<std::int64_t>(loc.index)};
      case Loc::Kind::kWeight:
        return {ArgLocation::Kind::kWeight, static_cast<std::int64_t>(loc.index)};
      case Loc::Kind::kBuffer:
        if (const auto& output = buffers_[loc.index].output)
          return {ArgLocation::Kind::kOutput, static_cast<std::int64_t>(*output)};
        return {ArgLocation::Kind::kArena, arena_offset_[loc.index]};
      case Loc::Kind::kState:
        return {ArgLocation::Kind::kState, state_offset_[loc.index]};
      case Loc::Kind::kError:
        return {ArgLocation::Kind::kError, 0};
    }
    return {};
  }

  const Function& host_;
  const std::vector<LoweredCall>& lowered_;
  std::unordered_map<const Function*, std::size_t> index_;  // callee -> index in lowered_
  std::unordered_map<const Value*, std::vector<Loc>> where_;
  std::vector<TensorPtr> weights_;
  std::vector<BufferInfo> buffers_;
  std::vector<PendingCall> calls_;
  std::vector<std::int64_t> arena_offset_;
  std::vector<std::int64_t> state_bytes_, state_offset_;  // per state: its size and offset
};

}  // namespace

Expected<PlannedHost> plan_host(const Function& host, const std::vector<LoweredCall>& lowered) {
  return HostPlanner(host, lowered).run();
}

}  // namespace uma::build
