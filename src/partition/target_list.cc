// Looking up the targets of a partition pass.
#include "target_list.h"

#include <algorithm>

#include "uma/uma/context.h"

namespace uma {

Expected<TargetList> find_targets(const Context& context, const std::vector<std::string>& names,
                                  std::string_view pass) {
  if (names.empty())
    return make_error("no target to partition for: name them, e.g. {}{{targets=a,b}}", pass);
  TargetList targets;
  for (auto name = names.begin(); name != names.end(); ++name) {
    if (std::find(names.begin(), name, *name) != name)
      return make_error("target '{}' is listed twice", *name);
    UMA_TRY_ASSIGN(auto target, context.partition_targets().find(*name));
    targets.push_back(std::move(target));
  }
  return targets;
}

Expected<TargetList> find_targets(const Context& context, const PartitionOptions& options,
                                  std::string_view pass) {
  if (options.resolved.empty()) return find_targets(context, options.targets, pass);
  for (auto target = options.resolved.begin(); target != options.resolved.end(); ++target)
    for (auto earlier = options.resolved.begin(); earlier != target; ++earlier)
      if ((*earlier)->name == (*target)->name)
        return make_error("target '{}' is listed twice", (*target)->name);
  return options.resolved;
}

}  // namespace uma
