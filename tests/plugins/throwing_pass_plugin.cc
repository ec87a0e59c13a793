// A plugin whose graph pass throws while a model builds: the exception reaches the tool's
// main, which reports it naming the command, with exit status 1 (tests/lit/tool/exception.uma).
#include <stdexcept>

#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

namespace {

class Thrower : public uma::Backend {
 public:
  Thrower() : Backend("thrower") {
    add_graph_pass(uma::GraphPhase::kPrePartitioning, "thrower-config",
                   [](uma::Module&, const uma::Target&) -> uma::Expected<bool> {
                     throw std::runtime_error("the accelerator's driver is not installed");
                   });
  }
};

uma::Status register_thrower(uma::Context& context) {
  return uma::register_backend(context, std::make_unique<Thrower>());
}

}  // namespace

UMA_PLUGIN("thrower", register_thrower)
