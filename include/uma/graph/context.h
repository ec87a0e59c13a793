// The context that registries belong to: ops, graph passes and partition targets. No
// global state.
#pragma once

#include "uma/graph/pass.h"
#include "uma/op/op_registry.h"
#include "uma/partition/partition.h"

namespace uma {

class Context {
 public:
  // A context with every built-in op, core graph pass and partition pass registered, and
  // no partition target (register_test_targets adds the built-in test targets).
  Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  OpRegistry& ops() { return ops_; }
  const OpRegistry& ops() const { return ops_; }
  PassRegistry& passes() { return passes_; }
  const PassRegistry& passes() const { return passes_; }
  PartitionTargetRegistry& partition_targets() { return partition_targets_; }
  const PartitionTargetRegistry& partition_targets() const { return partition_targets_; }

 private:
  OpRegistry ops_;
  PassRegistry passes_;
  PartitionTargetRegistry partition_targets_;
};

}  // namespace uma
