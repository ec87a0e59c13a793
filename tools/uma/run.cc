// `uma run`: run a model through the reference interpreter. (Filled in with the interpreter.)
#include "commands.h"

namespace uma::tool {

void add_run_command(CLI::App&, int&) {}

}  // namespace uma::tool
