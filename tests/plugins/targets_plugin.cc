// The tests' partition targets test_conv, test_dense and test_elem as a plugin, for the tool
// (`uma partition --plugin libuma_test_targets_plugin.so --targets=test_conv`, lit tests and
// the partition-models test).
#include "test_targets.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

namespace {

uma::Status register_targets(uma::Context& context) {
  uma::register_test_targets(context.partition_targets());
  return uma::Status::success();
}

}  // namespace

UMA_PLUGIN("test_targets", register_targets)
