// The pattern language: what a backend can run, said as small dataflow patterns over the
// graph IR (Relay's vocabulary), and a matcher that binds them or says why not.
//
//   auto conv = is_op("nn.conv2d", {wildcard(), is_constant()});
//   auto bias = optional(conv, [](PatternPtr p) { return is_op("add", {p, is_constant()}); });
//   auto root = optional(bias, [](PatternPtr p) { return is_op("nn.relu", {p}); });
//
// A pattern matches a Value. Sub-patterns are shared pointers, and a sub-pattern used at
// two places must bind the same value at both (a diamond). Patterns are immutable, so a
// pattern table can be matched from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/type.h"

namespace uma {

class Node;
class Value;

// One list of pattern kinds, expanded where patterns are printed and matched.
#define UMA_FOR_EACH_PATTERN_KIND(X)                                                   \
  X(Wildcard)     /* any value */                                                      \
  X(Op)           /* a node of an op (or of any op in a set), with operand patterns */ \
  X(Constant)     /* a `constant` node's result */                                     \
  X(Input)        /* a parameter of the function */                                    \
  X(Alt)          /* the first of two alternatives that matches */                     \
  X(AttrPred)     /* a pattern whose node's attribute satisfies a predicate */         \
  X(TypePred)     /* a pattern whose value's type satisfies a predicate */             \
  X(Tuple)        /* a `tuple` node with field patterns */                             \
  X(TupleGetItem) /* result `index` of a multi-result node, or get_item of a tuple */  \
  X(Dominator)    /* a chain of `path` nodes from `parent` down to `child` */

enum class PatternKind : std::uint8_t {
#define UMA_PATTERN_KIND_ENUM(kind) kind,
  UMA_FOR_EACH_PATTERN_KIND(UMA_PATTERN_KIND_ENUM)
#undef UMA_PATTERN_KIND_ENUM
};

class Pattern;
using PatternPtr = std::shared_ptr<const Pattern>;

// A predicate on an attribute's value, with the words a failure report uses for it
// ("is 1", "is at most 3").
struct AttrPredicate {
  std::string attr;
  std::function<bool(const Attribute&)> test;
  std::string description;
};

// A predicate on a value's type, described by what the type must have ("dtype f32",
// "rank 4"): failures read "type tensor<1x3xf16> does not have dtype f32".
struct TypePredicate {
  std::function<bool(const Type&)> test;
  std::string description;
};

class Pattern {
 public:
  PatternKind kind;
  // Op: the op names accepted (one, or several: is_op({"add", "multiply"}, ...)).
  std::vector<std::string> ops;
  // Op: operand patterns; nullopt accepts any operands (is_op(name) with no list).
  // Tuple: field patterns (nullopt: any fields).
  std::optional<std::vector<PatternPtr>> operands;
  // Alt: the two alternatives, tried in order. AttrPred/TypePred: {the pattern refined}.
  // TupleGetItem: {the tuple or multi-result node}. Dominator: {parent, path, child}.
  std::vector<PatternPtr> children;
  std::optional<AttrPredicate> attr;  // AttrPred
  std::optional<TypePredicate> type;  // TypePred
  std::int64_t index = -1;            // TupleGetItem: the index; -1 accepts any

