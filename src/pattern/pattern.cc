// Building patterns, and their short text.
#include "uma/pattern/pattern.h"

#include <fmt/format.h>

#include "attr_text.h"

namespace uma {

namespace pattern_detail {

std::string attr_text(const Attribute& value) {
  auto list = [](const auto& items, auto&& format) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + format(items[i]);
    return out + "]";
  };
  auto number = [](auto x) { return fmt::format("{}", x); };
  auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
  switch (attr_kind(value)) {
    case AttrKind::Int:
      return number(std::get<std::int64_t>(value));
    case AttrKind::Float:
      return number(std::get<double>(value));
    case AttrKind::String:
      return quoted(std::get<std::string>(value));
    case AttrKind::Ints:
      return list(std::get<std::vector<std::int64_t>>(value), number);
    case AttrKind::Floats:
      return list(std::get<std::vector<double>>(value), number);
    case AttrKind::Strings:
      return list(std::get<std::vector<std::string>>(value), quoted);
    case AttrKind::Tensor: {
      const TensorPtr& tensor = std::get<TensorPtr>(value);
      return tensor == nullptr ? "no tensor" : "a " + to_string(tensor->type());
    }
  }
  return "?";
}

}  // namespace pattern_detail

namespace {

// Patterns are written in a backend's code: a malformed one is a bug there, caught when the
// pattern is built rather than when it is first matched.
PatternPtr make(Pattern pattern) {
  for (const PatternPtr& child : pattern.children)
    UMA_CHECK(child != nullptr, "a sub-pattern is null");
  if (pattern.operands)
    for (const PatternPtr& operand : *pattern.operands)
      UMA_CHECK(operand != nullptr, "an operand pattern is null");
  UMA_CHECK(pattern.kind != PatternKind::Op || !pattern.ops.empty(), "an op pattern names no op");
  UMA_CHECK(!pattern.attr || pattern.attr->test, "attribute predicate without a test");
  UMA_CHECK(!pattern.type || pattern.type->test, "type predicate without a test");
  return std::make_shared<const Pattern>(std::move(pattern));
}

PatternPtr make_op(std::vector<std::string> ops, std::optional<std::vector<PatternPtr>> operands) {
  return make({.kind = PatternKind::Op, .ops = std::move(ops), .operands = std::move(operands)});
}

PatternPtr make_type_pred(PatternPtr pattern, std::function<bool(const Type&)> test,
                          std::string description) {
  return make({.kind = PatternKind::TypePred,
               .children = {std::move(pattern)},
               .type = TypePredicate{std::move(test), std::move(description)}});
}

std::string join(const std::vector<PatternPtr>& patterns) {
  std::string out;
  for (std::size_t i = 0; i < patterns.size(); ++i)
    out += (i ? ", " : "") + patterns[i]->to_string();
  return out;
}

}  // namespace

PatternPtr wildcard() { return make({.kind = PatternKind::Wildcard}); }

PatternPtr is_op(std::string op, std::vector<PatternPtr> operands) {
  return make_op({std::move(op)}, std::move(operands));
}
PatternPtr is_op(std::string op) { return make_op({std::move(op)}, std::nullopt); }
PatternPtr is_op(std::vector<std::string> ops, std::vector<PatternPtr> operands) {
  return make_op(std::move(ops), std::move(operands));
}
PatternPtr is_op(std::initializer_list<std::string> ops, std::vector<PatternPtr> operands) {
  return make_op(std::vector<std::string>(ops), std::move(operands));
}
PatternPtr is_op(std::vector<std::string> ops) { return make_op(std::move(ops), std::nullopt); }
PatternPtr is_op(std::initializer_list<std::string> ops) {
  return make_op(std::vector<std::string>(ops), std::nullopt);
}

PatternPtr is_constant() { return make({.kind = PatternKind::Constant}); }
PatternPtr is_input() { return make({.kind = PatternKind::Input}); }

