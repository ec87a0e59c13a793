// What the matcher remembers of a failed attempt: a few pointers, turned into words only for
// the nearest miss, once per match() call (the partitioner tries every pattern at every
// node, and nearly all of those attempts fail).
#pragma once

#include <cstdint>

#include "uma/pattern/pattern.h"

namespace uma::pattern_detail {

enum class Miss : std::uint8_t {
  Op,            // the value's node is not one of the pattern's ops (or it is a parameter)
  OperandCount,  // the node has another number of operands
  Constant,      // not a constant
  Input,         // not a parameter
  Tuple,         // not a tuple node
  FieldCount,    // the tuple has another number of fields
  Result,        // not the selected result of a node
  ItemIndex,     // a get_item of another index
  AttrOnParam,   // an attribute predicate on a parameter
  AttrMissing,   // the node lacks the attribute
  Attr,          // the attribute fails the predicate
  Type,          // the type fails the predicate
  Diamond,       // a pattern met again binds another value than before
  NoParent,      // no operand of the dominator's child leads back to its parent
  TwoParents,    // the chain leads back to two different parents
  OutsideUse,    // a path node of the chain is used outside the chain
};

struct FailureRecord {
  Miss miss = Miss::Op;
  const Pattern* pattern = nullptr;
  const Value* value = nullptr;
  const Node* user = nullptr;  // the node whose operand `value` is, or null at the root
  std::uint32_t operand = 0;
  int progress = 0;
  // Diamond: the value bound before. TwoParents: the first parent's value.
  const Value* other = nullptr;
  // OutsideUse: the outside user (null: a function output).
  const Node* other_user = nullptr;
};

MatchFailure make_failure(const FailureRecord& record);

}  // namespace uma::pattern_detail
