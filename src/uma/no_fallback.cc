// The strict policy: the nodes a target with no_fallback matched but left on the host (see
// uma/uma/partition_policy.h).
#include <algorithm>

#include "uma/partition/report.h"
#include "uma/support/printable.h"
#include "uma/uma/partition_policy.h"

namespace uma {
namespace {

// Whether the rejection says the target's patterns matched the node: not those that say no
// pattern matched, that the target does not run the op alone, or that an earlier target
// took it (annotate-target says so to every later target, whatever their patterns).
bool matched(const Rejection& rejection) {
  return rejection.kind != RejectionKind::NoPatternMatched &&
         rejection.kind != RejectionKind::OpNotSupported &&
         rejection.kind != RejectionKind::ClaimedByHigherPriority;
}

// "node 'conv1' (nn.conv2d)", or by its id in the report when it has no name.
std::string describe(const NodeRecord& record) {
  if (!record.name.empty()) return fmt::format("node '{}' ({})", printable(record.name), record.op);
  return fmt::format("node #{} ({}) in @{}", record.id, record.op, printable(record.function));
}

}  // namespace

Status check_no_fallback(const PartitionReport& report, const std::vector<std::string>& targets) {
  std::string message;
  for (const std::string& target : targets) {
    std::vector<std::string> lines;
    for (const NodeRecord& record : report.records()) {
      if (!record.target.empty()) continue;
      std::string why;
      for (const Rejection& r : record.rejections) {
        if (r.target != target || !matched(r)) continue;
        why += fmt::format("{}{}", why.empty() ? "" : "; ", rejection_text(r.kind));
        if (!r.detail.empty()) why += fmt::format(" ({})", printable(r.detail));
      }
      if (!why.empty()) lines.push_back(fmt::format("  {}: {}", describe(record), why));
    }
    if (lines.empty()) continue;
    if (!message.empty()) message += "\n";
    message += fmt::format(
        "target '{}' has no_fallback, but {} node(s) its patterns matched stay on the host:",
        target, lines.size());
    for (const std::string& line : lines) message += "\n" + line;
  }
  if (message.empty()) return Status::success();
  return Error(message);
}

}  // namespace uma
