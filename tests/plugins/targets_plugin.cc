// The tests' partition targets test_conv, test_dense, test_elem and test_int8, and the
// accelerator test_npu, as a plugin for the tool (`uma partition --plugin
// libuma_test_targets_plugin.so --targets=test_conv`, `uma run m.onnx --plugin ... --target
// "test_npu --imem_kb=4"`, lit tests and the partition-models test).
#include "test_npu.h"
#include "test_targets.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

namespace {

uma::Status register_targets(uma::Context& context) {
  uma::register_test_targets(context.partition_targets());
  return uma::register_test_npu(context);
}

}  // namespace

UMA_PLUGIN("test_targets", register_targets)
