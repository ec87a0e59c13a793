// Compiled code refuses what the reference interpreter refuses: an index out of range of a
// gather or a scatter, an integer division by zero, zero to a negative power. The executor
// reports the first failed check with the node, the op and the value, in the interpreter's
// words; inputs in range run as before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "c_test_util.h"
#include "tensor_util.h"
#include "uma/graph/parser.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;

struct Outcome {
  std::string interpreter;  // the interpreter's error, or "ok"
  std::string compiled;     // the executor's, or "ok" when it matches the interpreter
};

// Runs @main of `text` on `inputs` with the interpreter and compiled for the host.
Outcome run_both(const std::string& text, const std::vector<TensorPtr>& inputs, int threads = 1) {
  Context context;
  auto module = parse_module(context, text, "test");
  EXPECT_TRUE(module.ok()) << module.error().message();
  if (!module.ok()) return {};
  Outcome outcome;
  auto reference = interpret(**module, inputs);
  outcome.interpreter = reference.ok() ? "ok" : reference.error().message();
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  auto built = build::build(**module, {fmt::format("c --threads={}", threads)}, options);
  EXPECT_TRUE(built.ok()) << built.error().message();
  if (!built.ok()) return outcome;
  runtime::Executor executor(built->program);
  auto outputs = executor.run(inputs);
  if (!outputs.ok()) {
    outcome.compiled = outputs.error().message();
    return outcome;
  }
  outcome.compiled = "ok";
  if (!reference.ok()) return outcome;
  for (std::size_t i = 0; i < outputs->size(); ++i)
    EXPECT_TRUE(compare_tensors(*(*outputs)[i], *(*reference)[i], 0, 0).ok()) << "output " << i;
  return outcome;
}

TensorPtr i64(Shape shape, const std::vector<double>& values) {
  return make_tensor(DType::i64, std::move(shape), values);
}

TensorPtr i32(Shape shape, const std::vector<double>& values) {
  return make_tensor(DType::i32, std::move(shape), values);
}

// take's indices are a parameter: checked once each, in a block before the gather's loops.
const char* const kTake = R"(
func @main(%d: tensor<4x2xf32>, %i: tensor<3xi64>) -> (tensor<3x2xf32>) {
  %g = take(%d, %i) {axis = 0} : tensor<3x2xf32>
  %r = nn.relu(%g) : tensor<3x2xf32>
  return %r
}
)";

// The function fuse-ops makes of the take and the relu, and the take's place in it.
const char* const kTakeFunction =
    "the compiled function of @fused_take_nn_relu_0: node #0 (take) in function "
    "@fused_take_nn_relu_0: ";

TEST(RunChecksTest, TakeIndexOutOfRange) {
  TensorPtr data = f32({4, 2}, {1, -2, 3, 4, 5, 6, 7, 8});
  Outcome outcome = run_both(kTake, {data, i64({3}, {0, 7, 1})});
  EXPECT_EQ(outcome.interpreter,
            "node #0 (take) in function @main: index 7 (element 1 of indices) is out of range "
            "for axis 0 of size 4");
  EXPECT_EQ(outcome.compiled, std::string(kTakeFunction) +
                                  "index 7 (element 1 of indices) is out of range for axis 0 "
                                  "of size 4");
  // From the end, -5 is out of range too.
  outcome = run_both(kTake, {data, i64({3}, {0, 1, -5})});
  EXPECT_EQ(outcome.compiled, std::string(kTakeFunction) +
                                  "index -5 (element 2 of indices) is out of range for axis 0 "
                                  "of size 4");
}

TEST(RunChecksTest, TakeInRangeMatchesTheInterpreter) {
  TensorPtr data = f32({4, 2}, {1, -2, 3, 4, 5, 6, 7, 8});
  Outcome outcome = run_both(kTake, {data, i64({3}, {3, -4, -1})});
  EXPECT_EQ(outcome.interpreter, "ok");
  EXPECT_EQ(outcome.compiled, "ok");
}

// With threads the check block is parallel too; the first failure found is reported.
TEST(RunChecksTest, TakeIndexOutOfRangeWithThreads) {
  TensorPtr data = f32({4, 2}, {1, -2, 3, 4, 5, 6, 7, 8});
  Outcome outcome = run_both(kTake, {data, i64({3}, {0, 1, 4})}, 2);
  EXPECT_EQ(outcome.compiled, std::string(kTakeFunction) +
                                  "index 4 (element 2 of indices) is out of range for axis 0 "
                                  "of size 4");
}

// The executor clears the record before each run: a good run after a failed one succeeds.
TEST(RunChecksTest, ExecutorClearsTheRecordBetweenRuns) {
  Context context;
  auto module = parse_module(context, kTake, "test");
  ASSERT_TRUE(module.ok()) << module.error().message();
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  auto built = build::build(**module, {"c"}, options);
  ASSERT_TRUE(built.ok()) << built.error().message();
  runtime::Executor executor(built->program);
  TensorPtr data = f32({4, 2}, {1, -2, 3, 4, 5, 6, 7, 8});
  EXPECT_FALSE(executor.run({data, i64({3}, {9, 0, 0})}).ok());
  auto outputs = executor.run({data, i64({3}, {0, 1, 2})});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ((*outputs)[0]->get(1), 0.0);
}

TEST(RunChecksTest, GatherElementsIndexOutOfRange) {
  Outcome outcome = run_both(R"(
func @main(%d: tensor<2x3xf32>, %i: tensor<2x2xi32>) -> (tensor<2x2xf32>) {
  %g = gather_elements(%d, %i) {axis = 1} : tensor<2x2xf32>
  return %g
}
)",
                             {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({2, 2}, {0, 2, -4, 1})});
  EXPECT_EQ(outcome.interpreter,
            "node #0 (gather_elements) in function @main: index -4 (element 2 of indices) is out "
            "of range for axis 1 of size 3");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_gather_elements_0: node #0 (gather_elements) in "
            "function @fused_gather_elements_0: index -4 (element 2 of indices) is out of range "
            "for axis 1 of size 3");
}

