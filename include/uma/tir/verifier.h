// The loop IR's rules, written down as code; run between passes in tests.
#pragma once

#include "uma/support/error.h"
#include "uma/tir/ir.h"

namespace uma::tir {

// Checks that:
// - every variable used is bound where it is used: a parameter's data variable or a
//   variable of a parameter's shape or strides, an enclosing loop's variable, an enclosing
//   let's variable, or the data variable of an enclosing allocation's buffer; and that no
//   variable is bound again inside its own scope;
// - every buffer used (loaded, stored, addressed, read or written by a block) is a
//   parameter or allocated by an enclosing Allocate, and none is allocated inside its own
//   scope;
// - loads, stores and addresses have one integer index per dimension, or one (flattened);
// - a store's value has the buffer's element type and the indices' lanes;
// - loop bounds are integers of the loop variable's type; vectorized loops have a constant
//   extent; `if` conditions are scalar bools; blocks have names;
// - the init and fini, when present, follow the same rules (they see the parameters);
// - at most one parameter is a state (uma/tir/state.h): u8, of constant size, not an input.
// Returns the first violation, e.g. "func @f, block conv2d_nchw: variable 'k' is used
// outside its loop".
Status verify(const PrimFunc& func);

}  // namespace uma::tir
