// A plugin whose registration ends the process: the tool says so and stops with status 1.
#include <cstdlib>

#include "uma/uma/plugin.h"

namespace {
uma::Status register_and_exit(uma::Context&) { std::exit(0); }
}  // namespace

UMA_PLUGIN("exiting", register_and_exit)
