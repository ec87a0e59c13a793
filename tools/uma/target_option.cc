// --target and --targets (see target_option.h).
#include "target_option.h"

namespace uma::tool {

void add_target_option(CLI::App& command, std::vector<std::string>& targets,
                       const std::string& description, bool required) {
  // A group of two options, at most one given: each fills the whole list, so mixing them
  // would lose one; and the group is what --help lists as the targets.
  CLI::Option_group* group = command.add_option_group(
      "Targets", "--target repeated or --targets=a,b: the same list, in priority order");
  group->add_option("--target", targets, description + "; repeat it for more targets")
      ->allow_extra_args(false);
  group->add_option("--targets", targets, "The targets, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false);
  group->require_option(required ? 1 : 0, 1);
}

}  // namespace uma::tool
