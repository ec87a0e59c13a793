// The words of a match failure: which value, what the pattern expected, what it found.
#include "failure.h"

#include <fmt/format.h>

#include "attr_text.h"
#include "uma/graph/ir.h"

namespace uma {
namespace pattern_detail {
namespace {

std::string param_text(const Value& value) {
  if (!value.name().empty()) return "parameter %" + value.name();
  return fmt::format("parameter #{}", value.index());
}

// What was found where something else was expected: "parameter %x", "nn.max_pool2d".
std::string found_text(const Value& value) {
  if (value.is_param()) return param_text(value);
  const Node& node = *value.producer();
  if (node.num_results() > 1) return fmt::format("result {} of {}", value.index(), node.op_name());
  return node.op_name();
}

// A node named inside a reason: its location when it has a name. An unnamed node's location
// is its position, found by a walk of the function, and a reason is made at every failed
// match (the partitioner's, at every node): its value's name from the text is used instead.
std::string node_text(const Node& node) {
  if (!node.name().empty()) return node.location();
  if (node.num_results() > 0 && !node.result()->name().empty())
    return fmt::format("node %{} ({})", node.result()->name(), node.op_name());
  return fmt::format("an unnamed {} node", node.op_name());
}

using Locate = std::function<std::string(const Node&)>;

// A value named for a reader: "parameter %x", "node 'conv1' (nn.conv2d)", "result 1 of ...".
// Its node is named by `locate` when given, else by node_text.
std::string value_text(const Value& value, const Locate* locate = nullptr) {
  if (value.is_param()) return param_text(value);
  const Node& node = *value.producer();
  std::string name = locate != nullptr ? (*locate)(node) : node_text(node);
  if (node.num_results() > 1) return fmt::format("result {} of {}", value.index(), name);
  return name;
}

// "expected nn.conv2d, found nn.max_pool2d", "expected add or multiply, found parameter %x":
// the reason of nearly every failed match (the root's op differs), so made in one allocation.
std::string op_mismatch(const std::vector<std::string>& ops, const Value& value) {
  std::string out;
  out.reserve(64);
  out += "expected ";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i > 0) out += i + 1 == ops.size() ? " or " : ", ";
    out += ops[i];
  }
  out += ", found ";
  if (value.is_param() || value.producer()->num_results() > 1)
    out += found_text(value);
  else
    out += value.producer()->op_name();
  return out;
}

std::string reason(const FailureRecord& r) {
  const Pattern& p = *r.pattern;
  const Value& v = *r.value;
  const Node* node = v.producer();
  switch (r.miss) {
    case Miss::Op:
      return op_mismatch(p.ops, v);
    case Miss::OperandCount:
      return fmt::format("operand count {}, expected {}", node->num_operands(), p.operands->size());
    case Miss::Constant:
      return "expected a constant, found " + found_text(v);
    case Miss::Input:
      return "expected an input, found " + found_text(v);
    case Miss::Tuple:
      return "expected a tuple, found " + found_text(v);
    case Miss::FieldCount:
      return fmt::format("field count {}, expected {}", node->num_operands(), p.operands->size());
    case Miss::Result: {
      std::string expected = p.index < 0 ? "a node's result" : fmt::format("result {}", p.index);
      if (node == nullptr) return fmt::format("expected {}, found {}", expected, param_text(v));
      return fmt::format("expected {}, found result {} of {}", expected, v.index(),
                         node->op_name());
    }
    case Miss::ItemIndex:
      return fmt::format("get_item index is {}, expected {}", node->attrs().get_int("index"),
                         p.index);
    case Miss::AttrOnParam:
      return fmt::format("expected a node with attribute '{}', found {}", p.attr->attr,
                         param_text(v));
    case Miss::AttrMissing:
      return fmt::format("attribute '{}' is missing, expected {}", p.attr->attr,
                         p.attr->description);
    case Miss::Attr:
      return fmt::format("attribute '{}' is {}, expected {}", p.attr->attr,
                         attr_text(*node->attrs().find(p.attr->attr)), p.attr->description);
    case Miss::Type:
      return fmt::format("type {} does not have {}", to_string(v.type()), p.type->description);
    case Miss::Diamond:
      return fmt::format("expected the value bound where the pattern was met first, {}, found {}",
                         value_text(*r.other), value_text(v));
    case Miss::NoParent:
      // The value is named where the failure is (MatchFailure::to_string): this reason is
      // the common one of dominators, made for every elementwise node, so it names no node.
      return "no operand leads back to a node matching " + p.children[0]->to_string();
    case Miss::TwoParents:
      return fmt::format("the chain leads back to two parents, {} and {}", value_text(*r.other),
                         value_text(v));
    case Miss::OutsideUse:
      return fmt::format("value of {} is used outside the chain by {}", value_text(v),
                         r.other_user ? node_text(*r.other_user) : "the function's outputs");
  }
  return "?";
}

}  // namespace

MatchFailure make_failure(const FailureRecord& record) {
  return {.pattern = record.pattern,
          .value = record.value,
          .user = record.user,
          .operand = record.operand,
          .reason = reason(record),
          .progress = record.progress};
}

}  // namespace pattern_detail

std::string MatchFailure::to_string() const {
  // Made only when a failure is shown, so unnamed nodes may be named by their position.
  return to_string([](const Node& node) { return node.location(); });
}

std::string MatchFailure::to_string(const std::function<std::string(const Node&)>& locate) const {
  if (value == nullptr) return reason;
  if (user != nullptr)
    return fmt::format("at operand {} of {}: {}", operand, locate(*user), reason);
  return fmt::format("at {}: {}", pattern_detail::value_text(*value, &locate), reason);
}

}  // namespace uma
