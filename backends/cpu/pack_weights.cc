// pack-weights (the host's, POST_PARTITIONING_0): a convolution or a dense layer of the host
// with a constant f32 weight gets the weight repacked once, here, in blocks of b output
// channels (units), b the most of the CPU's vector lanes, half of them, ... down to 4 that
// divides their number, so that b of them are one vector load in the kernel's innermost
// loop (schedule_conv2d.cc, schedule_dense.cc):
//   nn.conv2d, one group or depthwise, (O, C / groups, kh, kw)
//       -> nn.conv2d_packed (O / b, C / groups, kh, kw, b)     "OIHW" -> "OIHW<b>o"
//   nn.dense (units, input features) -> nn.dense_packed (units / b, input features, b)
//                                                               "NK" -> "NK<b>n"
// Functions of other targets and composites are left alone; the original weight tensor is
// never modified (other nodes may share it).
#include <fmt/format.h>

#include "cpu.h"
#include "uma/graph/rewriter.h"
#include "uma/op/layout.h"

namespace uma::backends {
namespace {

// One group, or depthwise: one input channel per group, as many groups as channels.
bool packable_groups(const Node& conv) {
  std::int64_t groups = conv.attrs().get_int("groups");
  const Shape& data = conv.operand(0)->tensor_type().shape;
  const Shape& weight = conv.operand(1)->tensor_type().shape;
  return groups == 1 || (groups == data[1] && weight[1] == 1 && weight[0] == groups);
}

struct Packing {
  const char* op;      // the packed op
  const char* layout;  // the weight's layout; its first axis is blocked
};

std::optional<Packing> packing(const Node& node) {
  if (node.is_op("nn.conv2d") && packable_groups(node)) return Packing{"nn.conv2d_packed", "OIHW"};
  if (node.is_op("nn.dense")) return Packing{"nn.dense_packed", "NK"};
  return std::nullopt;
}

}  // namespace

bool is_host_function(const Function& function) {
  const AttrMap& attrs = function.attrs();
  return !attrs.has("Composite") && !attrs.has("Compiler") && !attrs.has("Primitive");
}

const Tensor* constant_tensor(const Value* value) {
  const Node* producer = value->producer();
  if (producer == nullptr || !producer->is_op("constant")) return nullptr;
  const TensorPtr& tensor = producer->attrs().get_tensor("value");
  return tensor && tensor->has_data() ? tensor.get() : nullptr;
}

std::int64_t channel_block(std::int64_t channels, std::int64_t lanes) {
  for (std::int64_t block = lanes; block >= 4; block /= 2)
    if (channels % block == 0) return block;
  return 0;
}

Expected<bool> pack_weights(Module& module, const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t lanes, vector_lanes(target));
  bool changed = false;
  for (Function* function : module.functions()) {
    if (!is_host_function(*function)) continue;
    Rewriter rewriter(*function);
    for (Node* node : function->node_list()) {
      std::optional<Packing> how = packing(*node);
      if (!how) continue;
      const Tensor* weight = constant_tensor(node->operand(1));
      if (weight == nullptr || weight->dtype() != DType::f32) continue;
      std::int64_t block = channel_block(weight->shape()[0], lanes);
      if (block == 0) continue;
      std::string layout = how->layout;
      auto packer = LayoutTransform::make(
          layout, fmt::format("{}{}{}", layout, block, static_cast<char>(layout[0] - 'A' + 'a')));
      if (!packer) return packer.error().with_context(node->location());
      auto packed_weight = relayout(*weight, *packer);
      if (!packed_weight) return packed_weight.error().with_context(node->location());
      (*packed_weight)->name = weight->name.empty() ? "" : weight->name + ".packed";
      rewriter.set_insertion_point(node);
      std::vector<Value*> operands(node->operands().begin(), node->operands().end());
      operands[1] = rewriter.constant(*packed_weight);
      auto packed = rewriter.try_create(how->op, operands, node->attrs(), node->name());
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
