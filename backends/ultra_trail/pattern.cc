// ultra_trail's one pattern, a conv1d layer, and its predicate (see passes.h).
#include "passes.h"

namespace uma::backends::ultra_trail {

PatternPtr conv1d_pattern() {
  PatternPtr with_bias = is_op("nn.conv1d", {wildcard(), is_constant(), is_constant()});
  PatternPtr conv = is_op("nn.conv1d", {wildcard(), is_constant()});
  // A bias added as exporters write it: add(conv, b) or add(b, conv), b of shape [C, 1]
  // or [1, C, 1] (the predicate checks the shape).
  PatternPtr added = alt(is_op("add", {conv, is_constant()}), is_op("add", {is_constant(), conv}));
  PatternPtr biased = alt(with_bias, alt(added, conv));
  return optional(biased, [](const PatternPtr& x) { return is_op("nn.relu", {x}); });
}

Status check_conv1d(const Match& match, const Target& target) {
  UMA_TRY_ASSIGN(Hardware hw, hardware(target));
  std::vector<const Node*> nodes(match.nodes.begin(), match.nodes.end());
  UMA_TRY_ASSIGN(LayerNodes layer, find_layer(nodes));
  return check_layer(layer, hw);
}

}  // namespace uma::backends::ultra_trail
