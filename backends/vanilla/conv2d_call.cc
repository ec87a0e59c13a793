// vanilla.conv2d's lowering: each call of the composite becomes one call of the kernel
//
//   vanilla_conv2dnchw(&data, &weight, &out, oc, iw, ih, ic, kh, kw, stride_h, stride_w,
//                      pad_top, pad_left, pad_bottom, pad_right, batch, bias, act_min, act_max,
//                      dimension)
//
// with its sizes, strides and padding from the nn.conv2d, the bias (nn.conv2d's third operand
// or the added constant: one value per output channel, or null) and the clamp (relu: 0 and
// INFINITY; clip: a_min and a_max) from the composite's other nodes, and the target's
// `dimension`. The predicate admitted only what the kernel computes (patterns.cc). With an
// on-chip memory (--sram_kb), the core calls this once per kind of tile, on a copy of the
// composite with the tile's shapes and padding whose operands are the tile's buffers in sram:
// one call per tile, with nothing here to change.
#include <cmath>

#include "backends/vanilla/vanilla.h"
#include "uma/lower/compute_util.h"

namespace uma::backends::vanilla {
namespace {

using tir::Expr;

// The composite's bias: nn.conv2d's third operand, or the constant its add adds.
const Value* bias_of(const lower::CompositeOperands& operands, const Node& conv) {
  if (conv.num_operands() == 3) return conv.operand(2);
  const Node* add = operands.find("add");
  if (add == nullptr) return nullptr;
  const Value* sum = conv.result();
  return add->operand(0) == sum ? add->operand(1) : add->operand(0);
}

}  // namespace

Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t dimension, target.get_int("dimension"));
  if (dimension < 1 || dimension > kMaxDimension)
    return make_error("dimension must be between 1 and {}, not {}", kMaxDimension, dimension);
  return Status::success();
}

Expected<lower::ExternCall> lower_conv2d(const lower::CompositeOperands& operands,
                                         const Target& target) {
  UMA_TRY(check_target(target));
  UMA_TRY_ASSIGN(std::int64_t dimension, target.get_int("dimension"));
  const Node* conv = operands.find("nn.conv2d");
  if (conv == nullptr) return make_error("the composite has no nn.conv2d");
  const Shape& data = conv->operand(0)->tensor_type().shape;
  const Shape& weight = conv->operand(1)->tensor_type().shape;
  const std::vector<std::int64_t>& strides = conv->attrs().get_ints("strides");
  const std::vector<std::int64_t>& padding = conv->attrs().get_ints("padding");
  double act_min = -INFINITY, act_max = INFINITY;
  if (operands.find("nn.relu") != nullptr) act_min = 0;
  if (const Node* clip = operands.find("clip")) {
    act_min = clip->attrs().get_float("a_min");
    act_max = clip->attrs().get_float("a_max");
  }
  UMA_TRY_ASSIGN(Expr data_address, operands.address(*conv->operand(0)));
  UMA_TRY_ASSIGN(Expr weight_address, operands.address(*conv->operand(1)));
  UMA_TRY_ASSIGN(Expr out_address, operands.address(*operands.composite().outputs()[0]));
  UMA_TRY_ASSIGN(Expr bias_address, operands.address_or_null(bias_of(operands, *conv)));
  return lower::ExternCall{.name = std::string(kKernelName),
                           .args = {data_address,
                                    weight_address,
                                    out_address,
                                    weight[0],
                                    data[3],
                                    data[2],
                                    data[1],
                                    weight[2],
                                    weight[3],
                                    strides[0],
                                    strides[1],
                                    padding[0],
                                    padding[1],
                                    padding[2],
                                    padding[3],
                                    data[0],
                                    bias_address,
                                    lower::constant(DType::f32, act_min),
                                    lower::constant(DType::f32, act_max),
                                    dimension}};
}

}  // namespace uma::backends::vanilla
