// The matcher: binds a pattern to the graph above a value, backtracking through
// alternatives, or reports the nearest miss.
//
// Matching is written in continuation style: each sub-pattern, once matched, calls "the
// rest of the match" and succeeds only if that succeeds too. A later sibling's failure so
// returns into an earlier alternative, which then tries its other branch. Bindings live in
// a stack that an alternative cuts back to where it started, so a failed branch leaves
// nothing behind.
#include <algorithm>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "failure.h"
#include "uma/graph/ir.h"
#include "uma/pattern/pattern.h"

namespace uma {
namespace {

using pattern_detail::FailureRecord;
using pattern_detail::Miss;

// A non-owning reference to a callable returning bool: "the rest of the match". Two
// pointers, no allocation; the callable outlives every call made through it.
class Continuation {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, Continuation>)
      Continuation(const F& f)  // NOLINT: implicit, like a function_ref
      : object_(&f), call_([](const void* o) { return (*static_cast<const F*>(o))(); }) {}
  bool operator()() const { return call_(object_); }

 private:
  const void* object_;
  bool (*call_)(const void*);
};

// Where a value was reached: operand `operand` of `user`, or the root (user null).
struct Site {
  const Node* user = nullptr;
  std::uint32_t operand = 0;
};

constexpr auto done = [] { return true; };

class Matcher {
 public:
  // A quiet matcher records no failure: it probes whether a pattern matches at all.
  explicit Matcher(bool quiet = false) : quiet_(quiet) {}

  bool run(const Pattern& pattern, Value* value) { return match(pattern, value, {}, false, done); }
  // The first match that `accept` takes: a refused one backtracks into the alternatives left.
  bool run(const Pattern& pattern, Value* value, const MatchAcceptor& accept) {
    auto accepted = [&] { return accept(result(value)); };
    return match(pattern, value, {}, false, accepted);
  }

  Match result(Value* root) const;
  MatchFailure failure() const { return pattern_detail::make_failure(failure_); }

 private:
  struct Binding {
    const Pattern* pattern;
    Value* value;
  };
  // How far the stacks reached; restoring cuts them back.
  struct Mark {
    std::size_t bindings, inputs, path_nodes;
  };

  Mark mark() const { return {bindings_.size(), inputs_.size(), path_nodes_.size()}; }
  void restore(Mark m) {
    bindings_.resize(m.bindings);
    inputs_.resize(m.inputs);
    path_nodes_.resize(m.path_nodes);
  }

  Value* bound(const Pattern* pattern) const {
    for (const Binding& b : bindings_)
      if (b.pattern == pattern) return b.value;
    return nullptr;
  }
  void bind(const Pattern& pattern, Value* value) { bindings_.push_back({&pattern, value}); }
  int progress() const { return static_cast<int>(bindings_.size() + path_nodes_.size()); }

  // Records a failure if it is the deepest so far (the first of equals wins); returns false.
  bool fail(Miss miss, const Pattern& pattern, const Value* value, Site site,
            const Value* other = nullptr, const Node* other_user = nullptr) {
    if (quiet_ || (has_failure_ && progress() <= failure_.progress)) return false;
    has_failure_ = true;
    failure_ = {.miss = miss,
                .pattern = &pattern,
                .value = value,
                .user = site.user,
                .operand = site.operand,
                .progress = progress(),
                .other = other,
                .other_user = other_user};
    return false;
  }

  // `any_result`: the value is one result of a node a TupleGetItem selected, and a pattern
  // bound before to another result of the same node still matches (it matches the node).
  bool match(const Pattern& p, Value* v, Site site, bool any_result, Continuation k);
  bool match_op(const Pattern& p, Value* v, Site site, Continuation k);
  bool match_fields_or_operands(const Pattern& p, Node* node, Continuation k);
  bool match_operands(const std::vector<PatternPtr>& operands, Node* node, std::size_t i,
                      Continuation k);
  bool match_tuple_get_item(const Pattern& p, Value* v, Site site, Continuation k);
  bool match_chain(const Pattern& p, Value* v, Site site, Continuation k);

