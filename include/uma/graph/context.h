// The context that registries belong to: ops, graph passes, partition targets, target
// kinds and backends. No global state.
#pragma once

#include <memory>

#include "uma/graph/pass.h"
#include "uma/op/op_registry.h"
#include "uma/partition/partition.h"

namespace uma {

// Defined in uma/uma/target.h and uma/uma/backend.h, which most users of a Context do not
// need.
class TargetKindRegistry;
class BackendRegistry;

class Context {
 public:
  // A context with every built-in op, core graph pass and partition pass registered, the
  // host target kind "c", and no partition target or backend (register_test_targets adds
  // the built-in test targets; register_backend a backend).
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  OpRegistry& ops() { return ops_; }
  const OpRegistry& ops() const { return ops_; }
  PassRegistry& passes() { return passes_; }
  const PassRegistry& passes() const { return passes_; }
  PartitionTargetRegistry& partition_targets() { return partition_targets_; }
  const PartitionTargetRegistry& partition_targets() const { return partition_targets_; }
  TargetKindRegistry& target_kinds() { return *target_kinds_; }
  const TargetKindRegistry& target_kinds() const { return *target_kinds_; }
  BackendRegistry& backends() { return *backends_; }
  const BackendRegistry& backends() const { return *backends_; }

 private:
  OpRegistry ops_;
  PassRegistry passes_;
  PartitionTargetRegistry partition_targets_;
  std::unique_ptr<TargetKindRegistry> target_kinds_;
  std::unique_ptr<BackendRegistry> backends_;
};

}  // namespace uma
