// Small matching helpers shared by the canonicalization passes that recognise the
// subgraphs exporters emit (fuse_gelu.cc, fuse_layer_norm.cc, fold_batch_norm.cc).
#pragma once

#include <string_view>

#include "uma/graph/ir.h"

namespace uma::match {

// The node producing `value` when it applies `op`, else nullptr.
Node* producer(const Value* value, std::string_view op);

// The tensor of the `constant` node producing `value`, when it has data; else nullptr.
const Tensor* constant(const Value* value);

// `value` is a constant whose elements all equal `expected`, within `relative_tolerance`
// (exporters write constants such as sqrt(2) with a few digits only).
bool is_splat(const Value* value, double expected, double relative_tolerance = 0.0);

// `value` has exactly one use (a node operand or a function output).
inline bool single_use(const Value* value) { return value->uses().size() == 1; }
// The one node using `value`, or nullptr when it has several uses or is a function output.
inline Node* sole_user(const Value* value) {
  return single_use(value) ? value->uses()[0].user : nullptr;
}

// For a binary node, the operand that is not `known`, or nullptr when neither is.
// Lets a matcher accept both operand orders of commutative ops.
Value* other_operand(const Node* node, const Value* known);

}  // namespace uma::match