  std::vector<Binding> bindings_;
  // Values the match takes from outside, in order, with repeats and values produced
  // inside the match (result() filters both).
  std::vector<Value*> inputs_;
  std::vector<Node*> path_nodes_;
  bool quiet_;
  bool has_failure_ = false;
  FailureRecord failure_;
};

bool Matcher::match(const Pattern& p, Value* v, Site site, bool any_result, Continuation k) {
  if (Value* before = bound(&p)) {
    bool same =
        before == v || (any_result && !v->is_param() && before->producer() == v->producer());
    return same ? k() : fail(Miss::Diamond, p, v, site, before);
  }
  auto bind_then_continue = [&] {
    bind(p, v);
    return k();
  };
  switch (p.kind) {
    case PatternKind::Wildcard:
      bind(p, v);
      inputs_.push_back(v);
      return k();
    case PatternKind::Input:
      if (!v->is_param()) return fail(Miss::Input, p, v, site);
      bind(p, v);
      inputs_.push_back(v);
      return k();
    case PatternKind::Constant:
      if (v->is_param() || !v->producer()->is_op("constant"))
        return fail(Miss::Constant, p, v, site);
      bind(p, v);
      return k();
    case PatternKind::Op:
      return match_op(p, v, site, k);
    case PatternKind::Tuple: {
      Node* node = v->producer();
      if (node == nullptr || !node->is_op("tuple")) return fail(Miss::Tuple, p, v, site);
      if (p.operands && node->num_operands() != p.operands->size())
        return fail(Miss::FieldCount, p, v, site);
      bind(p, v);
      return match_fields_or_operands(p, node, k);
    }
    case PatternKind::Alt: {
      Mark start = mark();
      if (match(*p.children[0], v, site, any_result, bind_then_continue)) return true;
      restore(start);
      return match(*p.children[1], v, site, any_result, bind_then_continue);
    }
    case PatternKind::AttrPred: {
      // The refined pattern first: "expected nn.conv2d" says more than a missing attribute.
      auto check = [&] {
        const Node* node = v->producer();
        if (node == nullptr) return fail(Miss::AttrOnParam, p, v, site);
        const Attribute* a = node->attrs().find(p.attr->attr);
        if (a == nullptr) return fail(Miss::AttrMissing, p, v, site);
        if (!p.attr->test(*a)) return fail(Miss::Attr, p, v, site);
        return bind_then_continue();
      };
      return match(*p.children[0], v, site, any_result, check);
    }
    case PatternKind::TypePred: {
      auto check = [&] {
        if (!p.type->test(v->type())) return fail(Miss::Type, p, v, site);
        return bind_then_continue();
      };
      return match(*p.children[0], v, site, any_result, check);
    }
    case PatternKind::TupleGetItem:
      return match_tuple_get_item(p, v, site, k);
    case PatternKind::Dominator:
      return match_chain(p, v, site, k);
  }
  return false;
}

bool Matcher::match_op(const Pattern& p, Value* v, Site site, Continuation k) {
  Node* node = v->producer();
  if (node == nullptr || std::find(p.ops.begin(), p.ops.end(), node->op_name()) == p.ops.end())
    return fail(Miss::Op, p, v, site);
  if (p.operands && node->num_operands() != p.operands->size())
    return fail(Miss::OperandCount, p, v, site);
  bind(p, v);
  return match_fields_or_operands(p, node, k);
}

bool Matcher::match_fields_or_operands(const Pattern& p, Node* node, Continuation k) {
  if (p.operands) return match_operands(*p.operands, node, 0, k);
  // Operands the pattern leaves open come from outside the match.
  for (Value* operand : node->operands()) inputs_.push_back(operand);
  return k();
}

bool Matcher::match_operands(const std::vector<PatternPtr>& operands, Node* node, std::size_t i,
                             Continuation k) {
  if (i == operands.size()) return k();
  auto rest = [&] { return match_operands(operands, node, i + 1, k); };
  return match(*operands[i], node->operand(i), {node, static_cast<std::uint32_t>(i)}, false, rest);
}

// Result `index` of a node matched by the child (split's `%s#1`), or a get_item node whose
// tuple operand the child matches.
bool Matcher::match_tuple_get_item(const Pattern& p, Value* v, Site site, Continuation k) {
  auto bind_then_continue = [&] {
    bind(p, v);
    return k();
  };
  Node* node = v->producer();
  if (node == nullptr) return fail(Miss::Result, p, v, site);
  if (node->is_op("get_item")) {
    if (p.index >= 0 && node->attrs().get_int("index") != p.index)
      return fail(Miss::ItemIndex, p, v, site);
    return match(*p.children[0], node->operand(0), {node, 0}, false, bind_then_continue);
  }
  if (p.index >= 0 && v->index() != static_cast<std::uint32_t>(p.index))
    return fail(Miss::Result, p, v, site);
  return match(*p.children[0], v, site, true, bind_then_continue);
}

// Relay's dominator: after the child matched, walk back from its node through operands.
// Each node is visited once (diamonds inside the chain are common), so the walk is linear in
// the nodes between the child and the parent. `parent` and `path` are matched on their own,
// with fresh bindings: `path` meets many nodes, the same pattern object may serve as `path`
// and `child`, and a second parent must be recognised as one.
bool Matcher::match_chain(const Pattern& p, Value* v, Site site, Continuation k) {
  const Pattern& parent = *p.children[0];
  const Pattern& path = *p.children[1];
  auto walk = [&] {
    Node* child = v->producer();
    if (child == nullptr) return fail(Miss::NoParent, p, v, site);
    Value* parent_value = nullptr;  // the first parent found
    // Nodes the walk met: true for path nodes (they lead back to the parent), false for
    // nodes whose values enter the chain from outside.
    std::unordered_map<const Node*, bool> leads_back;
    std::vector<Node*> path_nodes;  // in the order their walk ended
    // An explicit stack, so that a long chain cannot overflow the call stack.
    struct Frame {
      Node* node;
      std::size_t next_operand;
      bool leads_back;
    };
    std::vector<Frame> stack = {{child, 0, false}};
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next_operand == frame.node->num_operands()) {
        Frame finished = frame;
        stack.pop_back();
        if (stack.empty()) break;  // the child
        leads_back[finished.node] = finished.leads_back;
        if (finished.leads_back) {
          path_nodes.push_back(finished.node);
          stack.back().leads_back = true;
        }
        continue;
      }
      Node* user = frame.node;
      auto index = static_cast<std::uint32_t>(frame.next_operand++);
      Value* operand = user->operand(index);
      Node* producer = operand->producer();
      if (producer == nullptr) continue;  // a parameter enters from outside
      if (parent_value != nullptr && producer == parent_value->producer()) {
        frame.leads_back = true;
        continue;
      }
      if (auto it = leads_back.find(producer); it != leads_back.end()) {
        frame.leads_back = frame.leads_back || it->second;
        continue;
      }
      Matcher parent_matcher(true);
      if (parent_matcher.run(parent, operand)) {
        if (parent_value != nullptr)
          return fail(Miss::TwoParents, p, operand, {user, index}, parent_value);
        parent_value = operand;
        // The parent's bindings count like the child's.
        bindings_.insert(bindings_.end(), parent_matcher.bindings_.begin(),
                         parent_matcher.bindings_.end());
        inputs_.insert(inputs_.end(), parent_matcher.inputs_.begin(), parent_matcher.inputs_.end());
        path_nodes_.insert(path_nodes_.end(), parent_matcher.path_nodes_.begin(),
                           parent_matcher.path_nodes_.end());
        frame.leads_back = true;
        continue;
      }
      Matcher path_matcher(true);
      if (path_matcher.run(path, operand))
        stack.push_back({producer, 0, false});  // may invalidate `frame`
      else
        leads_back[producer] = false;
    }
    if (parent_value == nullptr) return fail(Miss::NoParent, p, v, site);
    // Path nodes feed only the chain: otherwise their values would be needed outside it.
    auto in_chain = [&](const Node* n) {
      if (n == child) return true;
      auto it = leads_back.find(n);
      return it != leads_back.end() && it->second;
    };
    for (Node* node : path_nodes)
      for (Value* result : node->results())
        for (const Use& use : result->uses())
          if (use.user == nullptr || !in_chain(use.user))
            return fail(Miss::OutsideUse, p, result, {}, nullptr, use.user);
    for (Value* operand : child->operands()) inputs_.push_back(operand);
    for (Node* node : path_nodes) {
      path_nodes_.push_back(node);
      for (Value* operand : node->operands()) inputs_.push_back(operand);
    }
    bind(p, v);
    return k();
  };
  return match(*p.children[2], v, site, false, walk);
}

