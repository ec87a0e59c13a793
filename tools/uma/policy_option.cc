// --partition and --no-fallback (see policy_option.h).
#include "policy_option.h"

namespace uma::tool {

void add_policy_options(CLI::App& command, PolicyOptions& options) {
  command
      .add_option_function<std::string>(
          "--partition",
          [&options](const std::string& name) {
            options.partition = parse_partition_policy(name).value();
          },
          "What of the matches the targets' predicates accept is offloaded: greedy (all, the "
          "default) or cost (those that cost no more offloaded, data moved included, than on "
          "the host: the target's estimate against the host's roofline)")
      ->check([](const std::string& name) {
        Expected<PartitionPolicy> policy = parse_partition_policy(name);
        return policy ? std::string() : policy.error().message();
      });
  command.add_flag("--no-fallback", options.no_fallback,
                   "Fail when a node an accelerator target's patterns matched stays on the host, "
                   "naming each and why (every target's no_fallback attribute)");
}

}  // namespace uma::tool
