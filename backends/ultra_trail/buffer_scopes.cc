// ultra-trail-buffer-scopes (POST_PARTITIONING_1): which accelerator memory each parameter
// of a function partitioned for ultra_trail goes to, and which parameters each layer reads:
// the attributes "ut.scopes", "ut.operands" and "ut.outputs" (see layer.h), which lowering
// carries to the PrimFunc for ultra-trail-codegen.
//
// Assumes: ultra-trail-lift-constants ran, so weights and biases are parameters, and each
// parameter of the function is the PrimFunc's parameter of the same index.
// Guarantees: each parameter has one scope: "wmem" for a layer's weights, "bmem" for its
// bias, "fmem" for its input features; or the pass fails naming the parameter.
#include <unordered_map>

#include "passes.h"

namespace uma::backends::ultra_trail {
namespace {

struct Wiring {
  std::vector<std::string> scopes;
  std::vector<std::int64_t> operands;
  std::vector<std::int64_t> outputs;
};

Expected<Wiring> wire(const Function& function) {
  std::unordered_map<const Value*, std::int64_t> param_index, layer_index;
  for (std::size_t i = 0; i < function.num_params(); ++i)
    param_index[function.param(i)] = static_cast<std::int64_t>(i);
  Wiring wiring;
  wiring.scopes.resize(function.num_params());

  for (const auto& node : function.nodes()) {
    UMA_TRY_ASSIGN(LayerNodes layer, layer_of_call(*node));
    const Function& composite = *node->callee();
    // A value the composite reads, as the function's parameter index (or -(j + 1) for layer
    // j's result), given to the composite's parameter.
    auto operand = [&](const Value* inner, std::string_view scope) -> Expected<std::int64_t> {
      if (inner == nullptr) return std::int64_t{-1};
      if (!inner->is_param() || inner->function() != &composite)
        return make_error("{}: the layer's {} operand is not a parameter (run {} first)",
                          node->location(), scope, "ultra-trail-lift-constants");
      const Value* outer = node->operand(inner->index());
      if (auto it = layer_index.find(outer); it != layer_index.end() && scope == "fmem")
        return -(it->second + 1);
      auto it = param_index.find(outer);
      if (it == param_index.end())
        return make_error("{}: the layer's {} operand is neither a parameter nor a layer's result",
                          node->location(), scope);
      std::string& assigned = wiring.scopes[static_cast<std::size_t>(it->second)];
      if (!assigned.empty() && assigned != scope)
        return make_error("parameter %{} goes to both {} and {}", outer->name(), assigned, scope);
      assigned = scope;
      return it->second;
    };
    UMA_TRY_ASSIGN(std::int64_t features, operand(layer.conv->operand(0), "fmem"));
    UMA_TRY_ASSIGN(std::int64_t weights, operand(layer.conv->operand(1), "wmem"));
    UMA_TRY_ASSIGN(std::int64_t bias, operand(layer.bias, "bmem"));
    wiring.operands.insert(wiring.operands.end(), {features, weights, bias});
    layer_index[node->result()] = static_cast<std::int64_t>(layer_index.size());
  }
  for (std::size_t i = 0; i < wiring.scopes.size(); ++i)
    if (wiring.scopes[i].empty())
      return make_error("parameter %{} is read by no layer", function.param(i)->name());
  for (const Value* output : function.outputs()) {
    auto it = layer_index.find(output);
    if (it == layer_index.end())
      return make_error("output %{} is not a layer's result", output->name());
    wiring.outputs.push_back(it->second);
  }
  return wiring;
}

}  // namespace

Expected<bool> assign_buffer_scopes(Module& module, const Target&) {
  bool changed = false;
  for (Function* function : partitioned_functions(module)) {
    Expected<Wiring> wiring = wire(*function);
    if (!wiring) return wiring.error().with_context(fmt::format("function @{}", function->name()));
    AttrMap& attrs = function->mutable_attrs();
    attrs.set(std::string(kScopesAttr), std::move(wiring->scopes));
    attrs.set(std::string(kOperandsAttr), std::move(wiring->operands));
    attrs.set(std::string(kOutputsAttr), std::move(wiring->outputs));
    changed = true;
  }
  return changed;
}

}  // namespace uma::backends::ultra_trail
