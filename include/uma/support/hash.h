// A small, stable 64-bit content hash (FNV-1a), for cache keys. Not for security: it only
// has to tell different inputs apart with high probability and stay the same across runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace uma {

class ContentHash {
 public:
  // Adds the bytes and then their length, so ("ab", "c") and ("a", "bc") hash differently.
  ContentHash& add(std::string_view bytes);
  std::uint64_t value() const { return state_; }
  // The value as 16 lowercase hex digits (for file names).
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ull;  // the FNV-1a 64-bit offset basis
};

}  // namespace uma
