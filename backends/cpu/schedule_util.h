// Helpers the host's schedules share: loops by name, constant extents, divisors.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "uma/tir/schedule.h"

namespace uma::backends {

// The loop of `loops` whose variable is named `name`.
std::optional<tir::LoopRef> named(const std::vector<tir::LoopRef>& loops, std::string_view name);

// The constant extent of `loop`, one of the loops in `block`.
std::optional<std::int64_t> extent_of(const tir::Stmt& block, const tir::LoopRef& loop);

// The largest divisor of `n` up to `limit`.
std::int64_t largest_divisor(std::int64_t n, std::int64_t limit);

// The vector registers of a CPU whose vectors hold `lanes` f32: 32 with AVX-512, else 16.
inline std::int64_t vector_registers(std::int64_t lanes) { return lanes >= 16 ? 32 : 16; }

}  // namespace uma::backends
