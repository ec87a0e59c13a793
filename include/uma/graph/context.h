// The context that registries belong to: ops and graph passes. No global state.
#pragma once

#include "uma/graph/pass.h"
#include "uma/op/op_registry.h"

namespace uma {

class Context {
 public:
  // A context with every built-in op and core graph pass registered.
  Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  OpRegistry& ops() { return ops_; }
  const OpRegistry& ops() const { return ops_; }
  PassRegistry& passes() { return passes_; }
  const PassRegistry& passes() const { return passes_; }

 private:
  OpRegistry ops_;
  PassRegistry passes_;
};

}  // namespace uma
