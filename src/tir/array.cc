#include "uma/tir/array.h"

#include <string>

namespace uma::tir {

Expr make_array(std::vector<Expr> elements) {
  return CallNode::make(DataType::pointer(), std::string(kArrayIntrinsic), std::move(elements),
                        CallNode::CallKind::kIntrinsic);
}

}  // namespace uma::tir