PatternPtr alt(PatternPtr a, PatternPtr b) {
  return make({.kind = PatternKind::Alt, .children = {std::move(a), std::move(b)}});
}

PatternPtr optional(const PatternPtr& base, const std::function<PatternPtr(PatternPtr)>& extend) {
  return alt(extend(base), base);
}

PatternPtr has_attr(PatternPtr pattern, std::string name, Attribute value) {
  std::string description = "is " + pattern_detail::attr_text(value);
  auto test = [value = std::move(value)](const Attribute& a) { return attr_equal(a, value); };
  return has_attr(std::move(pattern), std::move(name), std::move(test), std::move(description));
}

PatternPtr has_attr(PatternPtr pattern, std::string name,
                    std::function<bool(const Attribute&)> test, std::string description) {
  return make({.kind = PatternKind::AttrPred,
               .children = {std::move(pattern)},
               .attr = AttrPredicate{std::move(name), std::move(test), std::move(description)}});
}

PatternPtr has_dtype(PatternPtr pattern, DType dtype) {
  auto test = [dtype](const Type& t) { return t.is_tensor() && t.tensor().dtype == dtype; };
  return make_type_pred(std::move(pattern), test, fmt::format("dtype {}", dtype_name(dtype)));
}

PatternPtr has_shape(PatternPtr pattern, Shape shape) {
  std::string description = shape.empty() ? "a scalar shape" : "shape " + to_string(shape);
  auto test = [shape = std::move(shape)](const Type& t) {
    return t.is_tensor() && t.tensor().shape == shape;
  };
  return make_type_pred(std::move(pattern), std::move(test), std::move(description));
}

PatternPtr has_rank(PatternPtr pattern, std::size_t rank) {
  auto test = [rank](const Type& t) { return t.is_tensor() && t.tensor().rank() == rank; };
  return make_type_pred(std::move(pattern), test, fmt::format("rank {}", rank));
}

PatternPtr has_type(PatternPtr pattern, std::function<bool(const Type&)> test,
                    std::string description) {
  return make_type_pred(std::move(pattern), std::move(test), std::move(description));
}

PatternPtr is_tuple(std::vector<PatternPtr> fields) {
  return make({.kind = PatternKind::Tuple, .operands = std::move(fields)});
}

PatternPtr is_tuple_get_item(PatternPtr pattern, std::int64_t index) {
  return make(
      {.kind = PatternKind::TupleGetItem, .children = {std::move(pattern)}, .index = index});
}

PatternPtr dominates(PatternPtr parent, PatternPtr path, PatternPtr child) {
  return make({.kind = PatternKind::Dominator,
               .children = {std::move(parent), std::move(path), std::move(child)}});
}

std::string Pattern::to_string() const {
  switch (kind) {
    case PatternKind::Wildcard:
      return "*";
    case PatternKind::Op: {
      std::string name =
          ops.size() == 1 ? ops[0] : "{" + fmt::format("{}", fmt::join(ops, ", ")) + "}";
      return name + "(" + (operands ? join(*operands) : "...") + ")";
    }
    case PatternKind::Constant:
      return "const";
    case PatternKind::Input:
      return "input";
    case PatternKind::Alt:
      return "(" + children[0]->to_string() + " | " + children[1]->to_string() + ")";
    case PatternKind::AttrPred:
      return children[0]->to_string() + "[" + attr->attr + " " + attr->description + "]";
    case PatternKind::TypePred:
      return children[0]->to_string() + "[" + type->description + "]";
    case PatternKind::Tuple:
      return "tuple(" + (operands ? join(*operands) : "...") + ")";
    case PatternKind::TupleGetItem:
      return children[0]->to_string() + "#" + (index < 0 ? "*" : std::to_string(index));
    case PatternKind::Dominator:
      return "dominates(" + join(children) + ")";
  }
  return "?";
}

}  // namespace uma
