// annotate-target: marks the nodes each target claims with uma.target = "<target>", with
// the semantics of TVM's AnnotateTarget (an attribute instead of compiler_begin/end nodes).
//
// In each host function, in order, a node without uma.target is claimed by
// - a call of a composite: the target its name starts with ("<target>.<pattern>"), when that
//   target is one of the pass's;
// - a tuple or get_item: the target of its operands, when they all have the same one (a
//   tuple of one target's results stays with them);
// - any other op node: the first target, in priority order, whose supports_op accepts it.
// Constants are never claimed: they follow their users. Neither are calls of functions a
// target compiles already. A node that has uma.target keeps it, so the pass can run again,
// for other targets, and running it on its own output changes nothing.
//
// With a report, each recorded node says, for every target that did not get it, why:
// ClaimedByHigherPriority (the winner) when an earlier target took it, else OpNotSupported
// (supports_op's reason; "<target> takes only composites" for a target without one) —
// unless merge-composite has already said why that target's patterns did not take it.
#include <algorithm>

#include "annotations.h"
#include "target_list.h"
#include "uma/partition/report.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

// The target a composite's name starts with: "test_conv" for "test_conv.conv2d".
std::string_view composite_target(const Function& composite) {
  const auto* name = std::get_if<std::string>(composite.attrs().find(kCompositeAttr));
  if (name == nullptr) return {};
  return std::string_view(*name).substr(0, name->find('.'));
}

class Annotator {
 public:
  Annotator(const TargetList& targets, PartitionReport* report)
      : targets_(targets), report_(report) {}

  // Claims `node` (which has no uma.target) for a target; whether one took it.
  Expected<bool> annotate(Node& node) {
    if (node.is_op("constant")) return false;
    const Function* callee = node.callee();
    if (callee != nullptr && callee->attrs().has(kCompilerAttr)) return false;
    if (report_ != nullptr) reasons_.assign(targets_.size(), std::string());
    std::optional<std::size_t> winner;
    if (callee != nullptr && callee->attrs().has(kCompositeAttr)) {
      winner = claim_composite(*callee);
    } else if (node.is_op("tuple") || node.is_op("get_item")) {
      UMA_TRY_ASSIGN(winner, claim_by_operands(node));
    } else {
      winner = claim_op(node);
    }
    if (report_ != nullptr) record(node, winner);
    if (!winner) return false;
    node.mutable_attrs().set(std::string(kTargetAttr), targets_[*winner]->name);
    return true;
  }

 private:
  std::optional<std::size_t> find(std::string_view target) const {
    for (std::size_t i = 0; i < targets_.size(); ++i)
      if (targets_[i]->name == target) return i;
    return std::nullopt;
  }

  std::optional<std::size_t> claim_composite(const Function& composite) {
    std::string_view owner = composite_target(composite);
    std::optional<std::size_t> winner = find(owner);
    if (report_ != nullptr)
      for (std::size_t i = 0; i < targets_.size(); ++i)
        reasons_[i] = fmt::format("@{} is a composite of {}", composite.name(), owner);
    return winner;
  }

  Expected<std::optional<std::size_t>> claim_by_operands(const Node& node) {
    std::optional<std::size_t> winner;
    bool agree = node.num_operands() > 0;
    for (const Value* operand : node.operands()) {
      const Node* producer = operand->producer();
      std::optional<std::string> target;
      if (producer != nullptr) {
        UMA_TRY_ASSIGN(target, annotations::target_of(*producer));
      }
      std::optional<std::size_t> index = target ? find(*target) : std::nullopt;
      if (!index || (winner && *winner != *index)) {
        agree = false;
        break;
      }
      winner = index;
    }
    if (report_ != nullptr)
      for (std::size_t i = 0; i < targets_.size(); ++i)
        reasons_[i] = fmt::format("{} goes with its operands, which are not all on {}",
                                  node.op_name(), targets_[i]->name);
    if (!agree) return std::optional<std::size_t>();
    return winner;
  }

  std::optional<std::size_t> claim_op(const Node& node) {
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      const PartitionTarget& target = *targets_[i];
      if (!target.supports_op) {
        if (report_ != nullptr) reasons_[i] = fmt::format("{} takes only composites", target.name);
        continue;
      }
      Status supported = target.supports_op(node);
      if (supported) return i;
      if (report_ != nullptr) reasons_[i] = supported.error().message();
    }
    return std::nullopt;
  }

  // For each target that did not get the node, why — unless merge-composite said why
  // already.
  void record(const Node& node, std::optional<std::size_t> winner) {
    for (NodeRecord* record : report_->records_of(&node)) {
      for (std::size_t i = 0; i < targets_.size(); ++i) {
        if (winner == i) continue;
        const std::string& target = targets_[i]->name;
        bool explained = std::any_of(record->rejections.begin(), record->rejections.end(),
                                     [&](const Rejection& r) { return r.target == target; });
        if (explained) continue;
        if (winner && *winner < i)
          record->rejections.push_back(
              {target, RejectionKind::ClaimedByHigherPriority, targets_[*winner]->name});
        else
          record->rejections.push_back({target, RejectionKind::OpNotSupported, reasons_[i]});
      }
    }
  }

  const TargetList& targets_;
  PartitionReport* report_;
  // Per target, why it did not claim the current node; kept only for a report, as the
  // words cost more than the claim itself.
  std::vector<std::string> reasons_;
};

class AnnotateTargetPass final : public Pass {
 public:
  explicit AnnotateTargetPass(PartitionOptions options) : options_(std::move(options)) {}

  std::string_view name() const override { return "annotate-target"; }

  Expected<bool> run(Module& module) override {
    UMA_TRY_ASSIGN(TargetList targets, find_targets(module.context(), options_, name()));
    Annotator annotator(targets, options_.report);
    bool changed = false;
    for (Function* function : module.functions()) {
      if (!annotations::is_host_function(*function)) continue;
      for (const auto& node : function->nodes()) {
        UMA_TRY_ASSIGN(std::optional<std::string> target, annotations::target_of(*node));
        if (target) continue;
        UMA_TRY_ASSIGN(bool claimed, annotator.annotate(*node));
        changed |= claimed;
      }
    }
    return changed;
  }

 private:
  PartitionOptions options_;
};

}  // namespace

std::unique_ptr<Pass> create_annotate_target_pass(PartitionOptions options) {
  return std::make_unique<AnnotateTargetPass>(std::move(options));
}

}  // namespace uma
