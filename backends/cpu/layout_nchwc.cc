// layout-nchwc (the host's, POST_PARTITIONING_0, after pack-weights): puts the host's
// chains of convolutions, pools and elementwise ops in the blocked layout NCHW<b>c
// (uma/op/layout.h), b channels innermost, so that their kernels work on whole vectors of
// channels, and moves tensors between layouts only at the edges of a chain.
//
// One walk in topological order gives each value that can be blocked its blocked form:
//   nn.conv2d_packed (one group or depthwise)  -> nn.conv2d_nchwc, its data blocked when
//                                                 it has a blocked form, else read as NCHW
//   an elementwise op whose operands are        -> the same op on the blocked forms; a
//     blocked, scalars or per-channel constants     per-channel constant is relaid here
//     (a blocked (N, C, 1, 1) broadcasts: a squeeze-and-excite gate)
//   nn.max_pool2d / nn.avg_pool2d of a blocked  -> nn.max_pool3d / nn.avg_pool3d over
//     value                                        (H, W, b) with a window of 1 over b
//   nn.global_avg_pool / nn.global_max_pool     -> the same pool 3-D over (H, W)
// Then every other use of a blocked value (an op of no chain, a function output) reads a
// layout_transform back to NCHW, one per value; the nodes left without uses are erased.
// A layout change is therefore where a chain begins or ends, never between two ops of it.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "cpu.h"
#include "uma/graph/rewriter.h"
#include "uma/op/layout.h"
#include "uma/op/op_registry.h"

namespace uma::backends {
namespace {

std::string nchwc(std::int64_t block) { return fmt::format("NCHW{}c", block); }

// The block of a blocked value: its last dimension.
std::int64_t block_of(const Value* blocked) { return blocked->tensor_type().shape.back(); }

bool is_rank4_tensor(const Value* value) {
  return value->type().is_tensor() && value->tensor_type().rank() == 4;
}

// Whether `from` broadcasts to `to` of the same rank: each dimension equal or 1. Blocked
// alike, (N, C / b, 1, 1, b) then broadcasts to (N, C / b, H, W, b) as (N, C, 1, 1) does to
// (N, C, H, W): a squeeze-and-excite gate.
bool broadcasts(const Shape& from, const Shape& to) {
  if (from.size() != to.size()) return false;
  for (std::size_t d = 0; d < from.size(); ++d)
    if (from[d] != to[d] && from[d] != 1) return false;
  return true;
}

class LayoutPass {
 public:
  explicit LayoutPass(Function& function) : rewriter_(function) {}

  Expected<bool> run() {
    std::vector<Node*> nodes = rewriter_.function().node_list();
    for (Node* node : nodes) {
      rewriter_.set_insertion_point(node);
      UMA_TRY_ASSIGN(Value * blocked, block(*node));
      if (blocked == nullptr) continue;
      blocked_.emplace(node->result(), blocked);
      order_.push_back(node);
    }
    return finish();
  }

 private:
  // The blocked form of the node's result, or null when it stays as it is.
  Expected<Value*> block(Node& node) {
    if (node.num_results() != 1 || !is_rank4_tensor(node.result())) return nullptr;
    if (node.is_op("nn.conv2d_packed")) return conv(node);
    if (node.is_op("nn.max_pool2d") || node.is_op("nn.avg_pool2d")) return pool(node);
    if (node.is_op("nn.global_avg_pool") || node.is_op("nn.global_max_pool"))
      return global_pool(node);
    if (node.op().fusion == FusionCategory::kElementwise) return elementwise(node);
    return nullptr;
  }

  Value* blocked_form(Value* value) const {
    auto it = blocked_.find(value);
    return it == blocked_.end() ? nullptr : it->second;
  }

  Expected<Value*> create(const Node& like, std::string_view op, std::vector<Value*> operands,
                          AttrMap attrs) {
    auto node = rewriter_.try_create(op, std::move(operands), std::move(attrs), like.name());
    if (!node) return node.error().with_context(like.location());
    (*node)->result()->set_name(like.result()->name());
    return (*node)->result();
  }

  Expected<Value*> conv(Node& node) {
    const Shape& data = node.operand(0)->tensor_type().shape;
    const Shape& weight = node.operand(1)->tensor_type().shape;
    std::int64_t groups = node.attrs().get_int("groups");
    if (groups != 1 && !(groups == data[1] && weight[1] == 1)) return nullptr;
    std::vector<Value*> operands(node.operands().begin(), node.operands().end());
    if (Value* blocked = blocked_form(operands[0])) operands[0] = blocked;
    return create(node, "nn.conv2d_nchwc", std::move(operands), node.attrs());
  }

  // A 2-D pool of NCHW<b>c data is a 3-D pool over (H, W, b) whose window is 1 along b.
  Expected<Value*> pool(Node& node) {
    Value* data = blocked_form(node.operand(0));
    if (data == nullptr) return nullptr;
    AttrMap attrs = node.attrs();
    auto extend = [&](const char* name, std::int64_t value) {
      std::vector<std::int64_t> values = attrs.get_ints(name);
      values.push_back(value);
      attrs.set(name, values);
    };
    extend("pool_size", 1);
    extend("strides", 1);
    if (attrs.has("dilation")) extend("dilation", 1);
    const std::vector<std::int64_t>& padding = attrs.get_ints("padding");
    attrs.set("padding",
              std::vector<std::int64_t>{padding[0], padding[1], 0, padding[2], padding[3], 0});
    std::string op = node.is_op("nn.max_pool2d") ? "nn.max_pool3d" : "nn.avg_pool3d";
    return create(node, op, {data}, std::move(attrs));
  }

