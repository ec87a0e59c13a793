// A backend of approximate results, for the declared tolerances (tests/lit/tool/tolerance.test):
// its relu kernel rounds each f32 result to bf16's 8 bits, which the default tolerance refuses
// and the one it declares accepts.
#include "uma/tir/schedule.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

namespace {

constexpr const char* kKernel = R"(#include <stdint.h>
#include <string.h>
int32_t approx_relu(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float x = in[i] > 0 ? in[i] : 0;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits = (bits + 0x8000u) & 0xffff0000u;
    memcpy(&out[i], &bits, sizeof bits);
  }
  return 0;
}
)";

class Approx : public uma::Backend {
 public:
  Approx() : Backend("approx") {
    add_pattern("relu", uma::is_op("nn.relu", {uma::wildcard()}),
                [](const uma::Match& match, const uma::Target&) -> uma::Status {
                  uma::DType dtype = match.nodes.back()->result()->tensor_type().dtype;
                  if (dtype != uma::DType::f32)
                    return uma::make_error("the kernel takes f32, not {}", uma::dtype_name(dtype));
                  return uma::Status::success();
                });
    add_tir_pass(uma::TirPhase::k0, "approx-offload",
                 [](const uma::tir::PrimFunc& func,
                    const uma::Target&) -> uma::Expected<uma::tir::PrimFunc> {
                   uma::tir::Schedule schedule(func);
                   auto block = schedule.get_block("relu");
                   if (!block) return func;
                   std::int64_t n = 1;
                   for (const auto& extent : func.params[0]->shape)
                     n *= uma::tir::as_const_int(extent).value_or(1);
                   UMA_TRY(schedule.replace_with_extern(
                       *block, "approx_relu",
                       std::vector<uma::tir::Expr>{uma::tir::IntImmNode::make(
                           uma::tir::DataType::scalar(uma::DType::i64), n)}));
                   return schedule.func();
                 });
    add_c_source("approx_relu", kKernel);
    // bf16's rounding: half a unit in the last of 8 bits.
    set_tolerance(uma::DType::f32, {.rtol = 4e-3, .atol = 1e-5});
  }
};

uma::Status register_approx(uma::Context& context) {
  return uma::register_backend(context, std::make_unique<Approx>());
}

}  // namespace

UMA_PLUGIN("approx", register_approx)
