// Target kinds, targets, and parsing a target from its text (see uma/uma/target.h).
#include "uma/uma/target.h"

#include <cctype>
#include <charconv>
#include <mutex>

#include <fmt/format.h>

namespace uma {
namespace {

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Attribute names may also hold '-' (as command-line options do), not at the start.
bool is_attr_name(std::string_view name) {
  if (name.empty() || name[0] == '-' || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

std::string value_text(const TargetAttrValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  return std::get<bool>(value) ? "true" : "false";
}

std::string attr_names(const TargetKind& kind) {
  std::string names;
  for (const TargetAttrDef& def : kind.attrs) names += (names.empty() ? "" : ", ") + def.name;
  for (const TargetAttrDef& def : standard_target_attrs())
    names += (names.empty() ? "" : ", ") + def.name;
  return names;
}

// The value of `text` for an attribute of `def`'s type.
Expected<TargetAttrValue> parse_value(const TargetAttrDef& def, std::string_view text) {
  switch (def.type()) {
    case TargetAttrType::kString:
      return TargetAttrValue(std::string(text));
    case TargetAttrType::kInt: {
      std::int64_t number = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error == std::errc() && end == text.data() + text.size() && !text.empty())
        return TargetAttrValue(number);
      break;
    }
    case TargetAttrType::kBool:
      if (text == "true" || text == "1") return TargetAttrValue(true);
      if (text == "false" || text == "0") return TargetAttrValue(false);
      break;
  }
  return make_error("attribute '{}' is {} {}, not '{}'", def.name,
                    def.type() == TargetAttrType::kInt ? "an" : "a",
                    target_attr_type_name(def.type()), text);
}

}  // namespace

std::string_view target_attr_type_name(TargetAttrType type) {
  switch (type) {
    case TargetAttrType::kString:
      return "string";
    case TargetAttrType::kInt:
      return "int";
    case TargetAttrType::kBool:
      return "bool";
  }
  return "?";
}

std::span<const TargetAttrDef> standard_target_attrs() {
  static const std::vector<TargetAttrDef> attrs = {
      {"keys", std::string(), "comma-separated keys that select target-generic code"},
      {"device", std::string(), "the device's name"},
      {"model", std::string(), "the device's model"},
      {"tag", std::string(), "a name for this configuration"},
      {"mcpu", std::string(), "the CPU the generated code is for"},
      {"mattr", std::string(), "CPU features, comma-separated"},
      {"libs", std::string(), "external libraries, comma-separated"},
  };
  return attrs;
}

const TargetAttrDef* TargetKind::find_attr(std::string_view attr) const {
  for (const TargetAttrDef& def : attrs)
    if (def.name == attr) return &def;
  for (const TargetAttrDef& def : standard_target_attrs())
    if (def.name == attr) return &def;
  return nullptr;
}

// ---- Target ----

Target::Target(std::shared_ptr<const TargetKind> kind,
               std::map<std::string, TargetAttrValue> values)
    : kind_(std::move(kind)) {
  for (auto& [name, value] : values) values_.emplace(name, std::move(value));
  for (const TargetAttrDef& def : kind_->attrs) values_.emplace(def.name, def.default_value);
  for (const TargetAttrDef& def : standard_target_attrs())
    values_.emplace(def.name, def.default_value);
}

template <typename T>
Expected<T> Target::get(std::string_view attr, TargetAttrType type) const {
  const TargetAttrDef* def = kind_->find_attr(attr);
  if (def == nullptr)
    return make_error("target '{}' has no attribute '{}' (it has: {})", name(), attr,
                      attr_names(*kind_));
  if (def->type() != type)
    return make_error("target '{}': attribute '{}' is {} {}, not {} {}", name(), attr,
                      def->type() == TargetAttrType::kInt ? "an" : "a",
                      target_attr_type_name(def->type()), type == TargetAttrType::kInt ? "an" : "a",
                      target_attr_type_name(type));
  return std::get<T>(values_.find(attr)->second);
}

Expected<std::string> Target::get_string(std::string_view attr) const {
  return get<std::string>(attr, TargetAttrType::kString);
}
Expected<std::int64_t> Target::get_int(std::string_view attr) const {
  return get<std::int64_t>(attr, TargetAttrType::kInt);
}
Expected<bool> Target::get_bool(std::string_view attr) const {
  return get<bool>(attr, TargetAttrType::kBool);
}

std::string Target::str() const {
  std::string text = name();
  auto append = [&](const TargetAttrDef& def) {
    const TargetAttrValue& value = values_.find(def.name)->second;
    if (value != def.default_value) text += fmt::format(" --{}={}", def.name, value_text(value));
  };
  for (const TargetAttrDef& def : kind_->attrs) append(def);
  for (const TargetAttrDef& def : standard_target_attrs()) append(def);
  return text;
}

// ---- TargetKindRegistry ----

Status TargetKindRegistry::add(TargetKind kind) {
  if (!is_identifier(kind.name))
    return make_error("target kind name '{}' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
                      kind.name);
  for (auto def = kind.attrs.begin(); def != kind.attrs.end(); ++def) {
    if (!is_attr_name(def->name))
      return make_error("target kind '{}': attribute name '{}' is not a valid name", kind.name,
                        def->name);
    for (const TargetAttrDef& standard : standard_target_attrs())
      if (standard.name == def->name)
        return make_error(
            "target kind '{}': attribute '{}' shadows the standard attribute of that name",
            kind.name, def->name);
    for (auto earlier = kind.attrs.begin(); earlier != def; ++earlier)
      if (earlier->name == def->name)
        return make_error("target kind '{}': attribute '{}' is declared twice", kind.name,
                          def->name);
  }
  std::unique_lock lock(mutex_);
  if (kinds_.count(kind.name))
    return make_error("target kind '{}' is registered already", kind.name);
  std::string name = kind.name;
  kinds_.emplace(std::move(name), std::make_shared<const TargetKind>(std::move(kind)));
  return Status::success();
}

Expected<std::shared_ptr<const TargetKind>> TargetKindRegistry::find(std::string_view name) const {
  std::shared_lock lock(mutex_);
  if (auto it = kinds_.find(name); it != kinds_.end()) return it->second;
  std::string known;
  for (const auto& [kind, _] : kinds_) known += (known.empty() ? "" : ", ") + kind;
  return make_error("unknown target kind '{}' (known: {})", name, known);
}

std::vector<std::string> TargetKindRegistry::names() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, _] : kinds_) names.push_back(name);
  return names;
}

