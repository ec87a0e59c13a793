// Helpers of the loop-IR pass tests: running one pass with the verifier after it, and
// checking that a pass preserves results by compiling the function before and after it with
// the C driver and running both on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "c_test_util.h"
#include "uma/tir/passes.h"
#include "uma/tir/printer.h"
#include "uma/tir/verifier.h"

namespace uma::tir::testing_pass {

inline Var var(const char* name) { return VarNode::make(name); }

inline Stmt loop(const Var& v, Expr extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return ForNode::make(v, Expr(0), std::move(extent), kind, std::move(body));
}

inline PrimFunc make_func(std::string name, std::vector<Buffer> params, std::size_t num_inputs,
                          Stmt body) {
  PrimFunc func;
  func.name = std::move(name);
  func.params = std::move(params);
  func.num_inputs = num_inputs;
  func.body = std::move(body);
  return func;
}

// `pass` applied to `func`, which must verify before and after.
inline PrimFunc apply(const FuncPass& pass, const PrimFunc& func) {
  Status before = verify(func);
  EXPECT_TRUE(before.ok()) << before.error().message();
  PipelineOptions options;
  options.verify_each = true;
  Expected<PrimFunc> out = run_passes(func, {pass}, options);
  EXPECT_TRUE(out.ok()) << out.error().message();
  return out.ok() ? *out : func;
}

// The number of elements of a parameter (constant shape, dense or strided).
inline std::size_t elements(const Buffer& buffer) {
  std::int64_t last = 0;
  for (std::size_t k = 0; k < buffer->shape.size(); ++k) {
    auto extent = as_const_int(buffer->shape[k]);
    EXPECT_TRUE(extent.has_value()) << buffer->name << " has a symbolic shape";
    if (!extent || *extent == 0) return 0;
    std::int64_t stride = 1;
    if (!buffer->strides.empty()) {
      stride = as_const_int(buffer->strides[k]).value_or(0);
    } else {
      for (std::size_t m = k + 1; m < buffer->shape.size(); ++m)
        stride *= as_const_int(buffer->shape[m]).value_or(0);
    }
    last += (*extent - 1) * stride;
  }
  return static_cast<std::size_t>(last + 1);
}

// Runs `before` and `after` (the same function through some passes) on the same random
// inputs and expects the same bytes in every parameter afterwards. Parameters must have
// constant shapes; dtypes f32, i32 and i64 get random values, others random bytes. Both
// get their reductions' inits decomposed first, which code generation needs.
inline void expect_same_results(const PrimFunc& before, PrimFunc after, unsigned seed = 1) {
  ASSERT_EQ(before.params.size(), after.params.size());
  auto decomposed_before = decompose_reductions_pass().run(before);
  auto decomposed_after = decompose_reductions_pass().run(after);
  ASSERT_TRUE(decomposed_before.ok()) << decomposed_before.error().message();
  ASSERT_TRUE(decomposed_after.ok()) << decomposed_after.error().message();
  after = std::move(*decomposed_after);
  after.name += "_after";
  auto built = testing_c::build({*decomposed_before, after});
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::mt19937 rng(seed);
  std::vector<std::vector<std::uint8_t>> inputs;
  for (const Buffer& param : before.params) {
    std::size_t count = elements(param);
    std::vector<std::uint8_t> bytes(count * dtype_size(param->dtype));
    for (std::size_t k = 0; k < count; ++k) {
      std::uint8_t* at = bytes.data() + k * dtype_size(param->dtype);
      if (param->dtype == DType::f32) {
        float v = std::uniform_real_distribution<float>(-4, 4)(rng);
        std::memcpy(at, &v, sizeof v);
      } else if (param->dtype == DType::i32) {
        auto v = std::uniform_int_distribution<std::int32_t>(-100, 100)(rng);
        std::memcpy(at, &v, sizeof v);
      } else if (param->dtype == DType::i64) {
        auto v = std::uniform_int_distribution<std::int64_t>(-100, 100)(rng);
        std::memcpy(at, &v, sizeof v);
      } else {
        for (std::size_t b = 0; b < dtype_size(param->dtype); ++b)
          at[b] = static_cast<std::uint8_t>(rng());
      }
    }
    inputs.push_back(std::move(bytes));
  }
  std::vector<std::vector<std::uint8_t>> results[2];
  for (int run = 0; run < 2; ++run) {
    results[run] = inputs;
    std::vector<void*> args;
    for (auto& bytes : results[run]) args.push_back(bytes.data());
    ASSERT_EQ(testing_c::call(*built, run, args), 0) << (run == 0 ? "before" : "after");
  }
  for (std::size_t p = 0; p < before.params.size(); ++p)
    EXPECT_TRUE(results[0][p] == results[1][p])
        << "parameter %" << before.params[p]->name << " differs after the passes";
  // The test means something only if the function wrote its outputs.
  for (std::size_t p = before.num_inputs; p < before.params.size(); ++p)
    EXPECT_FALSE(results[0][p] == inputs[p]) << "%" << before.params[p]->name << " was not written";
}

}  // namespace uma::tir::testing_pass
