// drop-identities: ops that return their operand unchanged are dropped, their users reading
// the operand: a pad of zeros on every side (exporters write one before a pooling that needs
// none), a concatenation of one operand, a reshape to the operand's own shape, a transpose
// that keeps every axis in place.
//
// Assumes: a verified module. Guarantees: no such op remains whose result is not a function's
// output (an output keeps its node, so that a function never returns its parameter itself);
// the dropped nodes stay for dce to remove. Each removal keeps what every user reads.
#include <algorithm>

#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

bool all_zero(const std::vector<std::int64_t>& values) {
  return std::all_of(values.begin(), values.end(), [](std::int64_t v) { return v == 0; });
}

bool keeps_axes_in_place(const std::vector<std::int64_t>& axes, std::size_t rank) {
  if (axes.size() != rank) return rank <= 1;  // no axes: all reversed
  for (std::size_t i = 0; i < rank; ++i)
    if (axes[i] != static_cast<std::int64_t>(i) &&
        axes[i] != static_cast<std::int64_t>(i) - static_cast<std::int64_t>(rank))
      return false;
  return true;
}

// Whether `node` returns its first operand unchanged.
bool is_identity(const Node& node) {
  if (node.num_operands() < 1 || node.num_results() != 1) return false;
  if (!(node.result()->type() == node.operand(0)->type())) return false;
  const AttrMap& attrs = node.attrs();
  if (node.is_op("nn.pad")) return all_zero(attrs.get_ints("pad_width"));
  if (node.is_op("concatenate")) return node.num_operands() == 1;
  if (node.is_op("reshape")) return true;
  if (node.is_op("transpose"))
    return keeps_axes_in_place(attrs.get_ints("axes"), node.operand(0)->tensor_type().rank());
  return false;
}

bool is_output(const Function& function, const Value* value) {
  const std::vector<Value*>& outputs = function.outputs();
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

class DropIdentitiesPass final : public Pass {
 public:
  std::string_view name() const override { return "drop-identities"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) {
      Rewriter rewriter(*function);
      for (Node* node : function->node_list())
        if (is_identity(*node) && !is_output(*function, node->result()) &&
            node->result()->has_uses())
          rewriter.replace_all_uses(node->result(), node->operand(0));
      changed |= rewriter.changed();
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_drop_identities_pass() {
  return std::make_unique<DropIdentitiesPass>();
}

}  // namespace uma
