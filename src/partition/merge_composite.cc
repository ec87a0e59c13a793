// merge-composite: replaces each match of the targets' patterns by a call to a composite
// function, with the semantics of TVM's MergeComposite.
//
// For each target in priority order and each of its patterns in order, the nodes of each
// host function are visited last to first, so that the longest chains are taken first
// (conv → bias → relu before the conv alone). At a node no composite holds yet, the pattern
// is matched at the node's results. A match is rejected when
// - it covers a node a composite of this pattern holds already, a call (a composite or an
//   outlined region made earlier) or a node an earlier annotate-target claimed (uma.target):
//   nothing is taken twice;
// - a value of its interior (any node but the root) is used outside it, because a
//   composite has one output: WouldCreateCycle when the outside user leads back to the root
//   (the composite would both feed and need it), else ValueEscapes;
// - the pattern's predicate rejects it (PredicateRejected, with its reason).
// A rejected match sends the matcher back into the pattern's alternatives not yet tried
// (an add's residual bound to its other operand, say); the first match none rejects wins.
// Each accepted match becomes a module function "<target>.<pattern>_<i>" (i counts per
// module, in order of creation, skipping names in use) with attributes Composite =
// "<target>.<pattern>" and PartitionedFromPattern = the matched ops each followed by '_'.
// Its parameters are the match's inputs; the constants it matched are cloned inside. The
// call takes the root's place and names; matched constants nothing else uses are erased.
//
// Assumes a verified module. Guarantees a verified module that computes the same. Running
// the pass on its own output changes nothing: calls match no pattern, and what was rejected
// is rejected again.
//
// With a report: each composite's nodes are recorded as replaced by its call, and each
// recorded node that ends in no composite of a target with patterns says why that target's
// patterns did not take it: the rejections of the matches rooted at or covering it, or else
// the nearest miss (NoPatternMatched, "<target>.<pattern>: <failure>", for the failure that
// got furthest among the target's patterns at that node).
//
// Cost: the function is walked once, into a compact table of its nodes (which a pattern may
// take; their ops and operands: match_filter.h). Each pattern then scans the table, not the
// function, so that a large function is not read from memory once per pattern: without a
// report, the matcher runs only where the table cannot rule a match out; with one, at every
// node (patterns × nodes attempts), to find its nearest miss. The cycle check searches
// backwards only between the earliest outside user and the root.
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "annotations.h"
#include "match_filter.h"
#include "target_list.h"
#include "uma/graph/rewriter.h"
#include "uma/partition/composite.h"
#include "uma/partition/report.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

// Nodes no pattern takes: calls are composites, outlined regions or other functions, and a
// node with uma.target belongs to a target already.
bool is_claimed_already(const Node& node) {
  return node.is_op("call") || node.attrs().has(kTargetAttr);
}

// One pattern of one target, ready to match.
struct PatternEntry {
  const CompositePattern* pattern;
  std::string composite;  // "<target>.<pattern>"
};

// Why a match did not become a composite.
struct Refusal {
  RejectionKind kind;
  std::string detail;
  bool operator==(const Refusal&) const = default;
};

// Merges the composites of one host function, target by target.
class FunctionMerger {
 public:
  FunctionMerger(Function& function, PartitionReport* report, std::size_t& next_index)
      : function_(function), report_(report), next_index_(next_index) {
    nodes_.reserve(function.num_nodes());
    position_.reserve(function.num_nodes());
    for (const auto& owned : function.nodes()) {
      Node* node = owned.get();
      position_[node] = nodes_.size();
      filter_.add(*node, position_);
      nodes_.push_back(node);
      open_.push_back(!node->is_op("constant") && !is_claimed_already(*node));
      present_.push_back(true);
    }
  }

  Status run_target(const PartitionTarget& target) {
    why_.clear();
    for (const CompositePattern& pattern : target.patterns) {
      PatternEntry entry{&pattern, target.name + "." + pattern.name};
      UMA_TRY(run_pattern(entry));
    }
    if (report_ != nullptr && !target.patterns.empty()) record_reasons(target.name);
    return Status::success();
  }

  bool changed() const { return changed_; }

