// A function's load-time state: memory of its own that lives as long as the executor
// running it, which its init fills once (library primitives, packed weights, an
// accelerator model's memories) and its body and fini then use. It stands in for mutable
// statics in generated and backend C, which are wrong here: the object cache gives models
// with the same code one library, and several executors may run one library at once.
//
// The state is a parameter: a u8 buffer of constant size in scope "state", after the
// outputs. The executor gives each call of the function in the host program a state of its
// own, 64-byte aligned and zeroed, runs the init once per call with the weights bound and
// inputs and outputs null, the body on every run, the fini when it is destroyed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "uma/support/error.h"
#include "uma/tir/ir.h"

namespace uma::tir {

inline constexpr std::string_view kStateScope = "state";

// Adds a state of `bytes` bytes to `func` as its last parameter, named `name`, and returns
// it for the body, init and fini to use. Errors when the function has a state already or
// `bytes` is not positive.
Expected<Buffer> add_state(PrimFunc& func, std::int64_t bytes, std::string name = "state");

// The index of the function's state parameter, if it has one.
std::optional<std::size_t> state_param(const PrimFunc& func);

}  // namespace uma::tir
