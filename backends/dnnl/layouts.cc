// dnnl-layouts (POST_PARTITIONING_1): data kept in oneDNN's own layouts between the
// convolutions, poolings, batch normalizations, binary and unary elementwise ops and
// concatenations of a region.
//
// oneDNN's direct convolutions on this kind of CPU compute channels last (NHWC), its Winograd
// ones blocked by 16 channels (nChw16c); given plain data (NCHW), each reorders its input
// there and its result back, at every call. A value that one dnnl.conv, dnnl.pool, batch
// dnnl.norm, dnnl.binary, dnnl.eltwise or dnnl.concat (of rank 3 to 5) of a region makes and
// that only others of the same region read, as their data (a binary op's full operand, any
// operand of a concatenation) or as a convolution's residual, has no reader that needs it
// plain. It starts at the best layout it may take: blocked by 16 channels in a region with
// Winograd convolutions, where its channels are a multiple of 16 (oneDNN's other primitives
// compute blocked data as fast); else channels last. Both have the plain layout's size, so
// the memory plan is unchanged. Since a primitive given two different layouts is oneDNN's
// reference one, values then step down (blocked, channels last, plain) until every composite
// agrees with its layouts.
//
// Assumes: partition-graph ran; the composites of a dnnl region are calls of composite
// functions called once each.
// Guarantees: each such composite whose data or result is not plain has the function
// attribute src_layout or dst_layout naming its layout (dnnl.h). A concatenation's operands
// share one layout, and share it with its result (its copy takes plain or channels-last
// rows); a residual shares its convolution's result layout; an eltwise's data shares its
// result's (it maps the values of a flat array, each alone, so it computes the same in any
// layout the two share); and every composite so laid out has a primitive that is not
// oneDNN's reference one. The region's parameters and results stay plain.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

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
  bool winograd = false;  // a convolution by Winograd's algorithm
  std::function<bool(Layouts)> runs_well;
};

// Whether `value` may be blocked by 16 channels at no cost in memory: its channels (axis 1)
// are a multiple of 16, with 1 to 3 spatial dimensions after them.
bool blockable(const Value* value) {
  const Shape& shape = value->tensor_type().shape;
  return shape.size() >= 3 && shape.size() <= 5 && shape[1] % 16 == 0;
}

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
    site.winograd = call->algorithm == dnnl_convolution_winograd;
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
    // The kernel's copy takes the plain or channels-last layout its operands and result share.
    site.src_shares_layout = true;
    site.runs_well = [](Layouts layouts) {
      return layouts.src != Layout::kBlocked16 && layouts.dst != Layout::kBlocked16;
    };
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
  // Candidates: a site's result that only sites read, as their data or residual. Each starts
  // at the best layout it may take: in a region with Winograd convolutions, blocked by 16
  // channels where it can be (their own layout, which oneDNN's other primitives compute in
  // as fast), so that no reorder surrounds them; else channels last.
  const std::vector<Value*>& outputs = region.outputs();
  bool winograd = std::any_of(sites.begin(), sites.end(), [](const Site& s) { return s.winograd; });
  std::unordered_map<const Value*, Layout> chosen;
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
    if (only_sites)
      chosen[result] = winograd && blockable(result) ? Layout::kBlocked16 : Layout::kChannelsLast;
  }
  auto layout = [&](const Value* value) {
    auto it = chosen.find(value);
    return it == chosen.end() ? Layout::kPlain : it->second;
  };
  // Lowers `values` to `to` where they are above it; whether any was.
  auto lower_to = [&](std::initializer_list<const Value*> values, Layout to) {
    bool lowered = false;
    for (const Value* value : values)
      if (value != nullptr && layout(value) > to) {
        if (to == Layout::kPlain)
          chosen.erase(value);
        else
          chosen[value] = to;
        lowered = true;
      }
    return lowered;
  };
  auto layouts = [&](const Site& site) {
    return Layouts{.src = layout(site.call->operand(site.srcs[0])),
                   .dst = layout(site.call->result())};
  };
  // Values step down (blocked, channels last, plain) until every site agrees with its
  // layouts: a concatenation's operands laid out alike, a residual as its convolution's
  // result and an eltwise's data as its result (where they differ, both take the lower), and
  // a primitive oneDNN runs well (else the site's values in the highest layout among them
  // step down one; asked once per layouts).
  std::unordered_map<std::size_t, bool> well;
  auto runs_well_as_laid_out = [&](std::size_t i) {
    Layouts laid_out = layouts(sites[i]);
    std::size_t key =
        i * 9 + 3 * static_cast<std::size_t>(laid_out.src) + static_cast<std::size_t>(laid_out.dst);
    auto it = well.find(key);
    if (it == well.end()) it = well.emplace(key, sites[i].runs_well(laid_out)).first;
    return it->second;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < sites.size(); ++i) {
      const Site& site = sites[i];
      std::vector<const Value*> srcs;
      for (std::int64_t index : site.srcs) srcs.push_back(site.call->operand(index));
      const Value* dst = site.call->result();
      const Value* residual = site.residual >= 0 ? site.call->operand(site.residual) : nullptr;
      Layout lowest_src = layout(srcs[0]), highest = layout(dst);
      for (const Value* src : srcs) lowest_src = std::min(lowest_src, layout(src));
      for (const Value* value : srcs) highest = std::max(highest, layout(value));
      if (residual != nullptr) highest = std::max(highest, layout(residual));
      bool lowered = false;
      for (const Value* src : srcs) lowered |= lower_to({src}, lowest_src);
      if (!lowered && residual != nullptr && layout(residual) != layout(dst))
        lowered = lower_to({residual, dst}, std::min(layout(residual), layout(dst)));
      if (!lowered && site.src_shares_layout && layout(srcs[0]) != layout(dst))
        lowered = lower_to({srcs[0], dst}, std::min(layout(srcs[0]), layout(dst)));
      if (!lowered && highest != Layout::kPlain && !runs_well_as_laid_out(i)) {
        auto step_down = static_cast<Layout>(static_cast<std::int64_t>(highest) - 1);
        for (const Value* src : srcs)
          if (layout(src) == highest) lower_to({src}, step_down);
        for (const Value* value : {dst, residual})
          if (value != nullptr && layout(value) == highest) lower_to({value}, step_down);
        lowered = true;
      }
      changed |= lowered;
    }
  }
  bool changed = false;
  for (const Site& site : sites) {
    Layouts laid_out = layouts(site);
    AttrMap& attrs = site.composite->mutable_attrs();
    if (laid_out.src != Layout::kPlain)
      attrs.set(std::string(kSrcLayoutAttr), std::string(layout_name(laid_out.src)));
    if (laid_out.dst != Layout::kPlain)
      attrs.set(std::string(kDstLayoutAttr), std::string(layout_name(laid_out.dst)));
    changed |= laid_out.src != Layout::kPlain || laid_out.dst != Layout::kPlain;
  }
  return changed;
}

}  // namespace

std::string_view layout_name(Layout layout) {
  switch (layout) {
    case Layout::kChannelsLast:
      return "channels_last";
    case Layout::kBlocked16:
      return "blocked16";
    case Layout::kPlain:
      break;
  }
  return "plain";
}

Layouts layouts_of(const Function& composite) {
  auto read = [&](std::string_view attr) {
    std::optional<std::string> name = composite.attrs().string_or_none(attr);
    for (Layout layout : {Layout::kChannelsLast, Layout::kBlocked16})
      if (name == layout_name(layout)) return layout;
    return Layout::kPlain;
  };
  return {.src = read(kSrcLayoutAttr), .dst = read(kDstLayoutAttr)};
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
