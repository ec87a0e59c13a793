// The partition policies and the cost comparison (see uma/uma/partition_policy.h).
#include "uma/uma/partition_policy.h"

#include <cmath>

#include "uma/partition/composite.h"

namespace uma {
namespace {

// An estimate is a duration, and its transfers a part of it.
Status check_duration(const CompositeCost& cost) {
  if (!std::isfinite(cost.seconds) || !std::isfinite(cost.transfer_seconds) || cost.seconds < 0 ||
      cost.transfer_seconds < 0 || cost.transfer_seconds > cost.seconds)
    return make_error(
        "the estimate (seconds {}, transfer_seconds {}) is not a duration that "
        "holds its transfers",
        cost.seconds, cost.transfer_seconds);
  return Status::success();
}

}  // namespace

std::string_view partition_policy_name(PartitionPolicy policy) {
  switch (policy) {
    case PartitionPolicy::kGreedy:
      return "greedy";
    case PartitionPolicy::kCost:
      return "cost";
  }
  return "?";
}

Expected<PartitionPolicy> parse_partition_policy(std::string_view name) {
  for (PartitionPolicy policy : {PartitionPolicy::kGreedy, PartitionPolicy::kCost})
    if (name == partition_policy_name(policy)) return policy;
  return make_error("unknown partition policy '{}' (known: greedy, cost)", name);
}

std::vector<TargetAttrDef> accelerator_attrs() {
  return {{std::string(kNoFallbackAttr), false,
           "fail the build when a node this target's patterns matched stays on the host"}};
}

std::string format_seconds(double seconds) {
  struct Unit {
    double scale;
    const char* name;
  };
  // "us", not "µs": the report's table escapes every byte outside ASCII (names come from
  // models), and would print "\xc2\xb5s".
  static constexpr Unit kUnits[] = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
  for (const Unit& unit : kUnits) {
    // Rounded to three digits, 999.7 ns is 1e+03 ns: the next unit reads better.
    std::string text = fmt::format("{:.3g}", seconds / unit.scale);
    if (std::abs(std::stod(text)) < 1000 || unit.scale == 1)
      return fmt::format("{} {}", text, unit.name);
  }
  return "?";
}

Status CostPolicy::check(const Match& match, std::string_view composite, const BackendCost& cost,
                         const Target& target) const {
  if (match.root == nullptr || match.nodes.empty()) return make_error("the match is empty");
  Module module(match.root->function()->module()->context(), "cost");
  UMA_TRY_ASSIGN(Function * function, module.add_function(std::string(composite)));
  copy_match(match, *function, composite);
  auto estimate = [&](const BackendCost& of, const Target& on) -> Expected<CompositeCost> {
    Expected<CompositeCost> result = of(*function, on);
    Status valid = result ? check_duration(*result) : Status(result.error());
    if (!valid)
      return fail(valid.error().with_context(
          fmt::format("the cost of {} on target '{}'", composite, on.name())));
    return result;
  };
  UMA_TRY_ASSIGN(CompositeCost offloaded, estimate(cost, target));
  UMA_TRY_ASSIGN(CompositeCost host, estimate(host_cost_, host_));
  if (offloaded.seconds <= host.seconds) return Status::success();
  return make_error("offload {} + transfer {} > host {}",
                    format_seconds(offloaded.seconds - offloaded.transfer_seconds),
                    format_seconds(offloaded.transfer_seconds), format_seconds(host.seconds));
}

Error CostPolicy::fail(Error error) const {
  std::lock_guard lock(mutex_);
  if (!failure_) failure_ = error;
  return error;
}

Status CostPolicy::failure() const {
  std::lock_guard lock(mutex_);
  if (failure_) return *failure_;
  return Status::success();
}

}  // namespace uma
