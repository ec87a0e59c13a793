// A plugin whose registration fails: it declares a backend named like the host's kind.
#include "uma/uma/backend.h"
#include "uma/uma/plugin.h"

namespace {
class Host : public uma::Backend {
 public:
  Host() : Backend("c") {}
};
uma::Status register_host(uma::Context& context) {
  return uma::register_backend(context, std::make_unique<Host>());
}
}  // namespace

UMA_PLUGIN("failing", register_host)
