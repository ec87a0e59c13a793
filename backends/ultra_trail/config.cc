// ultra-trail-config (POST_PARTITIONING_0): each layer's configuration, as the accelerator's
// registers will hold it, into the function attribute "ut.config" (see layer.h).
//
// Assumes: partition-graph ran; a function partitioned for ultra_trail holds calls of
// ultra_trail.conv1d composites only (the target claims nothing else).
// Guarantees: every such function has "ut.config", kConfigFields values per call in node
// order, or the pass fails naming the function and the layer it cannot configure.
#include "passes.h"

namespace uma::backends::ultra_trail {

Expected<bool> configure_layers(Module& module, const Target& target) {
  // The attributes are checked even when nothing was partitioned: a wrong one is the
  // user's mistake either way.
  UMA_TRY_ASSIGN(Hardware hw, hardware(target));
  bool changed = false;
  for (Function* function : partitioned_functions(module)) {
    std::vector<std::int64_t> packed;
    for (const auto& node : function->nodes()) {
      auto fail = [&](const Error& error) {
        return error.with_context(fmt::format("function @{}", function->name()));
      };
      Expected<LayerNodes> layer = layer_of_call(*node);
      if (!layer) return fail(layer.error());
      if (Status ok = check_layer(*layer, hw); !ok)
        return fail(ok.error().with_context(layer->conv->location()));
      LayerConfig config = layer_config(*layer, hw);
      packed.insert(packed.end(), config.begin(), config.end());
    }
    function->mutable_attrs().set(std::string(kConfigAttr), std::move(packed));
    changed = true;
  }
  return changed;
}

}  // namespace uma::backends::ultra_trail
