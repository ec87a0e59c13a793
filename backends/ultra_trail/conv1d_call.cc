// ultra_trail.conv1d's lowering: one call of the array per tile (see ultra_trail.h). The
// core calls it on a copy of the composite with the tile's shapes and padding, its operands
// the tile's buffers in fmem, wmem and bmem.
#include "backends/ultra_trail/ultra_trail.h"

namespace uma::backends::ultra_trail {

Expected<lower::ExternCall> lower_conv1d(const lower::CompositeOperands& operands,
                                         const Target& target) {
  UMA_TRY(check_target(target));
  UMA_TRY_ASSIGN(std::int64_t dimension, target.get_int("dimension"));
  const Node* conv = operands.find("nn.conv1d");
  if (conv == nullptr) return make_error("the composite has no nn.conv1d");
  const Value* bias = conv->num_operands() == 3 ? conv->operand(2) : nullptr;
  if (const Node* add = operands.find("add"))
    bias = add->operand(0) == conv->result() ? add->operand(1) : add->operand(0);
  const Shape& data = conv->operand(0)->tensor_type().shape;
  const Shape& weight = conv->operand(1)->tensor_type().shape;
  const Shape& out = conv->result()->tensor_type().shape;
  const std::vector<std::int64_t>& padding = conv->attrs().get_ints("padding");
  UMA_TRY_ASSIGN(tir::Expr x, operands.address(*conv->operand(0)));
  UMA_TRY_ASSIGN(tir::Expr w, operands.address(*conv->operand(1)));
  UMA_TRY_ASSIGN(tir::Expr b, operands.address_or_null(bias));
  UMA_TRY_ASSIGN(tir::Expr y, operands.address(*operands.composite().outputs()[0]));
  auto i32 = [](std::int64_t value) {
    return tir::IntImmNode::make(tir::DataType::scalar(DType::i32), value);
  };
  return lower::ExternCall{
      .name = std::string(kKernelName),
      .args = {x, w, b, y, i32(dimension), i32(data[0]), i32(data[1]), i32(weight[0]),
               i32(weight[2]), i32(conv->attrs().get_ints("strides")[0]), i32(padding[0]),
               i32(padding[1]), i32(data[2]), i32(out[2]),
               i32(operands.find("nn.relu") != nullptr ? 1 : 0), operands.first_chunk(),
               operands.last_chunk()}};
}

}  // namespace uma::backends::ultra_trail