TEST(RunChecksTest, GatherNdIndexOutOfRange) {
  Outcome outcome = run_both(R"(
func @main(%d: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> (tensor<2xf32>) {
  %g = gather_nd(%d, %i) : tensor<2xf32>
  return %g
}
)",
                             {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({2, 2}, {1, 2, 0, 3})});
  EXPECT_EQ(outcome.interpreter,
            "node #0 (gather_nd) in function @main: index 3 (element 3 of indices) is out of "
            "range for axis 1 of size 3");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_gather_nd_0: node #0 (gather_nd) in function "
            "@fused_gather_nd_0: index 3 (element 3 of indices) is out of range for axis 1 of "
            "size 3");
}

TEST(RunChecksTest, ScatterElementsIndexOutOfRange) {
  Outcome outcome = run_both(R"(
func @main(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> (tensor<4xf32>) {
  %s = scatter_elements(%d, %i, %u) {axis = 0} : tensor<4xf32>
  return %s
}
)",
                             {f32({4}, {1, 2, 3, 4}), i64({2}, {1, 6}), f32({2}, {9, 9})});
  EXPECT_EQ(outcome.interpreter,
            "node #0 (scatter_elements) in function @main: index 6 (element 1 of indices) is out "
            "of range for axis 0 of size 4");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_scatter_elements_0: node #0 (scatter_elements) in "
            "function @fused_scatter_elements_0: index 6 (element 1 of indices) is out of range "
            "for axis 0 of size 4");
}

TEST(RunChecksTest, ScatterNdIndexOutOfRange) {
  Outcome outcome = run_both(
      R"(
func @main(%d: tensor<4x2xf32>, %i: tensor<2x1xi64>, %u: tensor<2x2xf32>) -> (tensor<4x2xf32>) {
  %s = scatter_nd(%d, %i, %u) : tensor<4x2xf32>
  return %s
}
)",
      {f32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), i64({2, 1}, {-5, 0}), f32({2, 2}, {9, 9, 9, 9})});
  EXPECT_EQ(outcome.interpreter,
            "node #0 (scatter_nd) in function @main: index -5 (element 0 of indices) is out of "
            "range for axis 0 of size 4");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_scatter_nd_0: node #0 (scatter_nd) in function "
            "@fused_scatter_nd_0: index -5 (element 0 of indices) is out of range for axis 0 of "
            "size 4");
}

const char* const kDivide = R"(
func @main(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> (tensor<2x3xi32>) {
  %q = divide(%a, %b) : tensor<2x3xi32>
  %m = trunc_mod(%a, %b) : tensor<2x3xi32>
  %s = add(%q, %m) : tensor<2x3xi32>
  return %s
}
)";

TEST(RunChecksTest, IntegerDivisionByZero) {
  TensorPtr a = i32({2, 3}, {7, -7, 9, 1, 2, 3});
  Outcome outcome = run_both(kDivide, {a, i32({3}, {2, 0, 5})});
  EXPECT_EQ(outcome.interpreter, "node #0 (divide) in function @main: integer division by zero");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_divide_trunc_mod_add_0: node #0 (divide) in function "
            "@fused_divide_trunc_mod_add_0: integer division by zero");
  outcome = run_both(kDivide, {a, i32({3}, {2, -3, 5})});
  EXPECT_EQ(outcome.compiled, "ok");
}

TEST(RunChecksTest, FloorModByZero) {
  Outcome outcome = run_both(R"(
func @main(%a: tensor<3xi64>, %b: tensor<3xi64>) -> (tensor<3xi64>) {
  %m = floor_mod(%a, %b) : tensor<3xi64>
  return %m
}
)",
                             {i64({3}, {1, 2, 3}), i64({3}, {1, 1, 0})});
  EXPECT_EQ(outcome.interpreter, "node #0 (floor_mod) in function @main: integer division by zero");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_floor_mod_0: node #0 (floor_mod) in function "
            "@fused_floor_mod_0: integer division by zero");
}

TEST(RunChecksTest, ZeroToANegativePower) {
  Outcome outcome = run_both(R"(
func @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi32>) {
  %p = power(%a, %b) : tensor<3xi32>
  return %p
}
)",
                             {i32({3}, {2, 0, 0}), i32({3}, {-1, 2, -3})});
  EXPECT_EQ(outcome.interpreter,
            "node #0 (power) in function @main: integer zero raised to the negative power -3");
  EXPECT_EQ(outcome.compiled,
            "the compiled function of @fused_power_0: node #0 (power) in function @fused_power_0: "
            "integer zero raised to the negative power -3");
}

// A constant divisor that is not zero needs no check: the function has no error record.
TEST(RunChecksTest, ConstantDivisorIsNotChecked) {
  Context context;
  auto module = parse_module(context, R"(
func @main(%a: tensor<4xi32>) -> (tensor<4xi32>) {
  %b = constant {value = dense<[3]> : tensor<1xi32>} : tensor<1xi32>
  %q = divide(%a, %b) : tensor<4xi32>
  return %q
}
)",
                             "test");
  ASSERT_TRUE(module.ok()) << module.error().message();
  build::BuildOptions options;
  options.compile = false;
  auto built = build::build(**module, {"c"}, options);
  ASSERT_TRUE(built.ok()) << built.error().message();
  for (const runtime::HostCall& call : built->program->calls) EXPECT_TRUE(call.checks.empty());
}

}  // namespace
}  // namespace uma
