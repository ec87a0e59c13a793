// Evaluating one node on constant operands: what the fold-constant pass and the ONNX
// importer's folding of shape computations share.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/graph/rewriter.h"

namespace uma {

// The operands' tensors when every operand comes from a `constant` node whose tensor has
// data, else nullopt.
std::optional<std::vector<TensorPtr>> constant_operands(const Node& node);

// Replaces `node` by constants computed with its op's reference kernel, when its operands
// are all constants with data, its op has a kernel, every result is a tensor and its
// results hold at most `max_elements` elements together. Returns the new constants (one
// per result, named as the results were; their tensors are the kernel's, never copied), or
// nullopt when the node is left alone: `constant`, `call`, `tuple` and ops without kernels
// never fold. A kernel that fails on its constants is an error, unprefixed: the caller
// names the node. The node is erased through `rewriter`; constants it no longer uses stay.
Expected<std::optional<std::vector<Value*>>> fold_node(Rewriter& rewriter, Node* node,
                                                       std::int64_t max_elements);

// Replaces `node`'s results by constants holding `tensors` (one per result, of the
// results' types) inserted before it, and erases it. Returns the constants.
std::vector<Value*> replace_by_constants(Rewriter& rewriter, Node* node,
                                         const std::vector<TensorPtr>& tensors);

}  // namespace uma