  Expected<Value*> global_pool(Node& node) {
    Value* data = blocked_form(node.operand(0));
    if (data == nullptr) return nullptr;
    const Shape& shape = data->tensor_type().shape;
    AttrMap attrs;
    attrs.set("pool_size", std::vector<std::int64_t>{shape[2], shape[3], 1});
    std::string op = node.is_op("nn.global_max_pool") ? "nn.max_pool3d" : "nn.avg_pool3d";
    return create(node, op, {data}, std::move(attrs));
  }

  // An elementwise op whose result has the shape of a blocked operand, and whose other
  // operands are blocked alike (or broadcast per channel), scalars, or constants of one
  // value per channel.
  Expected<Value*> elementwise(Node& node) {
    const Shape& shape = node.result()->tensor_type().shape;
    std::int64_t block = 0;
    for (Value* operand : node.operands())
      if (Value* blocked = blocked_form(operand); blocked && operand->tensor_type().shape == shape)
        block = block_of(blocked);
    if (block == 0) return nullptr;
    std::vector<Value*> operands;
    for (Value* operand : node.operands()) {
      UMA_TRY_ASSIGN(Value * blocked, operand_form(operand, shape, block));
      if (blocked == nullptr) return nullptr;
      operands.push_back(blocked);
    }
    return create(node, node.op_name(), std::move(operands), node.attrs());
  }

  // `operand` of an elementwise op with a result of `shape`, as the blocked op reads it.
  Expected<Value*> operand_form(Value* operand, const Shape& shape, std::int64_t block) {
    if (!operand->type().is_tensor()) return nullptr;
    const Shape& own = operand->tensor_type().shape;
    if (Value* blocked = blocked_form(operand))
      return block_of(blocked) == block && own[1] == shape[1] && broadcasts(own, shape) ? blocked
                                                                                        : nullptr;
    // Scalars broadcast against the blocked shape as they do against NCHW.
    if (std::all_of(own.begin(), own.end(), [](std::int64_t d) { return d == 1; }))
      return own.size() <= shape.size() ? operand : nullptr;
    // One value per channel, (C, 1, 1) or (1, C, 1, 1): relaid once, here.
    const Tensor* tensor = constant_tensor(operand);
    if (tensor == nullptr || own.size() < 3 || own.size() > 4 || own[own.size() - 3] != shape[1] ||
        own[own.size() - 2] != 1 || own[own.size() - 1] != 1 || (own.size() == 4 && own[0] != 1))
      return nullptr;
    auto as_nchw = std::make_shared<Tensor>(TensorType{tensor->dtype(), {1, shape[1], 1, 1}});
    std::copy(tensor->bytes().begin(), tensor->bytes().end(), as_nchw->bytes().begin());
    UMA_TRY_ASSIGN(LayoutTransform transform, LayoutTransform::make("NCHW", nchwc(block)));
    UMA_TRY_ASSIGN(std::shared_ptr<Tensor> relaid, relayout(*as_nchw, transform));
    if (!tensor->name.empty()) relaid->name = fmt::format("{}.nchw{}c", tensor->name, block);
    return rewriter_.constant(relaid);
  }

  // Every use of a replaced value that is not itself replaced reads the value's blocked
  // form moved back to NCHW; then the replaced nodes, unused now, go.
  Expected<bool> finish() {
    std::vector<Node*> back;
    for (Node* node : order_) {
      Value* value = node->result();
      Value* blocked = blocked_form(value);
      rewriter_.set_insertion_point(node);
      AttrMap attrs;
      attrs.set("src_layout", nchwc(block_of(blocked)));
      attrs.set("dst_layout", std::string("NCHW"));
      auto transform = rewriter_.try_create("layout_transform", {blocked}, std::move(attrs));
      if (!transform) return transform.error().with_context(node->location());
      rewriter_.replace_all_uses(value, (*transform)->result());
      back.push_back(*transform);
    }
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
      if (!(*it)->result()->has_uses()) rewriter_.erase(*it);
    for (Node* transform : back)
      if (!transform->result()->has_uses()) rewriter_.erase(transform);
    return !order_.empty();
  }

  Rewriter rewriter_;
  std::unordered_map<const Value*, Value*> blocked_;
  std::vector<Node*> order_;  // the nodes whose results have a blocked form, in order
};

}  // namespace

Expected<bool> layout_nchwc(Module& module, const Target&) {
  bool changed = false;
  for (Function* function : module.functions()) {
    if (!is_host_function(*function)) continue;
    UMA_TRY_ASSIGN(bool changed_here, LayoutPass(*function).run());
    changed |= changed_here;
  }
  return changed;
}

}  // namespace uma::backends
