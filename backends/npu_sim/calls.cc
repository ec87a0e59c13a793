// npu_sim's lowerings: each tile of a layer as one call of the functional model (see
// npu_sim.h, kernels/npu_sim.c). The core calls them on a copy of the composite with the
// tile's shapes and share of the padding, its operands the tile's buffers in the memories.
#include <cmath>

#include "backends/npu_sim/npu_sim.h"
#include "uma/lower/compute_util.h"

namespace uma::backends::npu_sim {
namespace {

using tir::Expr;

}  // namespace

Expected<lower::ExternCall> lower_conv(const lower::CompositeOperands& operands,
                                       const Target& target) {
  UMA_TRY_ASSIGN(Design d, design(target));
  const Node* layer = layer_of(operands.composite());
  if (layer == nullptr) return make_error("the composite has no layer");
  Geometry g = geometry(*layer);
  // The bias: the layer's own third operand (the sums start from it), or the added constant.
  const Value* bias = layer->num_operands() == 3 ? layer->operand(2) : nullptr;
  std::int64_t bias_mode = bias != nullptr ? 1 : 0;
  if (const Node* add = operands.find("add")) {
    bias = add->operand(0) == layer->result() ? add->operand(1) : add->operand(0);
    bias_mode = 2;
  }
  double act_min = -INFINITY, act_max = INFINITY;
  if (operands.find("nn.relu") != nullptr) act_min = 0;
  if (const Node* clip = operands.find("clip")) {
    act_min = clip->attrs().get_float("a_min");
    act_max = clip->attrs().get_float("a_max");
  }
  UMA_TRY_ASSIGN(Expr x, operands.address(*layer->operand(0)));
  UMA_TRY_ASSIGN(Expr w, operands.address(*layer->operand(1)));
  UMA_TRY_ASSIGN(Expr b, operands.address_or_null(bias));
  UMA_TRY_ASSIGN(Expr y, operands.address(*operands.composite().outputs()[0]));
  return lower::ExternCall{
      .name = "npu_conv",
      .args = {x,
               w,
               b,
               y,
               g.batch,
               g.channels,
               g.height,
               g.width,
               g.out_channels,
               g.kh,
               g.kw,
               g.out_h,
               g.out_w,
               g.stride_h,
               g.stride_w,
               g.pad_top,
               g.pad_left,
               g.pad_bottom,
               g.pad_right,
               g.dilation_h,
               g.dilation_w,
               g.groups,
               g.weight_kn,
               bias_mode,
               lower::constant(DType::f32, act_min),
               lower::constant(DType::f32, act_max),
               operands.first_chunk(),
               operands.last_chunk(),
               d.rows,
               d.cols,
               static_cast<std::int64_t>(d.dataflow)}};
}

Expected<lower::ExternCall> lower_pool(const lower::CompositeOperands& operands,
                                       const Target& target) {
  UMA_TRY(check_target(target));
  const Node* layer = layer_of(operands.composite());
  if (layer == nullptr) return make_error("the composite has no pool");
  Geometry g = geometry(*layer);
  std::string_view op = layer->op_name();
  bool average = op == "nn.avg_pool2d" || op == "nn.global_avg_pool";
  std::int64_t count_include_pad =
      op == "nn.avg_pool2d" ? layer->attrs().get_int("count_include_pad") : 0;
  UMA_TRY_ASSIGN(Expr x, operands.address(*layer->operand(0)));
  UMA_TRY_ASSIGN(Expr y, operands.address(*operands.composite().outputs()[0]));
  return lower::ExternCall{.name = "npu_pool",
                           .args = {x, y, g.batch, g.channels, g.height, g.width, g.out_h,
                                    g.out_w, g.kh, g.kw, g.stride_h, g.stride_w, g.pad_top,
                                    g.pad_left, g.pad_bottom, g.pad_right,
                                    std::int64_t{average ? 1 : 0}, count_include_pad}};
}

}  // namespace uma::backends::npu_sim
