// The op family of a generated function, and call timings grouped by family.
#include "uma/uma/profile.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "uma/op/cost.h"
#include "uma/op/op_registry.h"

namespace uma {
namespace {

// Families in the order function_family ranks them, heaviest first.
constexpr std::array kRanked = {OpFamily::kConvKxK, OpFamily::kConv1x1,     OpFamily::kDepthwise,
                                OpFamily::kDense,   OpFamily::kSoftmaxNorm, OpFamily::kPool,
                                OpFamily::kOther,   OpFamily::kElementwise, OpFamily::kLayout};

int rank(OpFamily family) {
  return static_cast<int>(std::find(kRanked.begin(), kRanked.end(), family) - kRanked.begin());
}

OpFamily conv_family(const Node& node) {
  if (node.op_name().ends_with("_transpose") || node.num_operands() < 2 ||
      !node.operand(1)->type().is_tensor())
    return OpFamily::kConvKxK;
  const Shape& weight = node.operand(1)->tensor_type().shape;  // (O, C / groups, kernel...)
  if (node.attrs().has("groups") && node.attrs().get_int("groups") > 1 && weight.size() > 1 &&
      weight[1] == 1)
    return OpFamily::kDepthwise;
  // A packed weight, (O / b, C, kh, kw, b), ends with its block of output channels.
  bool packed = node.is_op("nn.conv2d_packed") || node.is_op("nn.conv2d_nchwc");
  auto kernel_end = weight.end() - (packed && !weight.empty() ? 1 : 0);
  bool one_by_one = std::all_of(weight.begin() + std::min<std::size_t>(2, weight.size()),
                                kernel_end, [](std::int64_t extent) { return extent == 1; });
  return one_by_one ? OpFamily::kConv1x1 : OpFamily::kConvKxK;
}

// The family of one op; nullopt for the ops that do no work (constants, tuples).
std::optional<OpFamily> node_family(const Node& node) {
  std::string_view op = node.op_name();
  if (op == "constant" || op == "tuple" || op == "get_item") return std::nullopt;
  if (op.starts_with("nn.conv")) return conv_family(node);
  if (op == "nn.dense" || op == "nn.dense_packed" || op == "nn.matmul") return OpFamily::kDense;
  if (op == "nn.softmax" || op == "nn.log_softmax" || op == "nn.layer_norm" ||
      op == "nn.instance_norm")
    return OpFamily::kSoftmaxNorm;
  if (op.find("pool") != std::string_view::npos) return OpFamily::kPool;
  switch (node.op().fusion) {
    case FusionCategory::kElementwise:
      return OpFamily::kElementwise;
    case FusionCategory::kInjective:
      return OpFamily::kLayout;
    case FusionCategory::kAnchor:
    case FusionCategory::kOpaque:
      break;
  }
  return OpFamily::kOther;
}

// The heaviest family of the function's ops, the callees' of its calls included; nullopt
// when it has no op that works.
std::optional<OpFamily> heaviest(const Function& function) {
  std::optional<OpFamily> best;
  for (const auto& node : function.nodes()) {
    std::optional<OpFamily> family = node->is_op("call") && node->callee() != nullptr
                                         ? heaviest(*node->callee())
                                         : node_family(*node);
    if (family && (!best || rank(*family) < rank(*best))) best = family;
  }
  return best;
}

}  // namespace

std::string_view op_family_name(OpFamily family) {
  switch (family) {
    case OpFamily::kConvKxK:
      return "conv kxk";
    case OpFamily::kConv1x1:
      return "conv 1x1";
    case OpFamily::kDepthwise:
      return "depthwise";
    case OpFamily::kDense:
      return "dense/matmul";
    case OpFamily::kElementwise:
      return "elementwise";
    case OpFamily::kPool:
      return "pool";
    case OpFamily::kSoftmaxNorm:
      return "softmax/norm";
    case OpFamily::kLayout:
      return "layout";
    case OpFamily::kOther:
      break;
  }
  return "other";
}

OpFamily function_family(const Function& function) {
  return heaviest(function).value_or(OpFamily::kLayout);
}

Expected<std::vector<FamilyProfile>> profile_by_family(
    const Module& module, const std::vector<runtime::CallTiming>& timings) {
  std::vector<FamilyProfile> families;
  for (const runtime::CallTiming& timing : timings) {
    const Function* function = module.find_function(timing.name);
    if (function == nullptr)
      return make_error("the profile's call of @{}: the module has no such function", timing.name);
    OpFamily family = function_family(*function);
    auto it = std::find_if(families.begin(), families.end(),
                           [&](const FamilyProfile& entry) { return entry.family == family; });
    if (it == families.end()) it = families.insert(families.end(), {family});
    std::int64_t macs = 0;
    for (const auto& node : function->nodes())
      if (!node->is_op("constant")) macs = saturating_add(macs, node_cost(*node).macs);
    it->calls += timing.count;
    it->time += timing.total;
    std::int64_t all_calls = 0;
    if (__builtin_mul_overflow(macs, timing.count, &all_calls))
      all_calls = std::numeric_limits<std::int64_t>::max();
    it->macs = saturating_add(it->macs, all_calls);
  }
  std::stable_sort(families.begin(), families.end(),
                   [](const FamilyProfile& a, const FamilyProfile& b) { return a.time > b.time; });
  return families;
}

}  // namespace uma