  // Short text of the pattern, as failures and reports print it:
  // "nn.relu(add(nn.conv2d(*, const), const))"; "*" a wildcard, "input" an input, "f(...)"
  // any operands, "{add, multiply}(*, *)" an op set, "(a | b)" alternatives,
  // "p[groups is 1]" and "p[dtype f32]" predicates, "p#1" a result or item,
  // "tuple(a, b)", "dominates(parent, path, child)".
  std::string to_string() const;
};

// ---- Building patterns ----

PatternPtr wildcard();
// A node of `op` whose operands match `operands` in order (the count must be equal). It
// matches any result of a multi-result node; is_tuple_get_item selects one.
PatternPtr is_op(std::string op, std::vector<PatternPtr> operands);
// A node of `op` with any operands (they become inputs of the match).
PatternPtr is_op(std::string op);
// A node of any of `ops`. The initializer_list overloads make `is_op({"add", "multiply"}, ...)`
// pick the set rather than std::string's iterator-pair constructor.
PatternPtr is_op(std::vector<std::string> ops, std::vector<PatternPtr> operands);
PatternPtr is_op(std::initializer_list<std::string> ops, std::vector<PatternPtr> operands);
PatternPtr is_op(std::vector<std::string> ops);
PatternPtr is_op(std::initializer_list<std::string> ops);
PatternPtr is_constant();
// A parameter of the function being matched (a graph input).
PatternPtr is_input();
// `a` if it matches, else `b`.
PatternPtr alt(PatternPtr a, PatternPtr b);
// Either `extend(base)` or `base` alone, longest first: conv -> optional(bias add).
PatternPtr optional(const PatternPtr& base, const std::function<PatternPtr(PatternPtr)>& extend);

// The node matched by `pattern` has attribute `name` equal to `value` (attr_equal);
// described as "is <value>".
PatternPtr has_attr(PatternPtr pattern, std::string name, Attribute value);
// The node matched by `pattern` has attribute `name` and `test` holds for it. `description`
// completes "attribute 'name' ...": "is at most 3".
PatternPtr has_attr(PatternPtr pattern, std::string name,
                    std::function<bool(const Attribute&)> test, std::string description);
PatternPtr has_dtype(PatternPtr pattern, DType dtype);
// Exact shape.
PatternPtr has_shape(PatternPtr pattern, Shape shape);
PatternPtr has_rank(PatternPtr pattern, std::size_t rank);
// `description` names what the type must have: "a batch of 1".
PatternPtr has_type(PatternPtr pattern, std::function<bool(const Type&)> test,
                    std::string description);

// A `tuple` node whose fields match `fields`.
PatternPtr is_tuple(std::vector<PatternPtr> fields);
// Result `index` of a node matched by `pattern` (a multi-result node such as split), or a
// get_item of a tuple matched by `pattern`. index -1 accepts any.
PatternPtr is_tuple_get_item(PatternPtr pattern, std::int64_t index = -1);

// Relay's dominator pattern: a value matching `child` whose operands lead back, through
// nodes that each match `path` (patterns whose own operands are usually wildcards), to one
// node matching `parent`; every node on the way is used only inside the chain. It matches
// chains of elementwise ops after a convolution of any length:
// dominates(is_op("nn.conv2d"), is_op({"add", "nn.relu", ...}), is_op({...})).
//
// Walking back from the child's node: an operand produced by a node matching `parent` is
// the parent (all must be the same node); one produced by a node matching `path` from which
// the walk reaches the parent is a path node; any other operand (a constant, a parameter, a
// path-like node that does not lead to the parent) enters the chain from outside and is an
// input of the match. `parent` and `child` bind as usual; `path` is matched afresh at each
// node and binds nothing (the path nodes are in Match::nodes).
PatternPtr dominates(PatternPtr parent, PatternPtr path, PatternPtr child);

// ---- Matching ----

// Why a pattern did not match, at the deepest point the matcher reached: which
// sub-pattern, at which value, and what differed.
struct MatchFailure {
  const Pattern* pattern = nullptr;
  const Value* value = nullptr;
  // Where `value` was reached: operand `operand` of `user`; null at the root.
  const Node* user = nullptr;
  std::uint32_t operand = 0;
  // "expected nn.conv2d, found nn.max_pool2d"; "attribute 'groups' is 32, expected is 1".
  std::string reason;
  // How many sub-patterns had matched before this failure: larger is nearer.
  int progress = 0;
  // "at operand 1 of node 'conv1' (nn.conv2d): expected a constant, found parameter %x";
  // at the root: "at node 'pool1' (nn.max_pool2d): expected nn.conv2d, found nn.max_pool2d".
  std::string to_string() const;
  // The same, with nodes named by `locate` instead of Node::location(), whose walk of the
  // function to number an unnamed node is too slow for a caller that names many failures.
  std::string to_string(const std::function<std::string(const Node&)>& locate) const;
};

struct Match {
  // The value each sub-pattern bound (an Op pattern under a TupleGetItem binds the result the
  // TupleGetItem selected).
  std::unordered_map<const Pattern*, Value*> bindings;
  // The nodes the match covers: those bound to Op, Constant, Tuple and TupleGetItem(get_item)
  // patterns and the path nodes of dominators, operands before users: the post-order of a
  // walk from the root through operands, first to last (deterministic, and linear in the
  // match's size where the function's order would cost a walk of the function). The root's
  // node is last.
  std::vector<Node*> nodes;
  // The values the match takes from outside, in order of first binding, without repeats:
  // those bound to wildcards and inputs, and the operands of nodes whose operands the pattern
  // leaves open (is_op(name), dominator paths); values the match's own nodes produce are left
  // out. The inputs of the composite this match becomes.
  std::vector<Value*> inputs;
  Value* root = nullptr;

  Value* operator[](const PatternPtr& pattern) const;
};

// Matches `pattern` against `value` (backtracking through alternatives). On failure,
// returns the nearest miss.
std::variant<Match, MatchFailure> match(const Pattern& pattern, Value* value);
// The same match, for a caller that does not show why a match failed: nothing is recorded
// nor put into words on the way (a partitioner tries patterns at every node, and most fail).
std::optional<Match> quiet_match(const Pattern& pattern, Value* value);

// Whether a caller takes a match (a partitioner refuses one it cannot cut out).
using MatchAcceptor = std::function<bool(const Match&)>;
// The first match `accept` takes: a match it refuses backtracks into the alternatives not
// yet tried, so that `alt(add(x, wildcard()), add(wildcard(), x))` still binds x to the
// second operand when the first binding is refused; nullopt when it takes none. With `miss`,
// the nearest miss goes there when the pattern matched nowhere (and it is left alone when a
// match was refused); without it, nothing is recorded on the way, as in quiet_match.
std::optional<Match> match_accepted(const Pattern& pattern, Value* value,
                                    const MatchAcceptor& accept, MatchFailure* miss = nullptr);

}  // namespace uma
