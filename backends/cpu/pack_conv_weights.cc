// pack-conv-weights (the host's, POST_PARTITIONING_0): an nn.conv2d of the host with a
// constant f32 weight (O, C, kh, kw), one group and O a multiple of the CPU's vector lanes
// b becomes nn.conv2d_packed with the weight repacked once, here, as (O / b, C, kh, kw, b):
// b output channels are then one vector load in the kernel's innermost loop
// (schedule_conv2d.cc). Functions of other targets and composites are left alone; the
// original weight tensor is never modified (other nodes may share it).
#include <fmt/format.h>

#include "cpu.h"
#include "uma/graph/rewriter.h"

namespace uma::backends {
namespace {

bool is_host_function(const Function& function) {
  const AttrMap& attrs = function.attrs();
  return !attrs.has("Composite") && !attrs.has("Compiler") && !attrs.has("Primitive");
}

const Tensor* constant_weight(const Node& conv) {
  const Node* producer = conv.operand(1)->producer();
  if (producer == nullptr || !producer->is_op("constant")) return nullptr;
  const TensorPtr& tensor = producer->attrs().get_tensor("value");
  return tensor && tensor->has_data() ? tensor.get() : nullptr;
}

TensorPtr pack(const Tensor& weight, std::int64_t block) {
  const Shape& shape = weight.shape();
  const std::int64_t per_channel = shape[1] * shape[2] * shape[3];
  auto packed = std::make_shared<Tensor>(
      TensorType{weight.dtype(), {shape[0] / block, shape[1], shape[2], shape[3], block}});
  packed->name = weight.name.empty() ? "" : weight.name + ".packed";
  const auto* from = weight.data<float>();
  auto* to = packed->data<float>();
  for (std::int64_t o = 0; o < shape[0]; ++o)
    for (std::int64_t i = 0; i < per_channel; ++i)
      to[((o / block) * per_channel + i) * block + o % block] = from[o * per_channel + i];
  return packed;
}

}  // namespace

Expected<bool> pack_conv_weights(Module& module, const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t lanes, vector_lanes(target));
  bool changed = false;
  for (Function* function : module.functions()) {
    if (!is_host_function(*function)) continue;
    Rewriter rewriter(*function);
    for (Node* node : function->node_list()) {
      if (!node->is_op("nn.conv2d") || node->attrs().get_int("groups") != 1) continue;
      const Tensor* weight = constant_weight(*node);
      if (weight == nullptr || weight->dtype() != DType::f32 || weight->shape()[0] % lanes != 0)
        continue;
      rewriter.set_insertion_point(node);
      std::vector<Value*> operands(node->operands().begin(), node->operands().end());
      operands[1] = rewriter.constant(pack(*weight, lanes));
      auto packed = rewriter.try_create("nn.conv2d_packed", operands, node->attrs(), node->name());
      if (!packed) return packed.error().with_context(node->location());
      (*packed)->result()->set_name(node->result()->name());
      rewriter.replace_all_uses(node->result(), (*packed)->result());
      rewriter.erase(node);
    }
    changed |= rewriter.changed();
  }
  return changed;
}

}  // namespace uma::backends