Expected<Target> TargetKindRegistry::parse(std::string_view text) const {
  std::vector<std::string_view> words;
  for (std::size_t at = 0; at < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[at]))) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    words.push_back(text.substr(at, end - at));
    at = end;
  }
  auto fail = [&](const Error& error) {
    return error.with_context(fmt::format("target '{}'", text));
  };
  if (words.empty()) return make_error("a target is empty: write '<kind> [--attr=value]...'");
  Expected<std::shared_ptr<const TargetKind>> kind = find(words[0]);
  if (!kind) return fail(kind.error());
  std::map<std::string, TargetAttrValue> values;
  for (std::size_t w = 1; w < words.size(); ++w) {
    std::string_view word = words[w];
    if (!word.starts_with("-"))
      return fail(make_error("'{}' is not an attribute: write --name=value", word));
    word.remove_prefix(word.starts_with("--") ? 2 : 1);
    std::size_t equals = word.find('=');
    std::string_view name = word.substr(0, equals);
    const TargetAttrDef* def = (*kind)->find_attr(name);
    if (def == nullptr)
      return fail(make_error("target kind '{}' has no attribute '{}' (it has: {})", (*kind)->name,
                             name, attr_names(**kind)));
    if (values.count(std::string(name)))
      return fail(make_error("attribute '{}' is given twice", name));
    if (equals == std::string_view::npos && def->type() != TargetAttrType::kBool)
      return fail(make_error("attribute '{}' needs a value: --{}=<{}>", name, name,
                             target_attr_type_name(def->type())));
    Expected<TargetAttrValue> value = equals == std::string_view::npos
                                          ? TargetAttrValue(true)
                                          : parse_value(*def, word.substr(equals + 1));
    if (!value) return fail(value.error());
    values.emplace(std::string(name), std::move(*value));
  }
  return Target(std::move(*kind), std::move(values));
}

}  // namespace uma
