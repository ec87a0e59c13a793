// fold-constant: evaluates nodes whose operands are all constants, with the ops'
// reference kernels, and replaces their results by constants.
//
// Assumes: a verified module; reference kernels are deterministic and pure.
// Guarantees, in one run (nodes are visited in order, so a folded node's users see
// constants and fold too):
// - A node is folded when every operand comes from a `constant` node whose tensor has
//   data, its op has a kernel, every result is a tensor, and its results hold at most
//   FoldConstantOptions::max_elements elements together. Anything else is left alone,
//   not reported: `call` (a function is not one op), `constant` itself, `tuple` (a tuple
//   is not a tensor), ops without kernels, data-less constants (printed with
//   --elide-data) and folds too large to be worth their memory.
// - `get_item` of a `tuple` node becomes the tuple's field, constant or not.
// - A kernel that fails on constant inputs fails the pass with a message naming the
//   node: the model computes an error, and running it would too.
// - The replaced node is erased; constants it no longer uses stay for dce to remove.
//   Tensors are shared with the kernel's outputs, never copied.
#include "uma/graph/ir.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

// The operands' tensors when every operand comes from a constant with data.
std::optional<std::vector<TensorPtr>> constant_operands(const Node& node) {
  std::vector<TensorPtr> tensors;
  tensors.reserve(node.num_operands());
  for (const Value* operand : node.operands()) {
    const Node* producer = operand->producer();
    if (producer == nullptr || !producer->is_op("constant")) return std::nullopt;
    const TensorPtr& tensor = producer->attrs().get_tensor("value");
    if (tensor == nullptr || !tensor->has_data()) return std::nullopt;
    tensors.push_back(tensor);
  }
  return tensors;
}

bool fits(const Node& node, std::int64_t max_elements) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < node.num_results(); ++i) {
    const Type& type = node.result(i)->type();
    if (!type.is_tensor()) return false;
    auto elements = type.tensor().checked_num_elements();
    if (!elements || *elements > max_elements - total) return false;
    total += *elements;
  }
  return true;
}

class ConstantFolder {
 public:
  ConstantFolder(Function& function, std::int64_t max_elements)
      : rewriter_(function), max_elements_(max_elements) {}

  Expected<bool> run() {
    for (Node* node : rewriter_.function().node_list()) UMA_TRY(visit(node));
    return rewriter_.changed();
  }

 private:
  Status visit(Node* node) {
    if (node->is_op("get_item")) return forward_tuple_field(node);
    if (node->is_op("constant") || node->is_op("call") || node->is_op("tuple") ||
        node->op().kernel == nullptr)
      return Status::success();
    std::optional<std::vector<TensorPtr>> inputs = constant_operands(*node);
    if (!inputs || !fits(*node, max_elements_)) return Status::success();
    return fold(node, *inputs);
  }

  Status forward_tuple_field(Node* node) {
    const Node* producer = node->operand(0)->producer();
    if (producer == nullptr || !producer->is_op("tuple")) return Status::success();
    auto index = static_cast<std::size_t>(node->attrs().get_int("index"));
    rewriter_.replace_node(node, {producer->operand(index)});
    return Status::success();
  }

  Status fold(Node* node, const std::vector<TensorPtr>& inputs) {
    std::vector<Type> types;
    for (const Value* result : node->results()) types.push_back(result->type());
    auto outputs = node->op().kernel(inputs, node->attrs(), types);
    if (!outputs) return outputs.error().with_context(node->location());
    if (outputs->size() != types.size())
      return make_error("{}: the reference kernel gave {} result(s) for {} (a bug in the kernel)",
                        node->location(), outputs->size(), types.size());
    std::vector<Value*> constants;
    rewriter_.set_insertion_point(node);
    for (std::size_t i = 0; i < types.size(); ++i) {
      const TensorPtr& tensor = (*outputs)[i];
      if (tensor == nullptr || !tensor->has_data() || !(Type(tensor->type()) == types[i]))
        return make_error("{}: the reference kernel's result {} is not a {} (a bug in the kernel)",
                          node->location(), i, to_string(types[i]));
      Value* constant = rewriter_.constant(tensor);
      constant->set_name(node->result(i)->name());
      constants.push_back(constant);
    }
    rewriter_.replace_node(node, constants);
    return Status::success();
  }

  Rewriter rewriter_;
  std::int64_t max_elements_;
};

class FoldConstantPass final : public Pass {
 public:
  explicit FoldConstantPass(FoldConstantOptions options) : options_(options) {}

  std::string_view name() const override { return "fold-constant"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) {
      UMA_TRY_ASSIGN(bool function_changed, ConstantFolder(*function, options_.max_elements).run());
      changed |= function_changed;
    }
    return changed;
  }

 private:
  FoldConstantOptions options_;
};

}  // namespace

std::unique_ptr<Pass> create_fold_constant_pass() {
  return create_fold_constant_pass_with_options({});
}

std::unique_ptr<Pass> create_fold_constant_pass_with_options(const FoldConstantOptions& options) {
  return std::make_unique<FoldConstantPass>(options);
}

}  // namespace uma
