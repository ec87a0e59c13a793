// FNV-1a, 64-bit.
#include "uma/support/hash.h"

#include <fmt/format.h>

namespace uma {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

std::uint64_t mix(std::uint64_t state, unsigned char byte) { return (state ^ byte) * kFnvPrime; }

}  // namespace

ContentHash& ContentHash::add(std::string_view bytes) {
  for (char c : bytes) state_ = mix(state_, static_cast<unsigned char>(c));
  std::uint64_t size = bytes.size();
  for (int i = 0; i < 8; ++i) state_ = mix(state_, static_cast<unsigned char>(size >> (8 * i)));
  return *this;
}

std::string ContentHash::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace uma
