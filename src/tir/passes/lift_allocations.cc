// lift-allocations: a function's large global allocations become parameters, so that the
// caller provides their memory (the host executor: from its arena, planned once) and the
// function allocates nothing when it runs.
//
// Assumes nothing. Lifts the allocations at the root of the body (an Allocate around the
// whole rest, as lowering places a function's intermediates), nested in one another, whose
// scope is "global", whose shape is constant and whose size is at least `min_bytes`; they
// become parameters after the outputs, in order from the outermost, and the attribute
// "workspace" lists their indices. Allocations inside the body (in a loop, maybe a parallel
// one) and other scopes stay. A function whose "workspace" is set already is left alone.
#include <optional>

#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

std::optional<std::int64_t> constant_bytes(const Buffer& buffer) {
  std::int64_t elements = 1;
  for (const Expr& extent : buffer->shape) {
    std::optional<std::int64_t> value = as_const_int(extent);
    if (!value) return std::nullopt;
    elements *= *value;
  }
  return elements * static_cast<std::int64_t>(dtype_size(buffer->dtype));
}

Stmt lift(const Stmt& s, std::int64_t min_bytes, std::vector<Buffer>& lifted) {
  const AllocateNode* allocate = s.as<AllocateNode>();
  if (allocate == nullptr) return s;
  std::optional<std::int64_t> bytes = constant_bytes(allocate->buffer);
  bool liftable = allocate->buffer->scope == "global" && bytes && *bytes >= min_bytes;
  if (liftable) lifted.push_back(allocate->buffer);
  Stmt body = lift(allocate->body, min_bytes, lifted);
  if (liftable) return body;
  if (body.same_as(allocate->body)) return s;
  return AllocateNode::make(allocate->buffer, body);
}

}  // namespace

FuncPass lift_allocations_pass(std::int64_t min_bytes) {
  return {"lift-allocations", [min_bytes](const PrimFunc& func) -> Expected<PrimFunc> {
            if (func.attrs.has("workspace")) return func;
            std::vector<Buffer> lifted;
            Stmt body = lift(func.body, min_bytes, lifted);
            if (lifted.empty()) return func;
            PrimFunc out = func;
            out.body = body;
            std::vector<std::int64_t> indices;
            for (const Buffer& buffer : lifted) {
              indices.push_back(static_cast<std::int64_t>(out.params.size()));
              out.params.push_back(buffer);
            }
            out.attrs.set("workspace", indices);
            return out;
          }};
}

std::vector<std::size_t> workspace_params(const PrimFunc& func) {
  std::vector<std::size_t> indices;
  if (const Attribute* attr = func.attrs.find("workspace"))
    for (std::int64_t index : std::get<std::vector<std::int64_t>>(*attr))
      indices.push_back(static_cast<std::size_t>(index));
  return indices;
}

}  // namespace uma::tir
