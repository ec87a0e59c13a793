// The uma_template backend: add → relu of two f32 tensors of one shape, offloaded to the C
// kernel kernels/uma_template_add_relu.c. The pattern says what the backend takes, the
// predicate what of that it refuses and why (the partition report shows it), the lowering how
// a match becomes one call of the kernel. The host runs everything else.
#include <fmt/format.h>

#include <memory>

#include "uma/graph/ir.h"
#include "uma/lower/composite_lowering.h"
#include "uma/pattern/pattern.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

// The kernel's source, embedded by CMakeLists.txt.
extern const char uma_template_kernel_source[];

namespace uma_template_backend {
namespace {

// nn.relu(add(a, b)).
uma::PatternPtr add_relu_pattern() {
  return uma::is_op("nn.relu", {uma::is_op("add", {uma::wildcard(), uma::wildcard()})});
}

// What the kernel cannot do: a dtype other than f32, and broadcasting (it reads both operands
// element by element).
uma::Status check_add_relu(const uma::Match& match, const uma::Target&) {
  for (const uma::Node* node : match.nodes) {
    if (!node->is_op("add")) continue;
    const uma::TensorType& out = node->result()->tensor_type();
    if (out.dtype != uma::DType::f32)
      return uma::make_error("uma_template.add_relu: {} is not supported; the kernel adds f32",
                             uma::dtype_name(out.dtype));
    for (const uma::Value* operand : node->operands())
      if (!(operand->tensor_type() == out))
        return uma::make_error("uma_template.add_relu: the add broadcasts {} to {}",
                               uma::to_string(operand->type()),
                               uma::to_string(node->result()->type()));
  }
  return uma::Status::success();
}

// uma_template.add_relu as uma_template_add_relu(&a, &b, &out, n).
uma::Expected<uma::lower::ExternCall> lower_add_relu(const uma::lower::CompositeOperands& operands,
                                                     const uma::Target&) {
  const uma::Node* add = operands.find("add");
  if (add == nullptr) return uma::make_error("uma_template.add_relu: the composite has no add");
  UMA_TRY_ASSIGN(uma::tir::Expr a, operands.address(*add->operand(0)));
  UMA_TRY_ASSIGN(uma::tir::Expr b, operands.address(*add->operand(1)));
  UMA_TRY_ASSIGN(uma::tir::Expr out, operands.address(*operands.composite().outputs()[0]));
  std::int64_t n = add->result()->tensor_type().num_elements();
  return uma::lower::ExternCall{.name = "uma_template_add_relu", .args = {a, b, out, n}};
}

class UmaTemplateBackend final : public uma::Backend {
 public:
  UmaTemplateBackend() : Backend("uma_template") {
    add_pattern("add_relu", add_relu_pattern(), check_add_relu);
    add_composite_lowering("add_relu", lower_add_relu);
    // The kernel reads every operand from memory: no constant is written into the code.
    set_max_immediate_elements(0);
    add_c_source("uma_template_add_relu", uma_template_kernel_source);
    // The kernel returns nonzero for arguments it refuses: the executor reports it.
    set_extern_status(true);
  }
};

uma::Status register_uma_template(uma::Context& context) {
  return uma::register_backend(context, std::make_unique<UmaTemplateBackend>());
}

}  // namespace
}  // namespace uma_template_backend

UMA_PLUGIN("uma_template", uma_template_backend::register_uma_template)
