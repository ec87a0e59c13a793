// Typed attributes.
#include "uma/graph/attribute.h"

namespace uma {

std::string_view attr_kind_name(AttrKind kind) {
  switch (kind) {
#define UMA_ATTR_KIND_NAME(e, name, type) \
  case AttrKind::e:                       \
    return name;
    UMA_FOR_EACH_ATTR_KIND(UMA_ATTR_KIND_NAME)
#undef UMA_ATTR_KIND_NAME
  }
  return "?";
}

bool attr_equal(const Attribute& a, const Attribute& b) {
  if (a.index() != b.index()) return false;
  if (const auto* ta = std::get_if<TensorPtr>(&a)) {
    const TensorPtr& tb = std::get<TensorPtr>(b);
    return ta->get() == tb.get() || (*ta && tb && (*ta)->same_contents(*tb));
  }
  return a == b;
}

const Attribute* AttrMap::find(std::string_view name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

void AttrMap::erase(std::string_view name) {
  auto it = map_.find(name);
  if (it != map_.end()) map_.erase(it);
}

const Attribute& AttrMap::get(std::string_view name, AttrKind kind) const {
  const Attribute* a = find(name);
  UMA_CHECK(a != nullptr, "attribute '{}' missing", name);
  UMA_CHECK(attr_kind(*a) == kind, "attribute '{}' is {}, not {}", name,
            attr_kind_name(attr_kind(*a)), attr_kind_name(kind));
  return *a;
}

std::int64_t AttrMap::get_int(std::string_view name) const {
  return std::get<std::int64_t>(get(name, AttrKind::Int));
}
double AttrMap::get_float(std::string_view name) const {
  return std::get<double>(get(name, AttrKind::Float));
}
const std::string& AttrMap::get_string(std::string_view name) const {
  return std::get<std::string>(get(name, AttrKind::String));
}
const std::vector<std::int64_t>& AttrMap::get_ints(std::string_view name) const {
  return std::get<std::vector<std::int64_t>>(get(name, AttrKind::Ints));
}
const std::vector<double>& AttrMap::get_floats(std::string_view name) const {
  return std::get<std::vector<double>>(get(name, AttrKind::Floats));
}
const std::vector<std::string>& AttrMap::get_strings(std::string_view name) const {
  return std::get<std::vector<std::string>>(get(name, AttrKind::Strings));
}
const TensorPtr& AttrMap::get_tensor(std::string_view name) const {
  return std::get<TensorPtr>(get(name, AttrKind::Tensor));
}

std::optional<std::string> AttrMap::string_or_none(std::string_view name) const {
  const Attribute* a = find(name);
  if (a == nullptr || attr_kind(*a) != AttrKind::String) return std::nullopt;
  return std::get<std::string>(*a);
}

bool AttrMap::operator==(const AttrMap& other) const {
  if (map_.size() != other.map_.size()) return false;
  for (auto a = map_.begin(), b = other.map_.begin(); a != map_.end(); ++a, ++b)
    if (a->first != b->first || !attr_equal(a->second, b->second)) return false;
  return true;
}

}  // namespace uma
