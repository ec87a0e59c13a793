// What a node costs, for reports and heuristics: the multiply-accumulates it computes and
// the bytes it touches.
#pragma once

#include <cstdint>

namespace uma {

class Node;

struct NodeCost {
  // nn.conv1d/2d/3d and their transposes, nn.dense and nn.matmul (batched or not): the
  // products their definitions sum. 0 for every other op: elementwise ops, pools and
  // normalizations are bound by memory, not by arithmetic.
  std::int64_t macs = 0;
  // The bytes of the node's results plus those of the constants it reads.
  std::int64_t bytes = 0;
};

// The cost of `node`. A `call` costs what its callee's nodes cost (constant nodes count
// through the nodes that read them), plus the constants passed to it as arguments. Sums
// saturate at INT64_MAX instead of overflowing.
NodeCost node_cost(const Node& node);
// The cost of `node` alone: a `call` costs its results and constant arguments, as other
// nodes do, and nothing of its callee (whose nodes are counted where they are).
NodeCost own_cost(const Node& node);

// a + b, or INT64_MAX when that overflows: for totals of costs.
std::int64_t saturating_add(std::int64_t a, std::int64_t b);

}  // namespace uma
