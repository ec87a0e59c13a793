// The registry of partition targets.
#include <mutex>

#include "uma/partition/partition.h"

namespace uma {

Status PartitionTargetRegistry::add(PartitionTarget target) {
  if (target.name.empty()) return make_error("a partition target needs a name");
  if (target.name.find('.') != std::string::npos)
    return make_error(
        "partition target name '{}' holds a '.', which separates a target from "
        "its pattern in composite names",
        target.name);
  std::unique_lock lock(mutex_);
  if (targets_.count(target.name))
    return make_error("partition target '{}' is registered twice", target.name);
  std::string name = target.name;
  targets_.emplace(std::move(name), std::make_shared<const PartitionTarget>(std::move(target)));
  return Status::success();
}

Expected<std::shared_ptr<const PartitionTarget>> PartitionTargetRegistry::find(
    std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = targets_.find(name);
  if (it != targets_.end()) return it->second;
  std::string known;
  for (const auto& [n, t] : targets_) known += (known.empty() ? "" : ", ") + n;
  return make_error("unknown partition target '{}' (known targets: {})", name,
                    known.empty() ? "none" : known);
}

std::vector<std::string> PartitionTargetRegistry::names() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, target] : targets_) names.push_back(name);
  return names;
}

}  // namespace uma
