// C code generation from the loop IR: one readable C11 translation unit for a list of
// PrimFuncs, which the C compiler driver (uma/runtime/c_compiler.h) builds into a shared
// library and the runtime calls through dlsym.
//
// Each PrimFunc becomes
//
//   static inline int32_t <symbol>_impl(float* restrict a, ...);  // typed, one pointer per buffer
//   int32_t <symbol>(void* const* args);                          // what the runtime calls
//
// where args[k] is the address of the k-th parameter buffer (inputs then outputs, in
// PrimFunc::params order). A PrimFunc with load-time code (uma/tir/state.h) also gets
//
//   int32_t <symbol>_init(void* const* args);  // its init, on the same parameters
//   int32_t <symbol>_fini(void* const* args);  // its fini
//
// which return as the entry point does. Buffers passed to one call must not overlap (the pointers
// are `restrict`). The result is 0, or -1 when a heap allocation of the function failed, or an
// extern call's nonzero status (with CCodegenHooks::extern_status).
//
// Every name that comes from a model (symbols, buffers, variables) is sanitized into a C
// identifier that cannot collide with a keyword, a standard header's name or the
// generator's own `uma_` helpers; names reach comments only with every character outside a
// small safe set replaced. Extern call names are linked against as they are, so they must
// already be C identifiers (else an Error).
//
// Allocations: a constant-size Allocate of at most `stack_alloc_limit` bytes is a local
// array; anything larger or of non-constant size is taken from the heap (aligned_alloc, 64
// bytes) for the Allocate's body and freed after it. If that fails the body is skipped and
// the function returns -1. (Graph-level intermediates never get here: the runtime's memory
// planner passes them in as parameters.)
//
// Numerics: integer Div/Mod are floor division/modulo (helpers, or C's / and % where both
// operands are provably non-negative); f16/bf16 buffers hold raw 16-bit patterns and are
// computed in float, rounded when stored or cast; vector expressions (Ramp, Broadcast) are
// emitted lane by lane in a loop the C compiler vectorizes; f32 exp, sigmoid, tanh and erf
// call vectorizable helpers within 2 ulp (see precise_math).
//
// Threads: with `openmp`, a function whose parallel loops all sit at its top level runs
// as one `omp parallel` region (`omp for` loops, `omp single` between them); otherwise each
// outermost parallel loop is an `omp parallel for`.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "uma/support/error.h"
#include "uma/tir/ir.h"

namespace uma::codegen {

// Prints an expression of the function being generated as C; what a hook uses for the
// arguments of the call it prints.
using CExprPrinter = std::function<std::string(const tir::Expr&)>;

// What a backend adds to the generated C.
struct CCodegenHooks {
  // Headers included after the standard ones: "npu_driver.h" (quoted) or <npu/driver.h>.
  std::vector<std::string> includes;
  // Prints an extern call its own way (a C expression), or nullopt for the default
  // `name(args...)`. Calls it prints get no generated prototype.
  std::function<std::optional<std::string>(const tir::CallNode&, const CExprPrinter&)>
      print_extern_call;
  // Whether extern functions printed the default way get a prototype derived from the
  // call's types (pointers as void*). Turn it off when an include declares them.
  bool declare_externs = true;
  // Whether extern calls evaluated for their effect return a status, 0 for success (as an
  // accelerator's driver does): a nonzero one becomes the function's result (the first
  // failure's; inside a parallel loop, any failure's). The statements after a failed call
  // still run. Off: the status is ignored.
  bool extern_status = false;
};

struct CCodegenOptions {
  // Parallel loops become `#pragma omp parallel for` (compile with -fopenmp); else serial.
  bool openmp = false;
  // The largest constant-size allocation, in bytes, that is a local array.
  std::size_t stack_alloc_limit = 16 * 1024;
  // exp, sigmoid, tanh and erf of f32 (f16, bf16) call libm (expf, ...) instead of the
  // generator's helpers uma_expf, uma_sigmoidf, uma_tanhf, uma_erff. The helpers are within
  // 2 ulp of the exact result over the whole float range (NaN, infinities, denormals
  // included; libm's expf is within 1) and branch-free, so a lane loop around them
  // vectorizes, which a libm call prevents.
  bool precise_math = false;
  CCodegenHooks hooks;
};

// One generated function.
struct CFunction {
  std::string name;    // the PrimFunc's name
  std::string symbol;  // the exported C symbol: int32_t symbol(void* const* args)
  std::size_t num_params = 0;
  // The exported symbols of its init and fini, same signature; empty when it has none.
  std::string init_symbol, fini_symbol;
};

struct CSource {
  std::string code;
  std::vector<CFunction> functions;  // in the order of the PrimFuncs given
};

// The symbol requested for a PrimFunc: its "global_symbol" attribute, else its name. The
// symbol actually exported is this, sanitized (see CFunction::symbol).
std::string requested_symbol(const tir::PrimFunc& func);

// Generates one translation unit. Errors name the function and the node at fault
// (an unknown intrinsic, a variable used but never bound, a buffer that is neither a
// parameter nor allocated, an extern name that is not a C identifier, ...).
Expected<CSource> generate_c(const std::vector<tir::PrimFunc>& funcs,
                             const CCodegenOptions& options = {});

}  // namespace uma::codegen
