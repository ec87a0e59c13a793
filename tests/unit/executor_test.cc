// The executor on a hand-made program: calls of a generated function whose arguments live in
// the inputs, the outputs, the weights and the arena, and outputs copied after the calls.
#include "uma/runtime/executor.h"

#include <gtest/gtest.h>

#include "c_test_util.h"
#include "tensor_util.h"

namespace uma::runtime {
namespace {

using namespace tir;
using Kind = ArgLocation::Kind;

// out[i] = a[i] * b[i] + 1 over 4 floats.
PrimFunc multiply_add_one() {
  Buffer a = make_buffer("a", DType::f32, {Expr(4)});
  Buffer b = make_buffer("b", DType::f32, {Expr(4)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  Var i = VarNode::make("i");
  Stmt store = StoreNode::make(out, LoadNode::make(a, {i}) * LoadNode::make(b, {i}) + 1.0, {i});
  PrimFunc func;
  func.name = "multiply_add_one";
  func.params = {a, b, out};
  func.num_inputs = 2;
  func.body = BlockNode::make("multiply", {a, b}, {out},
                              ForNode::make(i, Expr(0), Expr(4), ForKind::kSerial, store));
  return func;
}

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto built = testing_c::build({multiply_add_one()});
    ASSERT_TRUE(built.ok()) << built.error().message();
    auto function = built->library.function(built->source.functions[0].symbol);
    ASSERT_TRUE(function.ok()) << function.error().message();
    PackedFunction f = *function;
    auto library = std::make_shared<const Library>(std::move(built->library));

    auto weights = Weights::hold({test::f32({4}, {1, 2, 3, 4}), test::f32({2}, {7, 8})});
    ASSERT_TRUE(weights.ok()) << weights.error().message();

    // t = x * w + 1 (arena), y = t * t + 1 (output 0); output 1 is the second weight and
    // output 2 a copy of output 0.
    auto program = std::make_shared<HostProgram>();
    program->inputs = {TensorType{DType::f32, {4}}};
    program->outputs = {TensorType{DType::f32, {4}}, TensorType{DType::f32, {2}},
                        TensorType{DType::f32, {4}}};
    program->calls = {
        {"first", f, {{Kind::kInput, 0}, {Kind::kWeight, 0}, {Kind::kArena, 64}}},
        {"second", f, {{Kind::kArena, 64}, {Kind::kArena, 64}, {Kind::kOutput, 0}}},
    };
    program->copies = {{1, {Kind::kWeight, 1}}, {2, {Kind::kOutput, 0}}};
    program->weights = std::move(*weights);
    program->arena_size = 128;
    program->library = library;
    executor = std::make_unique<Executor>(program);
  }

  std::unique_ptr<Executor> executor;
};

TEST_F(ExecutorTest, RunsCallsOnInputsWeightsAndArena) {
  auto outputs = executor->run({test::f32({4}, {1, -1, 0.5, 2})});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  // t = {2, -1, 2.5, 9}; y = t * t + 1
  EXPECT_EQ(test::values_of(*(*outputs)[0]), (std::vector<double>{5, 2, 7.25, 82}));
  EXPECT_EQ(test::values_of(*(*outputs)[1]), (std::vector<double>{7, 8}));
  EXPECT_EQ(test::values_of(*(*outputs)[2]), (std::vector<double>{5, 2, 7.25, 82}));
}

TEST_F(ExecutorTest, RunsAgainOnTheCallersBuffers) {
  std::vector<float> x = {1, 1, 1, 1}, y(4), w(2), copy(4);
  std::vector<const void*> inputs = {x.data()};
  std::vector<void*> outputs = {y.data(), w.data(), copy.data()};
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(executor->run(inputs, outputs).ok());
    EXPECT_EQ(y, (std::vector<float>{5, 10, 17, 26}));
    EXPECT_EQ(copy, y);
    x = {0, 0, 0, 0};
    inputs = {x.data()};
    ASSERT_TRUE(executor->run(inputs, outputs).ok());
    EXPECT_EQ(y, (std::vector<float>{2, 2, 2, 2}));
    x = {1, 1, 1, 1};
  }
}

TEST_F(ExecutorTest, ProfilingCountsEachCallOfTheRunsAfterItIsOn) {
  auto input = test::f32({4}, {1, -1, 0.5, 2});
  ASSERT_TRUE(executor->run({input}).ok());
  EXPECT_TRUE(executor->call_timings().empty());  // off by default
  executor->set_profiling(true);
  for (int run = 0; run < 3; ++run) ASSERT_TRUE(executor->run({input}).ok());
  std::vector<CallTiming> timings = executor->call_timings();
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_EQ(timings[0].name, "first");
  EXPECT_EQ(timings[1].name, "second");
  for (const CallTiming& timing : timings) {
    EXPECT_EQ(timing.count, 3);
    EXPECT_GT(timing.total.count(), 0);
  }
  executor->set_profiling(false);
  ASSERT_TRUE(executor->run({input}).ok());
  EXPECT_EQ(executor->call_timings()[0].count, 0);  // turning it off or on starts anew
}

TEST_F(ExecutorTest, WrongArgumentsAreErrors) {
  auto wrong_type = executor->run({test::f32({2, 2}, {1, 2, 3, 4})});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.error().message(),
            "input 0 is tensor<2x2xf32>, but the program takes tensor<4xf32>");
  auto wrong_count = executor->run(std::vector<TensorPtr>{});
  ASSERT_FALSE(wrong_count.ok());
  EXPECT_EQ(wrong_count.error().message(), "the program takes 1 input(s), given 0");
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  Status status = executor->run(inputs, outputs);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "the program takes 1 input(s) and 3 output(s), given 0 and 0");
}

TEST(Weights, HoldsTheTensorsThemselvesEachCountedOnce) {
  auto a = test::f32({3}, {1, 2, 3});
  auto b = test::make_tensor(DType::i64, {10}, std::vector<double>(10, 5));
  auto weights = Weights::hold({a, b, a});
  ASSERT_TRUE(weights.ok());
  EXPECT_EQ(weights->count(), 3u);
  EXPECT_EQ(weights->address(0), a->bytes().data());
  EXPECT_EQ(weights->address(1), b->bytes().data());
  EXPECT_EQ(weights->address(2), a->bytes().data());
  EXPECT_EQ(weights->size(), 12 + 80);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(weights->address(1)) % 64, 0u);

  auto elided = Tensor::without_data(TensorType{DType::f32, {2}});
  elided->name = "w";
  auto error = Weights::hold({elided});
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().message(),
            "constant 'w' has no data (it was printed with its data elided)");
}

}  // namespace
}  // namespace uma::runtime
