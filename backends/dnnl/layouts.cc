// dnnl-layouts (POST_PARTITIONING_1): channels-last data between the convolutions,
// poolings, batch normalizations, binary and unary elementwise ops and concatenations of a
// region.
//
// oneDNN's convolutions on this kind of CPU compute channels last (NHWC); given plain data
// (NCHW), each reorders its input there and its result back, at every call. A value that
// one dnnl.conv, dnnl.pool, batch dnnl.norm, dnnl.binary, dnnl.eltwise or dnnl.concat (of
// rank 3 to 5) of a region makes and that only others of the same region read, as their data
// (a binary op's full operand, any operand of a concatenation) or as a convolution's residual, has
// no reader that needs it plain: it stays channels last (same size, so the memory plan is
// unchanged).
//
// Assumes: partition-graph ran; the composites of a dnnl region are calls of composite
// functions called once each.
// Guarantees: each such composite whose data or result stays channels last
// has the function attribute src_layout or dst_layout = "channels_last" (dnnl.h). A
// concatenation's operands share one layout, a residual shares its convolution's result layout
// (oneDNN's sum reads the destination), an eltwise's data shares its result's (it maps the values
// of a flat array, each alone, so it computes the same in any layout the two share: conv -> relu ->
// conv stays channels last), and every composite so laid out has a primitive that is not oneDNN's
// reference one; values for which that cannot hold stay plain. The region's parameters and results
// stay plain.
#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "backends/dnnl/dnnl.h"
#include "uma/partition/partition.h"

