// The partition policy as the commands that partition take it: --partition=greedy|cost and
// --no-fallback (uma/uma/partition_policy.h).
#pragma once

#include <CLI/CLI.hpp>

#include "uma/uma/build.h"

namespace uma::tool {

struct PolicyOptions {
  PartitionPolicy partition = PartitionPolicy::kGreedy;
  bool no_fallback = false;
  bool is_default() const { return partition == PartitionPolicy::kGreedy && !no_fallback; }
};

// Adds --partition and --no-fallback to `command`.
void add_policy_options(CLI::App& command, PolicyOptions& options);

}  // namespace uma::tool
