// Composite lowering: a matched composite (conv → bias → relu, say) lowered straight to one
// extern call, its operands and attributes taken from the graph rather than rebuilt from
// loop nests. A backend declares one per pattern (Backend::add_composite_lowering); lowering
// calls it where the composite is called (LowerOptions::composite_lowerings).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/tir/ir.h"

namespace uma::lower {

// What a composite lowering sees of one call of a composite: the composite function (its
// nodes in order, its attributes: Composite = "<target>.<pattern>") and the buffer of every
// value the call reads or writes: the composite's parameters (the call's operands), the
// constants inside it, and its outputs.
class CompositeOperands {
 public:
  CompositeOperands(const Node& call, std::unordered_map<const Value*, tir::Buffer> buffers);

  const Node& call() const { return *call_; }
  const Function& composite() const { return *call_->callee(); }
  // The first node of op `op` in the composite, or null.
  const Node* find(std::string_view op) const;
  // The buffer holding `value`, a value of the composite; null for one computed inside it.
  tir::Buffer buffer(const Value& value) const;
  // &buffer[0, ...], the address an extern call takes; an error names a value without a
  // buffer.
  Expected<tir::Expr> address(const Value& value) const;
  // address(*value), or a null pointer when `value` is null (an operand the match lacks).
  Expected<tir::Expr> address_or_null(const Value* value) const;

  // For a tile of a layer whose reduction is cut into chunks (a backend with an accumulator
  // memory, uma/tiling/plan.h): whether the call sums the first chunk (its partial sums start
  // from zero; else they add to the output's) and the last (the epilogue follows: bias,
  // activation), as i32 expressions of 0 or 1. Both 1 for a call that sums the whole
  // reduction, as every call but such a tile's.
  const tir::Expr& first_chunk() const { return first_chunk_; }
  const tir::Expr& last_chunk() const { return last_chunk_; }
  void set_chunk(tir::Expr first, tir::Expr last);

 private:
  const Node* call_;
  std::unordered_map<const Value*, tir::Buffer> buffers_;
  tir::Expr first_chunk_, last_chunk_;
};

// The call a composite becomes: `name(args...)`, returning `type` (a status when the
// backend's calls return one: Backend::set_extern_status).
// With `workspace` set, the call also gets that many bytes of scratch memory for while it
// runs (a library's scratchpad): a buffer of the function like its intermediates, so that
// the memory planner places it in the arena beside them, whose address is passed last (a
// null pointer for zero bytes).
struct ExternCall {
  std::string name;
  std::vector<tir::Expr> args;
  tir::DataType type = tir::DataType::scalar(DType::i32);
  std::optional<std::int64_t> workspace;
};

// A composite's lowering; an error says why the call cannot be made.
using CompositeLowering = std::function<Expected<ExternCall>(const CompositeOperands&)>;
// By composite name ("<target>.<pattern>").
using CompositeLowerings = std::map<std::string, CompositeLowering, std::less<>>;

// Lowers a call of a composite to a statement of its own, given the call and the backend's
// lowering: how a backend with memories gets its calls tiled (uma/tiling/lower_tiled.h).
using CompositeTiler =
    std::function<Expected<tir::Stmt>(const CompositeOperands&, const CompositeLowering&)>;

}  // namespace uma::lower
