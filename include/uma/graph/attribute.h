// Typed attributes of nodes and functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "uma/graph/tensor.h"

namespace uma {

// One list of attribute kinds: (enumerator, text name, C++ type).
#define UMA_FOR_EACH_ATTR_KIND(X)                 \
  X(Int, "int", std::int64_t)                     \
  X(Float, "float", double)                       \
  X(String, "string", std::string)                \
  X(Ints, "ints", std::vector<std::int64_t>)      \
  X(Floats, "floats", std::vector<double>)        \
  X(Strings, "strings", std::vector<std::string>) \
  X(Tensor, "tensor", TensorPtr)

enum class AttrKind : std::uint8_t {
#define UMA_ATTR_KIND_ENUM(e, name, type) e,
  UMA_FOR_EACH_ATTR_KIND(UMA_ATTR_KIND_ENUM)
#undef UMA_ATTR_KIND_ENUM
};

std::string_view attr_kind_name(AttrKind kind);

// The variant's alternatives are in the order of UMA_FOR_EACH_ATTR_KIND.
using Attribute = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>,
                               std::vector<double>, std::vector<std::string>, TensorPtr>;

inline AttrKind attr_kind(const Attribute& a) { return static_cast<AttrKind>(a.index()); }
// Equal values; tensors compare by contents.
bool attr_equal(const Attribute& a, const Attribute& b);

// A node attribute whose name holds a '.' (`uma.target`, `uma.region`) belongs to no op
// schema: passes attach such attributes to record facts about a node (which target
// claimed it, which region it is in). They are printed, parsed and cloned like any other,
// and a node that replaces another does not inherit them.
inline bool is_discardable_attr(std::string_view name) {
  return name.find('.') != std::string_view::npos;
}

// Attributes by name, kept sorted so printing and comparison are deterministic.
class AttrMap {
 public:
  using Map = std::map<std::string, Attribute, std::less<>>;

  bool has(std::string_view name) const { return map_.find(name) != map_.end(); }
  const Attribute* find(std::string_view name) const;
  void set(std::string name, Attribute value) {
    map_.insert_or_assign(std::move(name), std::move(value));
  }
  void erase(std::string_view name);

  // Typed getters for attributes the op schema guarantees (present, right kind).
  std::int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  const std::vector<std::int64_t>& get_ints(std::string_view name) const;
  const std::vector<double>& get_floats(std::string_view name) const;
  const std::vector<std::string>& get_strings(std::string_view name) const;
  const TensorPtr& get_tensor(std::string_view name) const;
  // A string attribute, or nullopt when absent.
  std::optional<std::string> string_or_none(std::string_view name) const;

  Map::const_iterator begin() const { return map_.begin(); }
  Map::const_iterator end() const { return map_.end(); }
  std::size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  bool operator==(const AttrMap& other) const;

 private:
  const Attribute& get(std::string_view name, AttrKind kind) const;
  Map map_;
};

}  // namespace uma
