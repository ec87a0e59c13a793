// Reading the partition passes' node attributes.
#include "annotations.h"

namespace uma::annotations {

bool is_host_function(const Function& function) {
  return !function.attrs().has(kCompositeAttr) && !function.attrs().has(kCompilerAttr);
}

Expected<std::optional<std::string>> target_of(const Node& node) {
  const Attribute* value = node.attrs().find(kTargetAttr);
  if (value == nullptr) return std::optional<std::string>();
  const auto* target = std::get_if<std::string>(value);
  if (target == nullptr)
    return make_error("{}: attribute '{}' is {}, it must be a string", node.location(), kTargetAttr,
                      attr_kind_name(attr_kind(*value)));
  if (target->empty())
    return make_error("{}: attribute '{}' is empty, it must name a target", node.location(),
                      kTargetAttr);
  return std::optional<std::string>(*target);
}

Expected<std::optional<std::int64_t>> region_of(const Node& node) {
  const Attribute* value = node.attrs().find(kRegionAttr);
  if (value == nullptr) return std::optional<std::int64_t>();
  const auto* region = std::get_if<std::int64_t>(value);
  if (region == nullptr)
    return make_error("{}: attribute '{}' is {}, it must be an int", node.location(), kRegionAttr,
                      attr_kind_name(attr_kind(*value)));
  return std::optional<std::int64_t>(*region);
}

bool can_be_in_region(const Node& node) {
  if (node.is_op("constant")) return false;
  const Function* callee = node.callee();
  return callee == nullptr || !callee->attrs().has(kCompilerAttr);
}

Expected<std::optional<std::string>> region_target_of(const Node& node) {
  UMA_TRY_ASSIGN(std::optional<std::string> target, target_of(node));
  if (!can_be_in_region(node)) return std::optional<std::string>();
  return target;
}

bool erase_partition_attrs(Node& node) {
  bool had = node.attrs().has(kTargetAttr) || node.attrs().has(kRegionAttr);
  node.mutable_attrs().erase(kTargetAttr);
  node.mutable_attrs().erase(kRegionAttr);
  return had;
}

}  // namespace uma::annotations
