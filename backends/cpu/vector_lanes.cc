// How many f32 lanes a vector of the host's CPU holds, from the target's mcpu and mattr.
#include <algorithm>
#include <array>
#include <string_view>

#include "cpu.h"

namespace uma::backends {
namespace {

// CPUs (GCC's -march names) by their widest f32 vector, for a target that names one.
constexpr std::array<std::string_view, 10> kAvx512 = {
    "skylake-avx512", "cascadelake", "cooperlake",     "cannonlake",    "icelake-client",
    "icelake-server", "tigerlake",   "sapphirerapids", "graniterapids", "znver4"};
constexpr std::array<std::string_view, 10> kAvx2 = {
    "haswell", "broadwell", "skylake", "alderlake", "raptorlake",
    "znver1",  "znver2",    "znver3",  "x86-64-v3", "meteorlake"};

bool listed(std::string_view cpu, auto& names) {
  for (std::string_view name : names)
    if (cpu == name) return true;
  return false;
}

// The lanes of the CPU itself: this machine's for "native" (or none given).
std::int64_t cpu_lanes(const std::string& mcpu) {
  if (mcpu.empty() || mcpu == "native") {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2")) return 8;
#endif
    return 4;
  }
  if (listed(mcpu, kAvx512) || mcpu == "x86-64-v4") return 16;
  if (listed(mcpu, kAvx2)) return 8;
  return 4;  // SSE, NEON and anything unknown: vectors of 128 bits
}

}  // namespace

Expected<std::int64_t> vector_lanes(const Target& target) {
  UMA_TRY_ASSIGN(std::string mcpu, target.get_string("mcpu"));
  UMA_TRY_ASSIGN(std::string mattr, target.get_string("mattr"));
  auto named = [&](std::string_view feature) { return mattr.find(feature) != std::string::npos; };
  // Features the user named win over the CPU's.
  std::int64_t lanes = cpu_lanes(mcpu);
  if (named("+avx512f")) return 16;
  if (named("-avx512f")) lanes = std::min<std::int64_t>(lanes, 8);
  if (named("-avx2")) lanes = std::min<std::int64_t>(lanes, 4);
  if (named("+avx2")) lanes = std::max<std::int64_t>(lanes, 8);
  return lanes;
}

}  // namespace uma::backends
