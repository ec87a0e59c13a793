// How a build chooses what to offload of what backends' patterns match, and whether a node
// may fall back to the host at all.
//
// The policy (BuildOptions::partition, `--partition=greedy|cost`):
//   greedy  the default: each match a target's predicate accepts (and whose tiles fit the
//           target's memories) is offloaded.
//   cost    such a match is offloaded only if it costs no more there than on the host: its
//           cost offloaded is the target backend's estimate (Backend::set_cost), data moved
//           in and out included, and the host's is the host backend's for the same ops. The
//           report says why a match stayed: "offload 1.8 us + transfer 4.1 us > host
//           2.2 us". A target whose backend declares no cost is offloaded as under greedy.
//
// The strict policy: `no_fallback`, a bool attribute of every accelerator's target kind
// ("npu_sim --no_fallback"; BuildOptions::no_fallback and `--no-fallback` set it for every
// accelerator target of a build). The build then fails naming each node the target's
// patterns matched but that stays on the host, and why: its predicate's reason, the fit
// check's, the cost comparison's, or why the match could not be cut out.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uma/pattern/pattern.h"
#include "uma/support/error.h"
#include "uma/uma/backend.h"
#include "uma/uma/target.h"

namespace uma {

class PartitionReport;

enum class PartitionPolicy : std::uint8_t { kGreedy, kCost };
std::string_view partition_policy_name(PartitionPolicy policy);  // "greedy", "cost"
// An error lists the policies.
Expected<PartitionPolicy> parse_partition_policy(std::string_view name);

inline constexpr std::string_view kNoFallbackAttr = "no_fallback";
// The attributes register_backend gives every accelerator's target kind (not the host's):
// no_fallback (bool, false).
std::vector<TargetAttrDef> accelerator_attrs();

// A duration in the unit that reads best, to three significant digits: "850 ns", "1.8 us",
// "12.3 ms", "2.05 s".
std::string format_seconds(double seconds);

// The cost policy of one build: the host's cost, with the build's host target. Used from
// the partitioner's predicates (partition_target), one match at a time.
class CostPolicy {
 public:
  CostPolicy(BackendCost host_cost, Target host)
      : host_cost_(std::move(host_cost)), host_(std::move(host)) {}

  // Whether `match`, which the predicates of the pattern whose composite is `composite`
  // ("<target>.<pattern>") accepted, costs no more offloaded (`cost` on `target`) than on the
  // host: an error says why not ("offload 1.8 us + transfer 4.1 us > host 2.2 us"). A cost
  // that fails or is not a duration (negative, not finite, a transfer longer than the whole)
  // rejects the match and is kept for failure().
  Status check(const Match& match, std::string_view composite, const BackendCost& cost,
               const Target& target) const;

  // The first error a cost gave, naming the composite and the backend; success when none did.
  // A build fails with it: a cost that cannot be estimated is a backend's bug, not a reason.
  Status failure() const;

 private:
  Error fail(Error error) const;  // keeps the first

  BackendCost host_cost_;
  Target host_;
  mutable std::mutex mutex_;
  mutable std::optional<Error> failure_;
};

// Fails when a node of the report that the patterns of one of `targets` matched stays on the
// host: one line per such node, with the reasons its target gave ("node 'conv1'
// (nn.conv2d): predicate rejected (offload 1.8 us + transfer 4.1 us > host 2.2 us)"), under a
// line per target.
Status check_no_fallback(const PartitionReport& report, const std::vector<std::string>& targets);

}  // namespace uma