 private:
  // The matches are found first and replaced afterwards, first to last, so that composites
  // are numbered in the function's order.
  Status run_pattern(const PatternEntry& entry) {
    // With a report, every node is tried, so that it can say how near the pattern came.
    MatchFilter::Compiled filter = filter_.compile(*entry.pattern->pattern);
    std::vector<Match> accepted;
    for (std::size_t i = nodes_.size(); i-- > 0;) {
      if (!open_[i] || (report_ == nullptr && !filter_.may_match(filter, i))) continue;
      Node* node = nodes_[i];
      for (std::size_t r = 0; r < node->num_results(); ++r) {
        // A match that cannot be cut out sends the matcher back into the pattern's other
        // alternatives; when none can, the report gives the first one's refusal.
        std::optional<Refusal> refusal;
        Match refused;
        auto accept = [&](const Match& candidate) {
          if (!is_free(candidate, node)) return false;
          std::optional<Refusal> rejection = check(candidate, entry);
          if (rejection && !refusal) {
            refusal = rejection;
            refused = candidate;
          }
          return !rejection;
        };
        std::optional<Match> matched = try_match(entry, node, node->result(r), accept);
        if (!matched) {
          if (refusal) note_rejection(refused, *refusal);
          continue;
        }
        Match& m = *matched;
        // Its nodes are replaced once the sweep is over: no later match may take them.
        for (Node* covered : m.nodes)
          if (!covered->is_op("constant")) open_[position(covered)] = false;
        accepted.push_back(std::move(m));
        break;
      }
    }
    // A match may read the root of one replaced before it: its call's result now.
    ValueMap calls;
    for (auto it = accepted.rbegin(); it != accepted.rend(); ++it) {
      for (Value*& input : it->inputs)
        if (auto call = calls.find(input); call != calls.end()) input = call->second;
      const Value* root = it->root;
      UMA_TRY_ASSIGN(calls[root], replace(*it, entry));
    }
    return Status::success();
  }

  // The first match of the entry's pattern at `value`, a result of `node`, that `accept`
  // takes. Only a report is told why there is none, and only when the pattern matched
  // nowhere (a refused match is reported by the caller): without a report, a failed match is
  // not put into words.
  std::optional<Match> try_match(const PatternEntry& entry, const Node* node, Value* value,
                                 const MatchAcceptor& accept) {
    if (report_ == nullptr) return match_accepted(*entry.pattern->pattern, value, accept);
    MatchFailure miss;
    std::optional<Match> matched = match_accepted(*entry.pattern->pattern, value, accept, &miss);
    if (!matched && miss.pattern != nullptr) note_miss(node, entry, miss);
    return matched;
  }

  // The match is rooted at `root`'s result, covers no node taken before, and none of its
  // inputs is computed inside it (a pattern whose wildcard binds a value another of its
  // sub-patterns matched: such a match cannot be cut out).
  bool is_free(const Match& m, const Node* root) const {
    if (m.root == nullptr || m.root->producer() != root ||
        std::find(m.nodes.begin(), m.nodes.end(), root) == m.nodes.end())
      return false;
    for (const Value* input : m.inputs)
      if (input->producer() != nullptr && !input->producer()->is_op("constant") &&
          std::find(m.nodes.begin(), m.nodes.end(), input->producer()) != m.nodes.end())
        return false;
    return std::none_of(m.nodes.begin(), m.nodes.end(), [&](const Node* node) {
      return !node->is_op("constant") && (is_claimed_already(*node) || !open_[position(node)]);
    });
  }

  // Why the match cannot become a composite, or nullopt when it can.
  std::optional<Refusal> check(const Match& m, const PatternEntry& entry) const {
    std::unordered_set<const Node*> inside(m.nodes.begin(), m.nodes.end());
    std::vector<const Node*> outside;
    const Value* escapes_to_output = nullptr;
    for (const Node* node : m.nodes) {
      // Constants are cloned into the composite, so their other users keep them.
      if (node->is_op("constant")) continue;
      for (std::size_t i = 0; i < node->num_results(); ++i) {
        const Value* value = node->result(i);
        if (value == m.root) continue;
        for (const Use& use : value->uses()) {
          if (use.user == nullptr)
            escapes_to_output = value;
          else if (!inside.count(use.user))
            outside.push_back(use.user);
        }
      }
    }
    if (!outside.empty()) {
      if (const Node* user = user_leading_to_root(m, inside, outside))
        return Refusal{RejectionKind::WouldCreateCycle, describe(*user)};
      return Refusal{RejectionKind::ValueEscapes, describe(*earliest(outside))};
    }
    if (escapes_to_output != nullptr) {
      const auto& outputs = function_.outputs();
      std::size_t index =
          std::find(outputs.begin(), outputs.end(), escapes_to_output) - outputs.begin();
      return Refusal{RejectionKind::ValueEscapes,
                     fmt::format("output {} of function @{}", index, function_.name())};
    }
    if (entry.pattern->predicate) {
      Status accepted = entry.pattern->predicate(m);
      if (!accepted) return Refusal{RejectionKind::PredicateRejected, accepted.error().message()};
    }
    return std::nullopt;
  }

