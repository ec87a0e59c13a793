// Composite lowering from Python (lowering.cc): loop-IR expressions, the extern call a
// composite becomes, and the view of one call of a composite a lowering reads.
#pragma once

#include "bindings.h"
#include "handles.h"
#include "uma/lower/composite_lowering.h"

namespace uma::python {

// uma.Expr: a loop-IR expression (an address, an immediate).
struct PyExpr {
  tir::Expr expr;
};

// uma.CompositeCall: one call of a composite as a lowering is given it, valid while the
// lowering runs.
struct PyCompositeCall {
  const lower::CompositeOperands* operands;
  ModuleHandlePtr module;  // lent to the lowering
  const lower::CompositeOperands& read() const {
    module->read("uma.CompositeCall");
    return *operands;
  }
};

// An extern call's argument from Python: a uma.Expr, an int (i64) or a float (f32).
tir::Expr expr_from(py::handle value);

// The call a Python lowering returned, which must be a uma.ExternCall (with the GIL held).
Expected<lower::ExternCall> extern_call_of(const Callable& callback, py::handle result);

}  // namespace uma::python
