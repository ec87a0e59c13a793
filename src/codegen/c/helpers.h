// The small static inline C functions the generated code calls (floor division, min/max
// with std::min's NaN behaviour, f16 conversions, ...), emitted only when used.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace uma::codegen {

class HelperSet {
 public:
  // Marks a helper as used (and the helpers it calls). Unknown names are a bug.
  void use(std::string_view name);
  // The definitions of the used helpers, in an order where callees come first.
  std::string definitions() const;

 private:
  std::set<std::string, std::less<>> used_;
};

}  // namespace uma::codegen
