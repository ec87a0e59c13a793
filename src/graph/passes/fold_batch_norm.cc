// fold-batch-norm: folds an inference batch normalisation into the convolution before it.
//
// nn.batch_norm(conv(x, w, b), gamma, beta, mean, var) over the channel axis 1 equals
// conv(x, w * s, (b - mean) * s + beta) with s = gamma / sqrt(var + epsilon) per output
// channel, because a convolution is linear in its weight and each output channel has its
// own filter. Applies when the convolution (nn.conv1d/2d/3d) has no other use, its weight
// and bias and all batch-norm parameters are constants with data, and the dtype is a float
// type. The folded parameters are computed in double and rounded once. Batch norms that do
// not follow a convolution stay. Guarantees: the same function up to that rounding; the
// old nodes stay for dce to remove; the original weight tensor is never modified (other
// nodes may share it).
#include <cmath>

#include "match.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

bool is_convolution(const Node* node) {
  return node->is_op("nn.conv1d") || node->is_op("nn.conv2d") || node->is_op("nn.conv3d");
}

struct Folded {
  TensorPtr weight;
  TensorPtr bias;
};

// The batch norm's parameters, when all are constants with data.
std::optional<std::vector<const Tensor*>> parameters(const Node* batch_norm) {
  std::vector<const Tensor*> out;
  for (std::size_t i = 1; i < 5; ++i) {
    const Tensor* t = match::constant(batch_norm->operand(i));
    if (t == nullptr) return std::nullopt;
    out.push_back(t);
  }
  return out;
}

Folded fold(const Tensor& weight, const Tensor* bias, const std::vector<const Tensor*>& bn,
            double epsilon) {
  const Tensor& gamma = *bn[0];
  const Tensor& beta = *bn[1];
  const Tensor& mean = *bn[2];
  const Tensor& var = *bn[3];
  std::int64_t channels = weight.shape()[0];
  std::int64_t per_channel = weight.num_elements() / std::max<std::int64_t>(channels, 1);
  auto new_weight = std::make_shared<Tensor>(weight.type());
  auto new_bias = std::make_shared<Tensor>(TensorType{weight.dtype(), {channels}});
  new_weight->name = weight.name.empty() ? "" : weight.name + ".bn_folded";
  for (std::int64_t o = 0; o < channels; ++o) {
    double scale = gamma.get(o) / std::sqrt(var.get(o) + epsilon);
    for (std::int64_t k = o * per_channel; k < (o + 1) * per_channel; ++k)
      new_weight->set(k, weight.get(k) * scale);
    double b = bias != nullptr ? bias->get(o) : 0.0;
    new_bias->set(o, (b - mean.get(o)) * scale + beta.get(o));
  }
  return {new_weight, new_bias};
}

class FoldBatchNormPass final : public Pass {
 public:
  std::string_view name() const override { return "fold-batch-norm"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) {
      Rewriter rewriter(*function);
      for (Node* node : function->node_list()) {
        if (!node->is_op("nn.batch_norm") || node->attrs().get_int("axis") != 1) continue;
        Node* conv = node->operand(0)->producer();
        if (conv == nullptr || !is_convolution(conv) || !match::single_use(conv->result()))
          continue;
        const Tensor* weight = match::constant(conv->operand(1));
        const Tensor* bias = conv->num_operands() > 2 ? match::constant(conv->operand(2)) : nullptr;
        auto bn = parameters(node);
        if (weight == nullptr || (conv->num_operands() > 2 && bias == nullptr) || !bn ||
            !is_float(weight->dtype()))
          continue;
        Folded folded = fold(*weight, bias, *bn, node->attrs().get_float("epsilon"));
        rewriter.set_insertion_point(node);
        Value* w = rewriter.constant(folded.weight);
        Value* b = rewriter.constant(folded.bias);
        auto fused = rewriter.try_create(conv->op_name(), {conv->operand(0), w, b}, conv->attrs(),
                                         conv->name());
        if (!fused) return fused.error().with_context(node->location());
        (*fused)->result()->set_name(node->result()->name());
        rewriter.replace_all_uses(node->result(), (*fused)->result());
      }
      changed |= rewriter.changed();
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_fold_batch_norm_pass() {
  return std::make_unique<FoldBatchNormPass>();
}

}  // namespace uma
