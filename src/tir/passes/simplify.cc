// simplify: the arithmetic simplifier (uma/tir/simplify.h) over a whole function body.
// Assumes nothing; keeps the function's meaning for every argument.
#include "uma/tir/simplify.h"
#include "uma/tir/passes.h"

namespace uma::tir {

FuncPass simplify_pass() {
  return {"simplify", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = simplify(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = std::move(body);
            return out;
          }};
}

}  // namespace uma::tir
