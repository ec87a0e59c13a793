// fuse-layer-norm: recognises the decomposed layer normalisation that exporters emit at
// opsets without LayerNormalization and replaces it by one `nn.layer_norm` node.
//
// Matches, over the trailing axes [axis, rank) of x (operand orders of the final multiply
// and add may be swapped):
//   d = subtract(x, mean(x, axes, keepdims=1))
//   n = divide(d, sqrt(add(mean(power(d, 2), axes, keepdims=1), epsilon)))
//   y = add(multiply(n, gamma), beta)        (the affine part is optional: n, or n * gamma)
// where epsilon is a scalar constant and gamma, beta are constants of the normalised shape.
// Interior values must have no other use (d is used twice, by power and divide).
// Guarantees: the new node computes the same function; the old nodes stay for dce.
#include <algorithm>
#include <string>

#include "match.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using match::single_use;
using match::sole_user;

// The first normalised axis when `mean` reduces exactly the trailing axes of its input
// with keepdims, else nullopt.
std::optional<std::int64_t> trailing_axis(const Node* mean) {
  if (mean->attrs().get_int("keepdims") != 1) return std::nullopt;
  std::size_t rank = mean->operand(0)->tensor_type().rank();
  std::vector<std::size_t> axes;
  for (std::int64_t axis : mean->attrs().get_ints("axes")) {
    auto normalized = normalize_axis(axis, rank);
    if (!normalized) return std::nullopt;
    axes.push_back(*normalized);
  }
  if (axes.empty()) return std::nullopt;
  std::sort(axes.begin(), axes.end());
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - axes.size() + i) return std::nullopt;
  return static_cast<std::int64_t>(axes.front());
}

struct LayerNormMatch {
  Value* x = nullptr;
  std::int64_t axis = 0;
  double epsilon = 0;
  Value* gamma = nullptr;
  Value* beta = nullptr;
  Node* root = nullptr;
};

// A constant of exactly the normalised shape, as nn.layer_norm takes gamma and beta.
bool is_affine_parameter(const Value* v, const Shape& normalized) {
  return match::constant(v) != nullptr && v->tensor_type().shape == normalized;
}

// Matches from the divide node n = d / sqrt(var + epsilon).
std::optional<LayerNormMatch> match_layer_norm(Node* divide) {
  if (!divide->is_op("divide")) return std::nullopt;
  Value* d = divide->operand(0);
  Node* subtract = match::producer(d, "subtract");
  Node* sqrt = match::producer(divide->operand(1), "sqrt");
  if (subtract == nullptr || sqrt == nullptr || d->uses().size() != 2 ||
      !single_use(divide->operand(1)))
    return std::nullopt;
  LayerNormMatch m;
  m.x = subtract->operand(0);
  Node* mean = match::producer(subtract->operand(1), "mean");
  if (mean == nullptr || mean->operand(0) != m.x || !single_use(subtract->operand(1)))
    return std::nullopt;
  auto axis = trailing_axis(mean);
  if (!axis) return std::nullopt;
  m.axis = *axis;

  Node* add_epsilon = match::producer(sqrt->operand(0), "add");
  if (add_epsilon == nullptr || !single_use(sqrt->operand(0))) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const Tensor* epsilon = match::constant(add_epsilon->operand(i));
    Node* variance = match::producer(add_epsilon->operand(1 - i), "mean");
    if (epsilon == nullptr || epsilon->num_elements() != 1 || variance == nullptr ||
        !single_use(add_epsilon->operand(1 - i)) || trailing_axis(variance) != axis)
      continue;
    Node* square = match::producer(variance->operand(0), "power");
    if (square == nullptr || square->operand(0) != d || !match::is_splat(square->operand(1), 2.0) ||
        !single_use(variance->operand(0)))
      continue;
    m.epsilon = epsilon->get(0);
    m.root = divide;
  }
  if (m.root == nullptr) return std::nullopt;

  // The optional affine part: n * gamma, then + beta.
  const Shape& shape = m.x->tensor_type().shape;
  Shape normalized(shape.begin() + m.axis, shape.end());
  Node* scale = sole_user(divide->result());
  Value* gamma = scale != nullptr && scale->is_op("multiply")
                     ? match::other_operand(scale, divide->result())
                     : nullptr;
  if (gamma == nullptr || !is_affine_parameter(gamma, normalized)) return m;
  m.gamma = gamma;
  m.root = scale;
  Node* shift = sole_user(scale->result());
  Value* beta = shift != nullptr && shift->is_op("add")
                    ? match::other_operand(shift, scale->result())
                    : nullptr;
  if (beta == nullptr || !is_affine_parameter(beta, normalized)) return m;
  m.beta = beta;
  m.root = shift;
  return m;
}

// Ones of the normalised shape, for a layer norm without a scale.
TensorPtr ones(DType dtype, Shape shape) {
  auto tensor = std::make_shared<Tensor>(TensorType{dtype, std::move(shape)});
  for (std::int64_t i = 0; i < tensor->num_elements(); ++i) tensor->set(i, 1.0);
  return tensor;
}

class FuseLayerNormPass final : public Pass {
 public:
  std::string_view name() const override { return "fuse-layer-norm"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) {
      Rewriter rewriter(*function);
      for (Node* node : function->node_list()) {
        auto m = match_layer_norm(node);
        if (!m || !is_float(m->x->tensor_type().dtype)) continue;
        rewriter.set_insertion_point(m->root);
        Value* gamma = m->gamma;
        if (gamma == nullptr) {
          const Shape& shape = m->x->tensor_type().shape;
          gamma = rewriter.constant(
              ones(m->x->tensor_type().dtype, Shape(shape.begin() + m->axis, shape.end())));
        }
        std::vector<Value*> operands{m->x, gamma};
        if (m->beta != nullptr) operands.push_back(m->beta);
        AttrMap attrs;
        // Counted from the end, as the normalised axes are the trailing ones.
        attrs.set("axis", m->axis - static_cast<std::int64_t>(m->x->tensor_type().rank()));
        // The exporter's epsilon is an f32 constant; keep the decimal it was written as
        // (1e-05, not 9.999999747378752e-06): widen through float's shortest form.
        attrs.set("epsilon", std::stod(fmt::format("{}", static_cast<float>(m->epsilon))));
        auto fused = rewriter.try_create("nn.layer_norm", operands, attrs, m->root->name());
        if (!fused) return fused.error().with_context(m->root->location());
        (*fused)->result()->set_name(m->root->result()->name());
        rewriter.replace_all_uses(m->root->result(), (*fused)->result());
      }
      changed |= rewriter.changed();
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_fuse_layer_norm_pass() {
  return std::make_unique<FuseLayerNormPass>();
}

}  // namespace uma
