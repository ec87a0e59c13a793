// fuse-gelu: recognises the erf form of GELU that exporters emit at opsets without a Gelu
// op and replaces it by one `nn.gelu` node.
//
// Matches, for the same value x (operand orders of add and multiply may be swapped, and
// x / sqrt(2) may be written x * (1 / sqrt(2))):
//   multiply(multiply(x, add(erf(x / sqrt(2)), 1)), 0.5)        (torch's export)
//   multiply(multiply(x, 0.5), add(erf(x / sqrt(2)), 1))
// Interior values must have no other use, so fusing never duplicates work. The constants
// must be splats: 1 and 0.5 exactly, sqrt(2) to within 1e-4 relative (exporters print it
// with few digits). Guarantees: the new node computes the same function; the old nodes
// stay for dce to remove.
#include <cmath>

#include "match.h"
#include "uma/graph/pass.h"
#include "uma/graph/rewriter.h"

namespace uma {
namespace {

using match::single_use;

constexpr double kSqrt2Tolerance = 1e-4;

// The x in x / sqrt(2) or x * (1 / sqrt(2)), or nullptr.
Value* scaled_input(const Value* v) {
  if (Node* div = match::producer(v, "divide"))
    return match::is_splat(div->operand(1), std::sqrt(2.0), kSqrt2Tolerance) ? div->operand(0)
                                                                             : nullptr;
  if (Node* mul = match::producer(v, "multiply")) {
    for (int i = 0; i < 2; ++i)
      if (match::is_splat(mul->operand(i), 1.0 / std::sqrt(2.0), kSqrt2Tolerance))
        return mul->operand(1 - i);
  }
  return nullptr;
}

// For `half = multiply(a, 0.5)` (either order), a; else nullptr.
Value* halved(const Node* half) {
  for (int i = 0; i < 2; ++i)
    if (match::is_splat(half->operand(i), 0.5)) return half->operand(1 - i);
  return nullptr;
}

// The value GELU is applied to when `root` is the last node of a GELU, else nullptr.
Value* match_gelu(const Node* root) {
  if (!root->is_op("multiply")) return nullptr;
  // Find the `add(erf(...), 1)` operand of the root or of the root's halved operand.
  for (int i = 0; i < 2; ++i) {
    Value* plus_one = root->operand(i);
    Value* other = root->operand(1 - i);
    Node* add = match::producer(plus_one, "add");
    if (add == nullptr || !single_use(plus_one)) continue;
    for (int j = 0; j < 2; ++j) {
      Node* erf = match::producer(add->operand(j), "erf");
      if (erf == nullptr || !match::is_splat(add->operand(1 - j), 1.0) ||
          !single_use(erf->result()))
        continue;
      Value* x = scaled_input(erf->operand(0));
      if (x == nullptr || !single_use(erf->operand(0))) continue;
      // multiply(multiply(x, 0.5), add(...)): `other` is x * 0.5.
      Node* half = match::producer(other, "multiply");
      if (half != nullptr && single_use(other) && halved(half) == x) return x;
    }
  }
  // multiply(multiply(x, add(...)), 0.5): the root halves a product of x and add(...).
  Value* product = halved(root);
  if (product == nullptr || !single_use(product)) return nullptr;
  Node* mul = match::producer(product, "multiply");
  if (mul == nullptr) return nullptr;
  for (int i = 0; i < 2; ++i) {
    Value* x = mul->operand(i);
    Node* add = match::producer(mul->operand(1 - i), "add");
    if (add == nullptr || !single_use(mul->operand(1 - i))) continue;
    for (int j = 0; j < 2; ++j) {
      Node* erf = match::producer(add->operand(j), "erf");
      if (erf != nullptr && match::is_splat(add->operand(1 - j), 1.0) &&
          single_use(erf->result()) && single_use(erf->operand(0)) &&
          scaled_input(erf->operand(0)) == x)
        return x;
    }
  }
  return nullptr;
}

class FuseGeluPass final : public Pass {
 public:
  std::string_view name() const override { return "fuse-gelu"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) {
      Rewriter rewriter(*function);
      for (Node* node : function->node_list()) {
        Value* x = match_gelu(node);
        if (x == nullptr || !is_float(x->tensor_type().dtype)) continue;
        rewriter.set_insertion_point(node);
        auto gelu = rewriter.try_create("nn.gelu", {x}, {}, node->name());
        if (!gelu) return gelu.error().with_context(node->location());
        (*gelu)->result()->set_name(node->result()->name());
        rewriter.replace_all_uses(node->result(), (*gelu)->result());
      }
      changed |= rewriter.changed();
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_fuse_gelu_pass() { return std::make_unique<FuseGeluPass>(); }

}  // namespace uma