  // The earliest of the outside users from which a path leads to the match (and so to its
  // root), or nullptr. Searches backwards from the match's inputs through nodes no earlier
  // than the earliest outside user: a path from a user to the match only passes through
  // nodes between the two.
  const Node* user_leading_to_root(const Match& m, const std::unordered_set<const Node*>& inside,
                                   const std::vector<const Node*>& outside) const {
    std::unordered_set<const Node*> users(outside.begin(), outside.end());
    std::size_t floor = position(earliest(outside));
    std::vector<const Node*> stack;
    std::unordered_set<const Node*> seen;
    auto push_producers = [&](const Node* node) {
      for (const Value* operand : node->operands()) {
        const Node* producer = operand->producer();
        if (producer != nullptr && !inside.count(producer) && position(producer) >= floor &&
            seen.insert(producer).second)
          stack.push_back(producer);
      }
    };
    for (const Node* node : m.nodes) push_producers(node);
    const Node* found = nullptr;
    while (!stack.empty()) {
      const Node* node = stack.back();
      stack.pop_back();
      if (users.count(node) && (found == nullptr || position(node) < position(found))) found = node;
      push_producers(node);
    }
    return found;
  }

  const Node* earliest(const std::vector<const Node*>& nodes) const {
    return *std::min_element(nodes.begin(), nodes.end(), [&](const Node* a, const Node* b) {
      return position(a) < position(b);
    });
  }

  // A node's position in the function as the pass found it; a composite call takes its
  // root's, which keeps positions in topological order.
  std::size_t position(const Node* node) const { return position_.at(node); }

  // How a rejection names a node: as diagnostics do, or, for a node without a name, by its
  // value's name from the text, or by its position in the function as the pass found it
  // (Node::location walks the function to find it).
  std::string describe(const Node& node) const {
    std::string op = node.callee() != nullptr ? "call @" + node.callee()->name() : node.op_name();
    if (!node.name().empty()) return fmt::format("node '{}' ({})", node.name(), op);
    if (node.num_results() > 0 && !node.result()->name().empty())
      return fmt::format("node %{} ({})", node.result()->name(), op);
    return fmt::format("node #{} ({}) in function @{}", position(&node), op, function_.name());
  }

  // Replaces the match by a call of a new composite; the call's result.
  Expected<Value*> replace(const Match& m, const PatternEntry& entry) {
    Module& module = *function_.module();
    std::vector<Node*> replaced, constants;
    for (Node* node : m.nodes) (node->is_op("constant") ? constants : replaced).push_back(node);
    UMA_TRY_ASSIGN(Function * composite, module.add_function(fresh_name(module, entry.composite)));
    copy_match(m, *composite, entry.composite);

    Node* root = m.root->producer();
    Rewriter rewriter(function_);
    rewriter.set_insertion_point(root);
    UMA_TRY_ASSIGN(Node * call, rewriter.try_call(composite, m.inputs, root->name()));
    call->result()->set_name(m.root->name());
    position_[call] = position(root);
    filter_.forget(position(root));
    if (report_ != nullptr) report_->replaced_by(replaced, call, entry.composite);
    rewriter.replace_all_uses(m.root, call->result());
    current_positions_.clear();
    for (auto it = replaced.rbegin(); it != replaced.rend(); ++it) {
      if (*it != root) present_[position(*it)] = false;
      why_.erase(*it);
      position_.erase(*it);
      rewriter.erase(*it);
    }
    for (Node* node : constants)
      if (!node->result()->has_uses()) {
        present_[position(node)] = false;
        position_.erase(node);
        rewriter.erase(node);
      }
    changed_ = true;
    return call->result();
  }

