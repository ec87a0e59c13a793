// The small static inline C functions the generated code calls (floor division, min/max
// with std::min's NaN behaviour, f16 conversions, ...), emitted only when used.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace uma::codegen {

class HelperSet {
 public:
  // Marks a helper as used (and the helpers it calls). Unknown names are a bug.
  void use(std::string_view name);
  // Marks a helper made for this unit as used (a vector type's, say): defined by `text`,
  // calling `calls` (fixed helpers, or ones defined before it). A name is defined once.
  void use_generated(std::string_view name, const std::vector<std::string>& calls,
                     const std::string& text);
  // The definitions of the used helpers, in an order where callees come first: the fixed
  // ones, then the generated ones in the order they were first used.
  std::string definitions() const;

 private:
  std::set<std::string, std::less<>> used_;
  std::vector<std::pair<std::string, std::string>> generated_;  // name, text
};

}  // namespace uma::codegen