// Post-order of a walk from the root through operands, restricted to the match's nodes.
std::vector<Node*> order_nodes(Node* root, const std::unordered_set<Node*>& members) {
  std::vector<Node*> order;
  if (root == nullptr || !members.contains(root)) return order;
  std::unordered_set<Node*> seen = {root};
  std::vector<std::pair<Node*, std::size_t>> stack = {{root, 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next == node->num_operands()) {
      order.push_back(node);
      stack.pop_back();
      continue;
    }
    Node* producer = node->operand(next++)->producer();
    if (producer != nullptr && members.contains(producer) && seen.insert(producer).second)
      stack.push_back({producer, 0});
  }
  return order;
}

Match Matcher::result(Value* root) const {
  Match m;
  m.root = root;
  std::unordered_set<Node*> members;
  for (const Binding& b : bindings_) {
    m.bindings.emplace(b.pattern, b.value);
    Node* node = b.value->producer();
    switch (b.pattern->kind) {
      case PatternKind::Op:
      case PatternKind::Constant:
      case PatternKind::Tuple:
        members.insert(node);
        break;
      case PatternKind::TupleGetItem:
        if (node->is_op("get_item")) members.insert(node);
        break;
      default:
        break;
    }
  }
  members.insert(path_nodes_.begin(), path_nodes_.end());
  m.nodes = order_nodes(root->producer(), members);
  UMA_CHECK(m.nodes.size() == members.size(), "a matched node is not above the match's root");
  std::unordered_set<Value*> seen;
  for (Value* input : inputs_) {
    Node* producer = input->producer();
    if (producer != nullptr && members.contains(producer)) continue;
    if (seen.insert(input).second) m.inputs.push_back(input);
  }
  return m;
}

}  // namespace

Value* Match::operator[](const PatternPtr& pattern) const {
  auto it = bindings.find(pattern.get());
  return it == bindings.end() ? nullptr : it->second;
}

std::variant<Match, MatchFailure> match(const Pattern& pattern, Value* value) {
  Matcher matcher;
  if (matcher.run(pattern, value)) return matcher.result(value);
  return matcher.failure();
}

std::optional<Match> quiet_match(const Pattern& pattern, Value* value) {
  Matcher matcher(/*quiet=*/true);
  if (matcher.run(pattern, value)) return matcher.result(value);
  return std::nullopt;
}

std::optional<Match> match_accepted(const Pattern& pattern, Value* value,
                                    const MatchAcceptor& accept, MatchFailure* miss) {
  Matcher matcher(/*quiet=*/miss == nullptr);
  bool offered = false;
  auto offer = [&](const Match& m) {
    offered = true;
    return accept(m);
  };
  if (matcher.run(pattern, value, offer)) return matcher.result(value);
  if (miss != nullptr && !offered) *miss = matcher.failure();
  return std::nullopt;
}

}  // namespace uma
