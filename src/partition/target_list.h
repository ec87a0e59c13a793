// The targets a partition pass works for, looked up from its options.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "uma/partition/partition.h"

namespace uma {

using TargetList = std::vector<std::shared_ptr<const PartitionTarget>>;

// The targets named in `names`, in that (priority) order, from `context`'s registry.
// Errors when the list is empty (the message shows how `pass` takes them) or names a target
// twice; an unknown name is an error listing the known ones.
Expected<TargetList> find_targets(const Context& context, const std::vector<std::string>& names,
                                  std::string_view pass);
// options.resolved when it is not empty (checked for repeats), else the targets named in
// options.targets.
Expected<TargetList> find_targets(const Context& context, const PartitionOptions& options,
                                  std::string_view pass);

}  // namespace uma
