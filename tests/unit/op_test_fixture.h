// A GoogleTest fixture for op unit tests: one op's inference (its result or its exact error
// message) and its reference kernel, with a fresh context holding every registered op.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/uma/context.h"

namespace uma::test {

inline Type tensor_type(Shape shape, DType dtype = DType::f32) {
  return TensorType{dtype, std::move(shape)};
}

class OpTest : public ::testing::Test {
 protected:
  const OpDef& op(std::string_view name) {
    const OpDef* def = ctx.ops().find(name);
    UMA_CHECK(def != nullptr, "no op {}", name);
    return *def;
  }

  std::vector<Type> infer(std::string_view name, const std::vector<Type>& operands,
                          AttrMap attrs = {}) {
    auto types = infer_node_types(op(name), operands, attrs);
    EXPECT_TRUE(types.ok()) << types.error().message();
    return types.ok() ? *types : std::vector<Type>{};
  }

  // The single result type.
  Type infer1(std::string_view name, const std::vector<Type>& operands, AttrMap attrs = {}) {
    std::vector<Type> types = infer(name, operands, std::move(attrs));
    return types.size() == 1 ? types[0] : Type(TupleType{types});
  }

  // The inference error, without a node's location.
  std::string error(std::string_view name, const std::vector<Type>& operands, AttrMap attrs = {}) {
    auto types = infer_node_types(op(name), operands, attrs);
    return types.ok() ? "(no error)" : types.error().message();
  }

  // One op on its own: inference, then the kernel.
  Expected<std::vector<TensorPtr>> try_run(std::string_view name,
                                           const std::vector<TensorPtr>& inputs,
                                           AttrMap attrs = {}) {
    std::vector<Type> operands;
    for (const TensorPtr& t : inputs) operands.push_back(t->type());
    UMA_TRY_ASSIGN(std::vector<Type> types, infer_node_types(op(name), operands, attrs));
    return op(name).kernel(inputs, attrs, types);
  }

  // The kernel's error (inference must succeed).
  std::string run_error(std::string_view name, const std::vector<TensorPtr>& inputs,
                        AttrMap attrs = {}) {
    auto results = try_run(name, inputs, std::move(attrs));
    return results.ok() ? "(no error)" : results.error().message();
  }

  std::vector<TensorPtr> run(std::string_view name, const std::vector<TensorPtr>& inputs,
                             AttrMap attrs = {}) {
    auto results = try_run(name, inputs, std::move(attrs));
    EXPECT_TRUE(results.ok()) << results.error().message();
    return results.ok() ? *results : std::vector<TensorPtr>{};
  }

  TensorPtr run1(std::string_view name, const std::vector<TensorPtr>& inputs, AttrMap attrs = {}) {
    std::vector<TensorPtr> results = run(name, inputs, std::move(attrs));
    if (results.size() == 1) return results[0];
    ADD_FAILURE() << name << " gave " << results.size() << " results";
    return std::make_shared<Tensor>(TensorType{DType::f32, {0}});
  }

  Context ctx;
};

}  // namespace uma::test
