// The host's backend: the target kind "c", generated C run in-process on the CPU.
#pragma once

#include <memory>

#include "uma/uma/backend.h"

namespace uma::backends {

// The host's backend (DESIGN.md, "The host is a backend too"), declared through the same
// Backend class as any accelerator's: the kind "c" with its attribute `threads` (int, 1,
// checked to lie in [1, 1024]: the threads of the generated code, OpenMP above 1). Its
// functions are the host's, those no other backend takes; they keep lowering's reference
// computes, with no schedule yet. Every Context registers it (uma/uma/context.h).
std::unique_ptr<Backend> make_cpu_backend();

}  // namespace uma::backends
