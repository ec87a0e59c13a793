// The per-op-family profile: a small model built for the host, each generated function's
// family read from its ops, and the executor's call timings grouped by family.
#include "uma/uma/profile.h"

#include <gtest/gtest.h>

#include <map>

#include "c_test_util.h"
#include "tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

TensorPtr filled(Shape shape, double value) {
  auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
  for (std::int64_t i = 0; i < t->num_elements(); ++i) t->set(i, value);
  return t;
}

class ProfileTest : public ::testing::Test {
 protected:
  ProfileTest() : module(ctx), main(*module.add_function("main").value()), b(main) {}

  // A layer of every family: a 3x3 convolution with its relu, a 1x1 convolution, a depthwise
  // 3x3 one, a max pool, a dense layer, a softmax; and on a second input alone, a transpose
  // and an add.
  void build_model() {
    Value* x = main.add_param(tensor({1, 4, 8, 8}), "x");
    Value* c1 = b.value("nn.conv2d", {x, b.constant(filled({4, 4, 3, 3}, 0.1))},
                        test::make_attrs({{"padding", Ints{1, 1, 1, 1}}}));
    Value* r1 = b.value("nn.relu", {c1});
    Value* c2 = b.value("nn.conv2d", {r1, b.constant(filled({8, 4, 1, 1}, 0.2))});
    Value* d =
        b.value("nn.conv2d", {c2, b.constant(filled({8, 1, 3, 3}, 0.3))},
                test::make_attrs({{"padding", Ints{1, 1, 1, 1}}, {"groups", std::int64_t{8}}}));
    Value* p = b.value("nn.max_pool2d", {d},
                       test::make_attrs({{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}}));
    Value* flat = b.value("reshape", {p}, test::make_attrs({{"newshape", Ints{1, 128}}}));
    Value* dense = b.value("nn.dense", {flat, b.constant(filled({10, 128}, 0.01))});
    Value* s = b.value("nn.softmax", {dense});
    Value* y = main.add_param(tensor({3, 5}), "y");
    Value* t = b.value("transpose", {y}, test::make_attrs({{"axes", Ints{1, 0}}}));
    Value* e = b.value("add", {y, y});
    main.set_outputs({s, t, e});
  }

  Context ctx;
  Module module;
  Function& main;
  Builder b;
};

TEST_F(ProfileTest, FunctionsAreGroupedByTheFamilyOfTheirHeaviestOp) {
  build_model();
  std::vector<TensorPtr> inputs = random_inputs(main, 1);
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  auto built = build::build(module, {"c"}, options);
  ASSERT_TRUE(built.ok()) << built.error().message();
  runtime::Executor executor(built->program);
  executor.set_profiling(true);
  for (int run = 0; run < 2; ++run) ASSERT_TRUE(executor.run(inputs).ok());

  auto profile = profile_by_family(module, executor.call_timings());
  ASSERT_TRUE(profile.ok()) << profile.error().message();
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> calls_and_macs;
  for (const FamilyProfile& family : *profile) {
    calls_and_macs[std::string(op_family_name(family.family))] = {family.calls, family.macs};
    EXPECT_GT(family.time.count(), 0);
  }
  // Two runs of one function per family; MACs: output elements x (input channels per group
  // x kernel taps), the dense layer's 10 outputs x 128 features.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> expected = {
      {"conv kxk", {2, 2 * 256 * 4 * 9}},
      {"conv 1x1", {2, 2 * 512 * 4}},
      {"depthwise", {2, 2 * 512 * 9}},
      {"pool", {2, 0}},
      {"dense/matmul", {2, 2 * 10 * 128}},
      {"softmax/norm", {2, 0}},
      {"layout", {2, 0}},
      {"elementwise", {2, 0}},
  };
  EXPECT_EQ(calls_and_macs, expected);
  for (std::size_t i = 1; i < profile->size(); ++i)
    EXPECT_GE((*profile)[i - 1].time, (*profile)[i].time);  // the longest first
}

TEST_F(ProfileTest, ACallOfAnUnknownFunctionIsAnError) {
  std::vector<runtime::CallTiming> timings = {{"fused_nothing_0", 1, std::chrono::nanoseconds(5)}};
  auto profile = profile_by_family(module, timings);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.error().message(),
            "the profile's call of @fused_nothing_0: the module has no such function");
}

TEST_F(ProfileTest, AFunctionOfElementwiseAndLayoutOpsIsElementwise) {
  Value* x = main.add_param(tensor({2, 3}), "x");
  Value* t = b.value("transpose", {b.value("exp", {x})}, test::make_attrs({{"axes", Ints{1, 0}}}));
  main.set_outputs({t});
  EXPECT_EQ(function_family(main), OpFamily::kElementwise);
  Function& layout = *module.add_function("layout").value();
  Builder lb(layout);
  Value* y = layout.add_param(tensor({2, 3}), "y");
  layout.set_outputs({lb.value("transpose", {y}, test::make_attrs({{"axes", Ints{1, 0}}}))});
  EXPECT_EQ(function_family(layout), OpFamily::kLayout);
}

TEST_F(ProfileTest, APackedConvolutionIsOfItsKernelsFamily) {
  // The weight (O / 16, C, kh, kw, 16) that the host's pack-weights makes.
  Value* x = main.add_param(tensor({1, 4, 8, 8}), "x");
  Value* one = b.value("nn.conv2d_packed", {x, b.constant(filled({2, 4, 1, 1, 16}, 0.1))});
  main.set_outputs({one});
  EXPECT_EQ(function_family(main), OpFamily::kConv1x1);
  Function& three = *module.add_function("three").value();
  Builder tb(three);
  Value* y = three.add_param(tensor({1, 4, 8, 8}), "y");
  three.set_outputs(
      {tb.value("nn.conv2d_packed", {y, tb.constant(filled({2, 4, 3, 3, 16}, 0.1))})});
  EXPECT_EQ(function_family(three), OpFamily::kConvKxK);
}

}  // namespace
}  // namespace uma
