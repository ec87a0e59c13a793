// The registry of compute rules, and the default rules of the op set.
#include <mutex>

#include "uma/lower/compute.h"

namespace uma::lower {

Status ComputeRegistry::add(std::string op, ComputeRule rule) {
  UMA_CHECK(rule != nullptr, "op {} gets an empty compute rule", op);
  std::unique_lock lock(mutex_);
  if (rules_.count(op)) return make_error("op {} has a compute rule already", op);
  rules_.emplace(std::move(op), std::move(rule));
  return Status::success();
}

const ComputeRule* ComputeRegistry::find(std::string_view op) const {
  std::shared_lock lock(mutex_);
  auto it = rules_.find(op);
  return it == rules_.end() ? nullptr : &it->second;
}

std::vector<std::string> ComputeRegistry::ops() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  names.reserve(rules_.size());
  for (const auto& [name, def] : rules_) names.push_back(name);
  return names;
}

namespace {

// The registry every default rule goes into, filled by its constructor.
struct DefaultComputes : ComputeRegistry {
  DefaultComputes() {
    register_elementwise_computes(*this);
    register_activation_computes(*this);
    register_logical_computes(*this);
    register_transform_computes(*this);
    register_index_computes(*this);
    register_broadcast_computes(*this);
    register_shape_computes(*this);
    register_reduce_computes(*this);
    register_nn_computes(*this);
    register_conv_computes(*this);
    register_pool_computes(*this);
    register_norm_computes(*this);
    register_resize_computes(*this);
  }
};

}  // namespace

const ComputeRegistry& default_computes() {
  // Built once, on first use, thread-safely (a function-local static), and never changed.
  static const DefaultComputes registry;
  return registry;
}

}  // namespace uma::lower
