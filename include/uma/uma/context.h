// The context that registries belong to: ops, graph passes, partition targets, target
// kinds and backends, all filled here at the top layer (the graph layer sees only the
// ops and passes). No global state.
#pragma once

#include <memory>

#include "uma/graph/pass.h"
#include "uma/op/op_registry.h"

namespace uma {

// Defined in uma/partition/partition.h, uma/uma/target.h and uma/uma/backend.h, which most
// users of a Context do not need.
class PartitionTargetRegistry;
class TargetKindRegistry;
class BackendRegistry;
class Backend;

class Context {
 public:
  // A context with every built-in op, core graph pass and partition pass registered, the
  // host's backend (backends/cpu/, target kind "c"), and no partition target or other
  // backend (register_backend adds a backend).
  Context();
  // The same with `host` as the host's backend instead (a Backend that called
  // declare_host()), for trying other host schedules.
  explicit Context(std::unique_ptr<Backend> host);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  OpRegistry& ops() { return ops_; }
  const OpRegistry& ops() const { return ops_; }
  PassRegistry& passes() { return passes_; }
  const PassRegistry& passes() const { return passes_; }
  PartitionTargetRegistry& partition_targets() { return *partition_targets_; }
  const PartitionTargetRegistry& partition_targets() const { return *partition_targets_; }
  TargetKindRegistry& target_kinds() { return *target_kinds_; }
  const TargetKindRegistry& target_kinds() const { return *target_kinds_; }
  BackendRegistry& backends() { return *backends_; }
  const BackendRegistry& backends() const { return *backends_; }

 private:
  OpRegistry ops_;
  PassRegistry passes_;
  std::unique_ptr<PartitionTargetRegistry> partition_targets_;
  std::unique_ptr<TargetKindRegistry> target_kinds_;
  std::unique_ptr<BackendRegistry> backends_;
};

}  // namespace uma
