// The compact table of a function's nodes, and the conservative test of a pattern on it.
#include "match_filter.h"

#include <algorithm>

namespace uma {

void MatchFilter::add(const Node& node,
                      const std::unordered_map<const Node*, std::size_t>& position) {
  auto [op, added] = op_index_.emplace(&node.op(), static_cast<std::uint32_t>(ops_.size()));
  if (added) ops_.push_back(&node.op());
  op_.push_back(op->second);
  for (const Value* operand : node.operands()) {
    const Node* producer = operand->producer();
    if (producer == nullptr) {
      producers_.push_back(kParam);
      continue;
    }
    auto it = position.find(producer);
    producers_.push_back(it == position.end() ? kAnyProducer
                                              : static_cast<std::uint32_t>(it->second));
  }
  operands_begin_.push_back(static_cast<std::uint32_t>(producers_.size()));
}

MatchFilter::Compiled MatchFilter::compile(const Pattern& pattern) const {
  Compiled out;
  std::unordered_map<const Pattern*, std::uint32_t> done;
  out.root = compile(pattern, out, done);
  return out;
}

// Each sub-pattern becomes one step, once (sub-patterns are shared: optional() uses its
// pattern twice). Predicates and dominators stand for the pattern they refine, or their
// child: the matcher matches that first, at the same value.
std::uint32_t MatchFilter::compile(const Pattern& pattern, Compiled& out,
                                   std::unordered_map<const Pattern*, std::uint32_t>& done) const {
  if (auto it = done.find(&pattern); it != done.end()) return it->second;
  std::uint32_t index = 0;
  if (pattern.kind == PatternKind::AttrPred || pattern.kind == PatternKind::TypePred) {
    index = compile(*pattern.children[0], out, done);
  } else if (pattern.kind == PatternKind::Dominator) {
    index = compile(*pattern.children[2], out, done);
  } else {
    index = static_cast<std::uint32_t>(out.steps.size());
    out.steps.emplace_back();
    Compiled::Step step;
    std::vector<std::uint32_t> children;
    auto accept = [&](const std::vector<std::string>& names) {
      step.kind = Compiled::Kind::Ops;
      step.accepts.resize(ops_.size());
      for (std::size_t i = 0; i < ops_.size(); ++i)
        step.accepts[i] = std::find(names.begin(), names.end(), ops_[i]->name) != names.end();
    };
    switch (pattern.kind) {
      case PatternKind::Input:
        step.kind = Compiled::Kind::Input;
        break;
      case PatternKind::Constant:
        accept({"constant"});
        break;
      case PatternKind::Op:
        accept(pattern.ops);
        if (pattern.operands) {
          step.check_operands = true;
          for (const PatternPtr& operand : *pattern.operands)
            children.push_back(compile(*operand, out, done));
        }
        break;
      case PatternKind::Alt:
        step.kind = Compiled::Kind::Either;
        children.push_back(compile(*pattern.children[0], out, done));
        children.push_back(compile(*pattern.children[1], out, done));
        break;
      default:  // wildcards, tuples and their items
        step.kind = Compiled::Kind::Any;
        break;
    }
    step.first = static_cast<std::uint32_t>(out.children.size());
    step.count = static_cast<std::uint32_t>(children.size());
    out.children.insert(out.children.end(), children.begin(), children.end());
    out.steps[index] = std::move(step);
  }
  done.emplace(&pattern, index);
  return index;
}

bool MatchFilter::may_match(const Compiled& pattern, std::size_t position) const {
  return may(pattern, pattern.root, static_cast<std::uint32_t>(position), 0);
}

// Whether the step can match a value of the node at `producer`, whose op is at depth
// `depth` below the root's.
bool MatchFilter::may(const Compiled& pattern, std::uint32_t index, std::uint32_t producer,
                      int depth) const {
  const Compiled::Step& step = pattern.steps[index];
  if (producer == kAnyProducer) return true;
  switch (step.kind) {
    case Compiled::Kind::Any:
      return true;
    case Compiled::Kind::Input:
      return producer == kParam;
    case Compiled::Kind::Either:
      return may(pattern, pattern.children[step.first], producer, depth) ||
             may(pattern, pattern.children[step.first + 1], producer, depth);
    case Compiled::Kind::Ops: {
      if (producer == kParam) return false;
      std::uint32_t op = op_[producer];
      if (op == kUnknown) return true;
      if (!step.accepts[op]) return false;
      if (!step.check_operands) return true;
      std::uint32_t begin = operands_begin_[producer];
      if (operands_begin_[producer + 1] - begin != step.count) return false;
      if (depth + 1 >= kDepth) return true;
      for (std::uint32_t i = 0; i < step.count; ++i)
        if (!may(pattern, pattern.children[step.first + i], producers_[begin + i], depth + 1))
          return false;
      return true;
    }
  }
  return true;
}

}  // namespace uma