  std::string fresh_name(const Module& module, const std::string& composite) {
    for (;; ++next_index_) {
      std::string name = fmt::format("{}_{}", composite, next_index_);
      if (module.find_function(name) == nullptr) {
        ++next_index_;
        return name;
      }
    }
  }

  // ---- What the report learns ----

  // Why the current target's patterns did not take a node.
  struct Why {
    std::vector<Refusal> rejections;
    int progress = -1;
    std::string nearest_miss;
  };

  void note_miss(const Node* node, const PatternEntry& entry, const MatchFailure& failure) {
    if (report_ == nullptr) return;
    Why& why = why_[node];
    if (failure.progress <= why.progress) return;
    why.progress = failure.progress;
    why.nearest_miss = entry.composite + ": " + failure.to_string([this](const Node& n) {
      return n.location(current_position(n));
    });
  }

  // Where `node` is in the function now, as Node::location() would count it, without its walk
  // of the function for each of the many nearest misses: counted once after replacements.
  std::size_t current_position(const Node& node) {
    if (current_positions_.empty()) {
      current_positions_.resize(nodes_.size());
      std::size_t count = 0;
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        current_positions_[i] = count;
        count += present_[i] ? 1 : 0;
      }
    }
    return current_positions_[position(&node)];
  }

  void note_rejection(const Match& m, const Refusal& rejection) {
    if (report_ == nullptr) return;
    for (const Node* node : m.nodes) {
      if (node->is_op("constant")) continue;
      std::vector<Refusal>& rejections = why_[node].rejections;
      if (std::find(rejections.begin(), rejections.end(), rejection) == rejections.end())
        rejections.push_back(rejection);
    }
  }

  // For each node the target's composites did not take, why not. Nodes in composites of
  // earlier targets get their reason from annotate-target (claimed by a higher priority).
  void record_reasons(const std::string& target) {
    for (const auto& node : function_.nodes()) {
      if (node->is_op("constant") || is_claimed_already(*node)) continue;
      auto it = why_.find(node.get());
      if (it == why_.end()) continue;
      const Why& why = it->second;
      for (const Refusal& r : why.rejections) report_->reject(node.get(), target, r.kind, r.detail);
      if (why.rejections.empty() && !why.nearest_miss.empty())
        report_->reject(node.get(), target, RejectionKind::NoPatternMatched, why.nearest_miss);
    }
  }

  Function& function_;
  PartitionReport* report_;
  std::size_t& next_index_;
  // By position in the function as the pass found it: the node; whether a pattern may still
  // take it (not a constant, not claimed before the pass, not in a match accepted since, which
  // erases it), in an array of its own, which each pattern scans; whether it, or the
  // composite call that replaced it as a match's root, is in the function.
  std::vector<Node*> nodes_;
  std::vector<char> open_;
  std::vector<char> present_;
  MatchFilter filter_;
  // By position, the number of nodes before it in the function now; empty when a
  // replacement has made it stale.
  std::vector<std::size_t> current_positions_;
  std::unordered_map<const Node*, std::size_t> position_;
  std::unordered_map<const Node*, Why> why_;
  bool changed_ = false;
};

class MergeCompositePass final : public Pass {
 public:
  explicit MergeCompositePass(PartitionOptions options) : options_(std::move(options)) {}

  std::string_view name() const override { return "merge-composite"; }

  Expected<bool> run(Module& module) override {
    UMA_TRY_ASSIGN(TargetList targets, find_targets(module.context(), options_, name()));
    std::size_t next_index = 0;
    bool changed = false;
    // The list is taken before composites are added; they are not host functions anyway.
    for (Function* function : module.functions()) {
      if (!annotations::is_host_function(*function)) continue;
      FunctionMerger merger(*function, options_.report, next_index);
      for (const auto& target : targets) UMA_TRY(merger.run_target(*target));
      changed |= merger.changed();
    }
    return changed;
  }

 private:
  PartitionOptions options_;
};

}  // namespace

std::unique_ptr<Pass> create_merge_composite_pass(PartitionOptions options) {
  return std::make_unique<MergeCompositePass>(std::move(options));
}

}  // namespace uma
