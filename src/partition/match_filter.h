// A quick test of whether a pattern can match at a node, on a compact table of a host
// function's nodes: each node's op and the positions of the nodes its operands come from.
//
// merge-composite tries each pattern at every node whose op can be the pattern's root, and
// nearly all of those attempts fail within a node or two (a relu whose operand is no
// convolution). The graph's nodes lie all over the heap: on a large model, each pattern's
// sweep would read them from memory again, and time per node would grow with the model. The
// table stays in the caches and rules those attempts out without reading the graph.
//
// The test is conservative: it says no only when the matcher must fail, because an op, an
// operand count, a constant or an input differs within the first few levels of operands.
// Predicates, bindings met twice, tuples and dominator chains are left to the matcher.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/pattern/pattern.h"

namespace uma {

class MatchFilter {
 public:
  // A pattern translated to the table's ops, once per pattern.
  class Compiled {
   private:
    friend class MatchFilter;
    enum class Kind : std::uint8_t { Any, Input, Ops, Either };
    struct Step {
      Kind kind = Kind::Any;
      bool check_operands = false;  // Ops: the pattern lists the operands
      std::vector<char> accepts;    // Ops: by op index, whether the pattern takes that op
      // Ops: `count` operand steps from children[first]. Either: two steps from there.
      std::uint32_t first = 0;
      std::uint32_t count = 0;
    };
    std::vector<Step> steps;
    std::vector<std::uint32_t> children;
    std::uint32_t root = 0;
  };

  // Appends the function's next node. The nodes its operands come from were added before it
  // (the function is in topological order); `position` gives their positions.
  void add(const Node& node, const std::unordered_map<const Node*, std::size_t>& position);

  Compiled compile(const Pattern& pattern) const;

  // False when matching the pattern at a result of the node at `position` must fail.
  bool may_match(const Compiled& pattern, std::size_t position) const;

  // The node at `position` was replaced (by a composite call): nothing is known of it now.
  void forget(std::size_t position) { op_[position] = kUnknown; }

 private:
  // In op_: a node nothing is known of. In producers_: an operand that is a parameter, or
  // one whose producer is not in the table (the function is not in order): anything.
  static constexpr std::uint32_t kUnknown = static_cast<std::uint32_t>(-1);
  static constexpr std::uint32_t kParam = static_cast<std::uint32_t>(-1);
  static constexpr std::uint32_t kAnyProducer = static_cast<std::uint32_t>(-2);
  // How many levels of operands are looked at: enough to rule out nearly every failing
  // attempt, few enough that a test costs little next to the matcher.
  static constexpr int kDepth = 3;

  std::uint32_t compile(const Pattern& pattern, Compiled& out,
                        std::unordered_map<const Pattern*, std::uint32_t>& done) const;
  bool may(const Compiled& pattern, std::uint32_t step, std::uint32_t producer, int depth) const;

  std::vector<const OpDef*> ops_;  // the function's distinct ops
  std::unordered_map<const OpDef*, std::uint32_t> op_index_;
  std::vector<std::uint32_t> op_;  // by position: index in ops_, or kUnknown
  // By position, the operands' producers (kParam for a parameter) are
  // producers_[operands_begin_[p] .. operands_begin_[p + 1]).
  std::vector<std::uint32_t> operands_begin_ = {0};
  std::vector<std::uint32_t> producers_;
};

}  // namespace uma
