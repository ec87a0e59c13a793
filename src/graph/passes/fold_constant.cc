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
#include "uma/graph/fold.h"
#include "uma/graph/ir.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

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
    auto folded = fold_node(rewriter_, node, max_elements_);
    if (!folded) return folded.error().with_context(node->location());
    return Status::success();
  }

  Status forward_tuple_field(Node* node) {
    const Node* producer = node->operand(0)->producer();
    if (producer == nullptr || !producer->is_op("tuple")) return Status::success();
    auto index = static_cast<std::size_t>(node->attrs().get_int("index"));
    rewriter_.replace_node(node, {producer->operand(index)});
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
