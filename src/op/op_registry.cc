// The op registry and attribute-schema checking.
#include "uma/op/op_registry.h"

#include <mutex>

namespace uma {

const AttrDef* OpDef::find_attr(std::string_view attr_name) const {
  for (const AttrDef& a : attrs)
    if (a.name == attr_name) return &a;
  return nullptr;
}

Status OpDef::normalize_attrs(AttrMap& given) const {
  for (const auto& [attr_name, value] : given) {
    if (is_discardable_attr(attr_name)) continue;
    const AttrDef* def = find_attr(attr_name);
    if (def == nullptr) return make_error("unknown attribute '{}' for op {}", attr_name, name);
    AttrKind kind = attr_kind(value);
    if (kind == def->kind) continue;
    if (kind == AttrKind::Int && def->kind == AttrKind::Float) {
      given.set(attr_name, static_cast<double>(std::get<std::int64_t>(value)));
    } else if (kind == AttrKind::Ints && def->kind == AttrKind::Floats) {
      const auto& ints = std::get<std::vector<std::int64_t>>(value);
      given.set(attr_name, std::vector<double>(ints.begin(), ints.end()));
    } else {
      return make_error("attribute '{}' of op {} must be {}, not {}", attr_name, name,
                        attr_kind_name(def->kind), attr_kind_name(kind));
    }
  }
  for (const AttrDef& def : attrs) {
    if (given.has(def.name)) continue;
    if (!def.default_value) return make_error("op {} requires attribute '{}'", name, def.name);
    given.set(def.name, *def.default_value);
  }
  return Status::success();
}

Status OpDef::check_arity(std::size_t count) const {
  auto n = static_cast<int>(count);
  if (n >= min_inputs && (max_inputs == kVariadic || n <= max_inputs)) return Status::success();
  if (max_inputs == kVariadic)
    return make_error("op {} takes at least {} operand(s), got {}", name, min_inputs, n);
  if (min_inputs == max_inputs)
    return make_error("op {} takes {} operand(s), got {}", name, min_inputs, n);
  return make_error("op {} takes {} to {} operands, got {}", name, min_inputs, max_inputs, n);
}

Status OpRegistry::add(OpDef def) {
  std::unique_lock lock(mutex_);
  if (by_name_.count(def.name)) return make_error("op {} is registered twice", def.name);
  defs_.push_back(std::move(def));
  by_name_.emplace(defs_.back().name, &defs_.back());
  return Status::success();
}

const OpDef* OpRegistry::find(std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<std::string> OpRegistry::names() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, def] : by_name_) out.push_back(name);
  return out;
}

void register_all_ops(OpRegistry& registry) {
  register_builtin_ops(registry);
  register_elementwise_ops(registry);
  register_activation_ops(registry);
  register_logical_ops(registry);
  register_nn_ops(registry);
  register_conv_ops(registry);
  register_pool_ops(registry);
  register_norm_ops(registry);
  register_resize_ops(registry);
  register_transform_ops(registry);
  register_index_ops(registry);
  register_broadcast_ops(registry);
  register_shape_ops(registry);
  register_reduce_ops(registry);
}

}  // namespace uma
