// A plugin whose registration throws: the loader reports it as an error naming the plugin.
#include <stdexcept>

#include "uma/uma/plugin.h"

namespace {
uma::Status register_nothing(uma::Context&) {
  throw std::runtime_error("the driver is not installed");
}
}  // namespace

UMA_PLUGIN("throwing", register_nothing)