namespace uma::backends::dnnl {
namespace {

// A call of a dnnl.conv, dnnl.pool, dnnl.norm (batch), dnnl.binary, dnnl.eltwise or
// dnnl.concat composite, with the parameters that are its data (a binary op's full operand;
// a concatenation's operands, which share one layout) and its residual, the one it reads
// plain (a binary op's broadcast operand, which may be its data too: x * x), whether its
// data must share its result's layout (an eltwise's), and whether oneDNN has a primitive
// other than its reference one for it laid out so.
struct Site {
  Node* call = nullptr;
  Function* composite = nullptr;
  std::vector<std::int64_t> srcs;
  std::int64_t residual = -1, plain = -1;
  bool src_shares_layout = false;
  std::function<bool(Layouts)> runs_well;
};

std::int64_t param_index(const Function& composite, const Value* value) {
  for (std::size_t i = 0; i < composite.num_params(); ++i)
    if (composite.param(i) == value) return static_cast<std::int64_t>(i);
  return -1;
}

// Whether oneDNN runs `call` (made once), laid out so, with a fast primitive.
template <typename Call>
std::function<bool(Layouts)> runs_well(std::string_view composite, const Call& call,
                                       const Target& target,
                                       Expected<Primitive> (*primitive)(const Call&,
                                                                        const Target&)) {
  return [=, &target](Layouts layouts) {
    Call laid_out = call;
    laid_out.layouts = layouts;
    return check_implementation(composite, primitive(laid_out, target)).ok();
  };
}

// The site of `node`, a call in a dnnl region, when it calls a composite that has layouts.
std::optional<Site> site_of(Node& node, const Target& target,
                            const std::unordered_map<const Function*, int>& calls) {
  Function* composite = node.callee();
  if (composite == nullptr || calls.at(composite) != 1) return std::nullopt;
  std::string kind = composite->attrs().string_or_none(kCompositeAttr).value_or("");
  std::vector<const Node*> nodes;
  for (const auto& inner : composite->nodes()) nodes.push_back(inner.get());
  const Node* anchor = nullptr;
  for (const Node* inner : nodes)
    if (anchor == nullptr && !inner->is_op("constant")) anchor = inner;
  if (anchor == nullptr) return std::nullopt;
  Site site{.call = &node, .composite = composite};
  site.srcs = {param_index(*composite, anchor->operand(0))};
  if (kind == "dnnl.conv") {
    Expected<ConvCall> call = conv_call(nodes, target);
    if (!call) return std::nullopt;
    site.residual = param_index(*composite, call->epilogue.residual);
    site.runs_well = runs_well("conv", *call, target, conv_primitive);
  } else if (kind == "dnnl.pool") {
    Expected<PoolCall> call = pool_call(nodes);
    if (!call) return std::nullopt;
    site.runs_well = runs_well("pool", *call, target, pool_primitive);
  } else if (kind == "dnnl.norm") {
    Expected<NormCall> call = norm_call(nodes);
    if (!call || call->layer || call->rank < 3) return std::nullopt;
    site.runs_well = runs_well("norm", *call, target, norm_primitive);
  } else if (kind == "dnnl.binary") {
    // Channels last is a layout of data with channels and 1 to 3 spatial dimensions.
    Expected<BinaryCall> call = binary_call(nodes);
    if (!call || call->rank < 3) return std::nullopt;
    site.srcs = {param_index(*composite, anchor->operand(call->swapped ? 1 : 0))};
    site.plain = param_index(*composite, anchor->operand(call->swapped ? 0 : 1));
    site.runs_well = runs_well("binary", *call, target, binary_primitive);
  } else if (kind == "dnnl.eltwise") {
    // Its primitive is made for a flat array whatever the layout: the predicate's holds.
    // Data and result of one shape (power may broadcast its data to a higher rank, whose
    // channels-last order is another) of channels and 1 to 3 spatial dimensions.
    const Shape& shape = anchor->result()->tensor_type().shape;
    if (!eltwise_call(nodes) || anchor->operand(0)->tensor_type().shape != shape ||
        shape.size() < 3 || shape.size() > 5)
      return std::nullopt;
    site.src_shares_layout = true;
    site.runs_well = [](Layouts) { return true; };
  } else if (kind == "dnnl.concat") {
    Expected<ConcatCall> call = concat_call(nodes);
    if (!call || call->rank < 3) return std::nullopt;
    site.srcs.clear();
    for (const Value* operand : anchor->operands())
      site.srcs.push_back(param_index(*composite, operand));
    // The kernel's copy takes any layout its operands and result share.
    site.src_shares_layout = true;
    site.runs_well = [](Layouts) { return true; };
  } else {
    return std::nullopt;
  }
  // A constant operand (held in the composite) is plain.
  if (std::find(site.srcs.begin(), site.srcs.end(), -1) != site.srcs.end()) return std::nullopt;
  return site;
}

// Chooses the layouts of one region's values and writes them into its composites.
bool lay_out(Function& region, const Target& target,
             const std::unordered_map<const Function*, int>& calls) {
  std::vector<Site> sites;
  std::unordered_map<const Node*, std::size_t> site_at;
  for (const auto& node : region.nodes())
    if (std::optional<Site> site = site_of(*node, target, calls)) {
      site_at[node.get()] = sites.size();
      sites.push_back(*site);
    }
  auto is_src = [&](const Site& site, std::int64_t index) {
    return std::find(site.srcs.begin(), site.srcs.end(), index) != site.srcs.end();
  };
  // Candidates: a site's result that only sites read, as their data or residual.
  const std::vector<Value*>& outputs = region.outputs();
  std::unordered_set<const Value*> channels_last;
  for (const Site& site : sites) {
    Value* result = site.call->result();
    if (std::find(outputs.begin(), outputs.end(), result) != outputs.end()) continue;
    bool only_sites = !result->uses().empty();
    for (const Use& use : result->uses()) {
      auto it = use.user != nullptr ? site_at.find(use.user) : site_at.end();
      auto index = static_cast<std::int64_t>(use.index);
      if (it == site_at.end() ||
          (!is_src(sites[it->second], index) && index != sites[it->second].residual) ||
          index == sites[it->second].plain)
        only_sites = false;
    }
    if (only_sites) channels_last.insert(result);
  }
  auto is_last = [&](const Value* value) { return channels_last.contains(value); };
  auto layouts = [&](const Site& site) {
    return Layouts{.src_channels_last = is_last(site.call->operand(site.srcs[0])),
                   .dst_channels_last = is_last(site.call->result())};
  };
  // Values leave the set until every site agrees with its layouts: a concatenation's
  // operands laid out alike, a residual as its convolution's result and an eltwise's data as
  // its result (where they differ, those channels last go plain), and a primitive oneDNN
  // runs well (else all of the site's data goes plain; asked once per layouts).
  std::unordered_map<std::size_t, bool> well;
  auto runs_well_as_laid_out = [&](std::size_t i) {
    Layouts chosen = layouts(sites[i]);
    std::size_t key = i * 4 + 2 * chosen.src_channels_last + chosen.dst_channels_last;
    auto it = well.find(key);
    if (it == well.end()) it = well.emplace(key, sites[i].runs_well(chosen)).first;
    return it->second;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < sites.size(); ++i) {
      const Site& site = sites[i];
      const Value* src = site.call->operand(site.srcs[0]);
      const Value* dst = site.call->result();
      const Value* residual = site.residual >= 0 ? site.call->operand(site.residual) : nullptr;
      auto differs = [&](std::int64_t other) {
        return is_last(site.call->operand(other)) != is_last(src);
      };
      if (std::any_of(site.srcs.begin(), site.srcs.end(), differs)) {
        for (std::int64_t other : site.srcs) channels_last.erase(site.call->operand(other));
        changed = true;
      } else if (residual != nullptr && is_last(residual) != is_last(dst)) {
        channels_last.erase(residual);
        channels_last.erase(dst);
        changed = true;
      } else if (site.src_shares_layout && is_last(src) != is_last(dst)) {
        channels_last.erase(src);
        channels_last.erase(dst);
        changed = true;
      } else if ((is_last(src) || is_last(dst)) && !runs_well_as_laid_out(i)) {
        for (std::int64_t other : site.srcs) channels_last.erase(site.call->operand(other));
        for (const Value* value : {dst, residual}) channels_last.erase(value);
        changed = true;
      }
    }
  }
  bool changed = false;
  for (const Site& site : sites) {
    Layouts chosen = layouts(site);
    AttrMap& attrs = site.composite->mutable_attrs();
    if (chosen.src_channels_last)
      attrs.set(std::string(kSrcLayoutAttr), std::string(kChannelsLast));
    if (chosen.dst_channels_last)
      attrs.set(std::string(kDstLayoutAttr), std::string(kChannelsLast));
    changed |= chosen.src_channels_last || chosen.dst_channels_last;
  }
  return changed;
}

}  // namespace

Layouts layouts_of(const Function& composite) {
  const AttrMap& attrs = composite.attrs();
  return {.src_channels_last = attrs.string_or_none(kSrcLayoutAttr) == kChannelsLast,
          .dst_channels_last = attrs.string_or_none(kDstLayoutAttr) == kChannelsLast};
}

Expected<bool> keep_layouts(Module& module, const Target& target) {
  std::unordered_map<const Function*, int> calls;
  for (Function* function : module.functions())
    for (const auto& node : function->nodes())
      if (node->callee() != nullptr) ++calls[node->callee()];
  bool changed = false;
  for (Function* function : module.functions())
    if (function->attrs().string_or_none(kCompilerAttr) == kTargetName)
      changed |= lay_out(*function, target, calls);
  return changed;
}

}  // namespace uma::backends::dnnl
