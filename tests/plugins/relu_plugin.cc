// A backend built out of tree: a shared library that does not link the compiler, loaded by
// the plugin tests (tests/unit/uma_plugin_test.cc). It offloads each nn.relu to a C kernel.
#include "uma/tir/schedule.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

namespace {

constexpr const char* kKernel = R"(#include <stdint.h>
int32_t plugged_relu(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : 0;
  return 0;
}
)";

class Plugged : public uma::Backend {
 public:
  Plugged() : Backend("plugged") {
    add_bool_attr("offload", true, "hand the relu to the kernel");
    add_pattern("relu", uma::is_op("nn.relu", {uma::wildcard()}));
    add_tir_pass(uma::TirPhase::k0, "plugged-offload",
                 [](const uma::tir::PrimFunc& func,
                    const uma::Target& target) -> uma::Expected<uma::tir::PrimFunc> {
                   UMA_TRY_ASSIGN(bool offload, target.get_bool("offload"));
                   uma::tir::Schedule schedule(func);
                   auto block = schedule.get_block("relu");
                   if (!offload || !block) return func;
                   std::int64_t n = 1;
                   for (const auto& extent : func.params[0]->shape)
                     n *= uma::tir::as_const_int(extent).value_or(1);
                   UMA_TRY(schedule.replace_with_extern(
                       *block, "plugged_relu",
                       std::vector<uma::tir::Expr>{uma::tir::IntImmNode::make(
                           uma::tir::DataType::scalar(uma::DType::i64), n)}));
                   return schedule.func();
                 });
    add_c_source("plugged_relu", kKernel);
  }
};

uma::Status register_plugged(uma::Context& context) {
  return uma::register_backend(context, std::make_unique<Plugged>());
}

}  // namespace

UMA_PLUGIN("plugged", register_plugged)
