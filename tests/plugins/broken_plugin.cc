// A deliberately broken backend, for the conformance kit's test (tests/lit/tool/test-backend.test):
// the relu plugin's backend, named "broken", whose kernel is off by one in one case: on more
// than 64 elements, the last one is its input plus one.
#include "uma/tir/schedule.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

namespace {

constexpr const char* kKernel = R"(#include <stdint.h>
int32_t broken_relu(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : 0;
  if (n > 64) out[n - 1] = in[n - 1] + 1;
  return 0;
}
)";

class Broken : public uma::Backend {
 public:
  Broken() : Backend("broken") {
    add_bool_attr("offload", true, "hand the relu to the kernel");
    add_pattern("relu", uma::is_op("nn.relu", {uma::wildcard()}));
    add_tir_pass(uma::TirPhase::k0, "broken-offload",
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
                       *block, "broken_relu",
                       std::vector<uma::tir::Expr>{uma::tir::IntImmNode::make(
                           uma::tir::DataType::scalar(uma::DType::i64), n)}));
                   return schedule.func();
                 });
    add_c_source("broken_relu", kKernel);
  }
};

uma::Status register_broken(uma::Context& context) {
  return uma::register_backend(context, std::make_unique<Broken>());
}

}  // namespace

UMA_PLUGIN("broken", register_broken)
