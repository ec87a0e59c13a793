// Compute rules of the broadcast family (src/op/broadcast.cc): broadcast_to, tile and nn.pad.
// Each output element is an input element (or nn.pad's fill): injective stages, inlined
// everywhere, so a padded convolution reads its input through the padding test; nn.pad's
// stage says what it pads (Stage::padding), so that a convolution can fold it into its own
// padding attribute.
#include <algorithm>

#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using Ints = std::vector<std::int64_t>;

Expected<std::vector<Stage>> broadcast_to_rule(const Node& node, const std::vector<TensorView>& in,
                                               ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  TensorView x = in[0];
  auto element = [x, shape = out.shape](const Indices& idx) {
    return x.at(broadcast_indices(idx, x.shape, shape));
  };
  return std::vector<Stage>{pointwise_stage("broadcast_to", out.dtype, out.shape, element, true)};
}

// Result index j along an axis reads j modulo the input's size there; the result may have
// leading axes the input lacks.
Expected<std::vector<Stage>> tile_rule(const Node& node, const std::vector<TensorView>& in,
                                       ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  TensorView x = in[0];
  auto element = [x](const Indices& idx) {
    std::size_t lead = idx.size() - x.shape.size();
    Indices from;
    for (std::size_t d = 0; d < x.shape.size(); ++d)
      from.push_back(x.shape[d] == 1 ? Expr(0) : idx[lead + d] % x.shape[d]);
    return x.at(from);
  };
  return std::vector<Stage>{pointwise_stage("tile", out.dtype, out.shape, element, true)};
}

// "constant" tests the bounds (pad_view); "edge" clamps the index; "reflect" mirrors it about
// the edge without repeating the edge element. Negative widths crop.
Expected<std::vector<Stage>> pad_rule(const Node& node, const std::vector<TensorView>& in,
                                      ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  const TensorView& x = in[0];
  const Ints& widths = node.attrs().get_ints("pad_width");
  const std::string& mode = node.attrs().get_string("mode");
  const std::size_t rank = x.shape.size();
  Ints before(widths.begin(), widths.begin() + static_cast<std::ptrdiff_t>(rank));
  Ints after(widths.begin() + static_cast<std::ptrdiff_t>(rank), widths.end());
  std::function<Expr(const Indices&)> element;
  Expr fill;  // undefined for edge and reflect
  if (mode == "constant") {
    fill = constant(x.dtype, node.attrs().get_float("pad_value"));
    element = pad_view(x, before, after, fill).at;
  } else if (mode == "edge" || mode == "reflect") {
    bool edge = mode == "edge";
    element = [x, before, edge](const Indices& idx) {
      Indices from;
      for (std::size_t d = 0; d < idx.size(); ++d) {
        Expr i = idx[d] - before[d];
        std::int64_t last = x.shape[d] - 1;
        if (edge)
          i = tir::min(tir::max(i, Expr(0)), Expr(last));
        else
          i = tir::SelectNode::make(i < 0, Expr(0) - i,
                                    tir::SelectNode::make(i > last, Expr(2 * last) - i, i));
        from.push_back(i);
      }
      return x.at(from);
    };
  } else {
    return make_error("attribute 'mode' is '{}'; expected 'constant', 'reflect' or 'edge'", mode);
  }
  Stage stage = pointwise_stage("pad", out.dtype, out.shape, element, true);
  // What a convolution or a pool reading it needs to fold it into its padding, or else to
  // materialize it (fold_padding).
  if (std::any_of(widths.begin(), widths.end(), [](std::int64_t w) { return w != 0; }))
    stage.padding = std::make_shared<Padding>(Padding{x, before, after, fill, block_attrs(node)});
  return std::vector<Stage>{std::move(stage)};
}

}  // namespace

void register_broadcast_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("broadcast_to", broadcast_to_rule).ok());
  UMA_CHECK(registry.add("tile", tile_rule).ok());
  UMA_CHECK(registry.add("nn.pad", pad_rule).ok());
}

}  // namespace uma::lower
