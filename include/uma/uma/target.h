// Targets: what a build compiles for. A target kind is registered once (the host's "c", or a
// backend's, which register_backend creates from Backend::target_name and its attributes);
// a target is a kind with its attributes set, written as on a command line:
//
//   "vanilla --dimension=16"       "ultra_trail"       "c --threads=2"
//
// Attributes are typed (string, int, bool) with defaults. Every kind also has the standard
// attributes below, which no kind may declare again. An attribute not set keeps its
// default; `--flag` alone sets a bool to true.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "uma/support/error.h"

namespace uma {

enum class TargetAttrType : std::uint8_t { kString, kInt, kBool };
std::string_view target_attr_type_name(TargetAttrType type);  // "string", "int", "bool"

using TargetAttrValue = std::variant<std::string, std::int64_t, bool>;

struct TargetAttrDef {
  std::string name;
  TargetAttrValue default_value;  // its alternative is the attribute's type
  std::string help;
  TargetAttrType type() const { return static_cast<TargetAttrType>(default_value.index()); }
};

// The attributes every target kind has (those of TVM's targets that mean something here):
// keys, device, model, tag, mcpu, mattr, libs; strings, empty by default.
std::span<const TargetAttrDef> standard_target_attrs();

struct TargetKind {
  std::string name;
  std::vector<TargetAttrDef> attrs;  // the kind's own, in declaration order
  // The host kind runs what no backend takes; a build has exactly one host target.
  bool is_host = false;

  // The attribute, the kind's own or a standard one; null when neither.
  const TargetAttrDef* find_attr(std::string_view attr) const;
};

// A kind with every attribute set (to its default when not given).
class Target {
 public:
  Target(std::shared_ptr<const TargetKind> kind, std::map<std::string, TargetAttrValue> values);

  const TargetKind& kind() const { return *kind_; }
  const std::string& name() const { return kind_->name; }
  bool is_host() const { return kind_->is_host; }

  // An attribute's value; an error when the kind has no such attribute or it has another
  // type ("target 'vanilla': attribute 'dimension' is an int, not a string").
  Expected<std::string> get_string(std::string_view attr) const;
  Expected<std::int64_t> get_int(std::string_view attr) const;
  Expected<bool> get_bool(std::string_view attr) const;

  // The kind's name, then the attributes that differ from their defaults, in the kind's
  // order: "vanilla --dimension=16". Parses back to an equal target.
  std::string str() const;

 private:
  template <typename T>
  Expected<T> get(std::string_view attr, TargetAttrType type) const;

  std::shared_ptr<const TargetKind> kind_;
  std::map<std::string, TargetAttrValue, std::less<>> values_;
};

// Target kinds by name. Belongs to a Context; safe to use from several threads.
class TargetKindRegistry {
 public:
  // Errors: the name is empty or not [A-Za-z_][A-Za-z0-9_]*, a kind of that name exists, an
  // attribute is declared twice, has an invalid name, or shadows a standard attribute.
  Status add(TargetKind kind);
  // The kind, or an error listing the known ones.
  Expected<std::shared_ptr<const TargetKind>> find(std::string_view name) const;
  std::vector<std::string> names() const;

  // A target from its text, "<kind> [--attr=value | --flag]...". Errors quote the text and
  // name the attribute at fault: unknown (listing the kind's attributes), given twice, or a
  // value of the wrong type.
  Expected<Target> parse(std::string_view text) const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const TargetKind>, std::less<>> kinds_;
};

// The host kind every Context has: "c", generated C run in-process. Its backend,
// backends/cpu/, declares it with its attributes (`threads`).
inline constexpr std::string_view kHostTargetKind = "c";

}  // namespace uma
