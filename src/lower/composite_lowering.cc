// What a composite lowering sees of a composite's call (see uma/lower/composite_lowering.h).
#include "uma/lower/composite_lowering.h"

namespace uma::lower {

CompositeOperands::CompositeOperands(const Node& call,
                                     std::unordered_map<const Value*, tir::Buffer> buffers)
    : call_(&call),
      buffers_(std::move(buffers)),
      first_chunk_(tir::IntImmNode::make(tir::DataType::scalar(DType::i32), 1)),
      last_chunk_(first_chunk_) {}

void CompositeOperands::set_chunk(tir::Expr first, tir::Expr last) {
  first_chunk_ = std::move(first);
  last_chunk_ = std::move(last);
}

const Node* CompositeOperands::find(std::string_view op) const {
  for (const auto& node : composite().nodes())
    if (node->is_op(op)) return node.get();
  return nullptr;
}

tir::Buffer CompositeOperands::buffer(const Value& value) const {
  auto it = buffers_.find(&value);
  return it == buffers_.end() ? nullptr : it->second;
}

Expected<tir::Expr> CompositeOperands::address(const Value& value) const {
  tir::Buffer held = buffer(value);
  if (held == nullptr)
    return make_error("value %{} is computed inside the composite: it has no buffer", value.name());
  return tir::AddressNode::make(
      held, std::vector<tir::Expr>(held->shape.size(), tir::Expr(std::int64_t{0})));
}

Expected<tir::Expr> CompositeOperands::address_or_null(const Value* value) const {
  if (value == nullptr)
    return tir::CastNode::make(tir::DataType::pointer(), tir::Expr(std::int64_t{0}));
  return address(*value);
}

}  // namespace uma::lower
