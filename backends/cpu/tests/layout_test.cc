// Tests of the host's layout pass (layout_nchwc.cc): the exact graph it makes of a chain
// of convolutions, pools and elementwise ops, the same results bit for bit in the
// interpreter, and compiled builds of each blocked op family on random shapes against the
// interpreter.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "backends/cpu/cpu.h"
#include "tests/unit/build_check.h"
#include "tests/unit/c_test_util.h"
#include "tests/unit/tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using Ints = std::vector<std::int64_t>;
using test::random_tensor;

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

Target host(Context& context) {
  auto parsed = context.target_kinds().parse("c --mcpu=skylake-avx512");
  EXPECT_TRUE(parsed.ok()) << parsed.error().message();
  return std::move(*parsed);
}

// A stem convolution, a pool, a depthwise convolution scaled per channel with a residual
// add, a pointwise convolution to 24 channels (blocks of 8), then a global pool read as
// NCHW by a reshape; the pool's output is an output too.
void chain(Function& main) {
  Builder b(main);
  auto conv = [&](Value* x, Shape weight, std::uint64_t seed, AttrMap attrs = {}) {
    Value* bias = b.constant(random_tensor({weight[0]}, seed + 1));
    return b.value("nn.conv2d", {x, b.constant(random_tensor(weight, seed)), bias}, attrs);
  };
  Value* x = main.add_param(tensor({1, 3, 12, 12}), "x");
  Value* stem = b.value(
      "nn.relu", {conv(x, {32, 3, 3, 3}, 1, test::make_attrs({{"padding", Ints{1, 1, 1, 1}}}))});
  Value* pooled = b.value("nn.max_pool2d", {stem},
                          test::make_attrs({{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}}));
  Value* depthwise =
      conv(pooled, {32, 1, 3, 3}, 3,
           test::make_attrs({{"padding", Ints{1, 1, 1, 1}}, {"groups", std::int64_t{32}}}));
  Value* scaled = b.value("multiply", {depthwise, b.constant(random_tensor({1, 32, 1, 1}, 5))});
  Value* sum = b.value(
      "add",
      {b.value("clip", {scaled}, test::make_attrs({{"a_min", 0.0}, {"a_max", 6.0}})), pooled});
  Value* narrow = conv(sum, {24, 32, 1, 1}, 6);
  Value* global = b.value("nn.global_avg_pool", {narrow});
  main.set_outputs(
      {b.value("reshape", {global}, test::make_attrs({{"newshape", Ints{1, 24}}})), pooled});
}

class LayoutTest : public ::testing::Test {
 protected:
  std::unique_ptr<Module> copy(const Module& module) {
    auto parsed = parse_module(context, to_string(module));
    EXPECT_TRUE(parsed.ok()) << parsed.error().message();
    return parsed.ok() ? std::move(*parsed) : nullptr;
  }

  Context context;
};

TEST_F(LayoutTest, BlocksTheChainWithLayoutChangesOnlyAtItsEdges) {
  Module module(context);
  chain(*module.add_function("main").value());
  std::unique_ptr<Module> blocked = copy(module);
  for (auto pass : {backends::pack_weights, backends::layout_nchwc})
    ASSERT_TRUE(pass(*blocked, host(context)).ok());
  auto dce = parse_pipeline(context.passes(), "dce");
  ASSERT_TRUE(dce.ok() && dce->run(*blocked).ok());
  PrintOptions options;
  options.elide_data = true;
  std::string text = to_string(*blocked, options);
  std::string body = text.substr(0, text.find("\ndata "));
  EXPECT_EQ(
      body,
      "func @main(%x: tensor<1x3x12x12xf32>) -> (tensor<1x24xf32>, tensor<1x32x6x6xf32>) {\n"
      "  %0 = constant {value = @cst0} : tensor<32xf32>\n"
      "  %1 = constant {value = @cst1.packed} : tensor<2x3x3x3x16xf32>\n"
      "  %2 = nn.conv2d_nchwc(%x, %1, %0) {padding = [1, 1, 1, 1]} : tensor<1x2x12x12x16xf32>\n"
      "  %3 = nn.relu(%2) : tensor<1x2x12x12x16xf32>\n"
      "  %4 = nn.max_pool3d(%3) {pool_size = [2, 2, 1], strides = [2, 2, 1]} : "
      "tensor<1x2x6x6x16xf32>\n"
      "  %5 = layout_transform(%4) {dst_layout = \"NCHW\", src_layout = \"NCHW16c\"} : "
      "tensor<1x32x6x6xf32>\n"
      "  %6 = constant {value = @cst2} : tensor<32xf32>\n"
      "  %7 = constant {value = @cst3.packed} : tensor<2x1x3x3x16xf32>\n"
      "  %8 = nn.conv2d_nchwc(%4, %7, %6) {groups = 32, padding = [1, 1, 1, 1]} : "
      "tensor<1x2x6x6x16xf32>\n"
      "  %9 = constant {value = @cst4.nchw16c} : tensor<1x2x1x1x16xf32>\n"
      "  %10 = multiply(%8, %9) : tensor<1x2x6x6x16xf32>\n"
      "  %11 = clip(%10) {a_max = 6.0, a_min = 0.0} : tensor<1x2x6x6x16xf32>\n"
      "  %12 = add(%11, %4) : tensor<1x2x6x6x16xf32>\n"
      "  %13 = constant {value = @cst5} : tensor<24xf32>\n"
      "  %14 = constant {value = @cst6.packed} : tensor<3x32x1x1x8xf32>\n"
      "  %15 = nn.conv2d_nchwc(%12, %14, %13) : tensor<1x3x6x6x8xf32>\n"
      "  %16 = nn.avg_pool3d(%15) {pool_size = [6, 6, 1]} : tensor<1x3x1x1x8xf32>\n"
      "  %17 = layout_transform(%16) {dst_layout = \"NCHW\", src_layout = \"NCHW8c\"} : "
      "tensor<1x24x1x1xf32>\n"
      "  %18 = reshape(%17) {newshape = [1, 24]} : tensor<1x24xf32>\n"
      "  return %18, %5\n"
      "}\n");

  // The same results, bit for bit, in the interpreter.
  std::vector<TensorPtr> inputs = random_inputs(*module.find_function("main"), 7);
  auto expected = interpret(module, inputs);
  auto got = interpret(*blocked, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message();
  ASSERT_TRUE(got.ok()) << got.error().message();
  ASSERT_EQ(got->size(), expected->size());
  for (std::size_t i = 0; i < got->size(); ++i)
    EXPECT_TRUE((*got)[i]->same_contents(*(*expected)[i])) << "output " << i;
}

TEST_F(LayoutTest, ASqueezeAndExciteGateStaysBlocked) {
  // x * sigmoid(conv(global_avg_pool(x))): the gate (1, 32, 1, 1) broadcasts over x blocked.
  Module module(context);
  Function& main = *module.add_function("main").value();
  Builder b(main);
  Value* x = main.add_param(tensor({1, 3, 8, 8}), "x");
  Value* features = b.value("nn.conv2d", {x, b.constant(random_tensor({32, 3, 1, 1}, 1))});
  Value* pooled = b.value("nn.global_avg_pool", {features});
  Value* gate = b.value(
      "sigmoid", {b.value("nn.conv2d", {pooled, b.constant(random_tensor({32, 32, 1, 1}, 2))})});
  main.set_outputs({b.value("multiply", {features, gate})});
  std::unique_ptr<Module> blocked = copy(module);
  for (auto pass : {backends::pack_weights, backends::layout_nchwc})
    ASSERT_TRUE(pass(*blocked, host(context)).ok());
  const Function& after = *blocked->find_function("main");
  std::vector<std::string> ops;
  for (const auto& node : after.nodes())
    if (!node->is_op("constant")) ops.push_back(node->op_name());
  EXPECT_EQ(ops, (std::vector<std::string>{"nn.conv2d_nchwc", "nn.avg_pool3d", "nn.conv2d_nchwc",
                                           "sigmoid", "multiply", "layout_transform"}));
  std::vector<TensorPtr> inputs = random_inputs(main, 3);
  auto expected = interpret(module, inputs);
  auto got = interpret(*blocked, inputs);
  ASSERT_TRUE(expected.ok() && got.ok());
  EXPECT_TRUE((*got)[0]->same_contents(*(*expected)[0]));
}

TEST_F(LayoutTest, ASiluAfterABlockedConvolutionIsItsEpilogueInVectors) {
  // x * sigmoid(x) fuses into the convolution (a pool after it keeps it blocked); its
  // sigmoid stays in vector arithmetic (uma_vsigmoid), so the tile's accumulators stay in
  // registers. Inputs scaled by 40 reach the exponential's clamps on both sides.
  Module module(context);
  Function& main = *module.add_function("main").value();
  Builder b(main);
  Value* x = main.add_param(tensor({1, 8, 5, 7}), "x");
  Value* wide = b.value("multiply", {x, b.constant(test::make_tensor(DType::f32, {}, {40.0}))});
  Value* y = b.value("nn.conv2d", {wide, b.constant(random_tensor({32, 8, 3, 3}, 4))},
                     test::make_attrs({{"padding", Ints{1, 1, 1, 1}}}));
  Value* silu = b.value("multiply", {y, b.value("sigmoid", {y})});
  // A pool after it, so that the SiLU's result stays blocked.
  main.set_outputs(
      {b.value("nn.max_pool2d", {silu}, test::make_attrs({{"pool_size", Ints{2, 2}}}))});
  for (int threads : {1, 2}) {
    SCOPED_TRACE(fmt::format("{} thread(s)", threads));
    auto fresh = parse_module(context, to_string(module));
    ASSERT_TRUE(fresh.ok()) << fresh.error().message();
    build::BuildOptions options;
    options.compiler.cache_dir = testing_c::run_cache_dir();
    build::HostBuild built = testing_build::build_and_check(
        *(*fresh)->find_function("main"), 5,
        [&] { return build::build(**fresh, {fmt::format("c --threads={}", threads)}, options); },
        1e-4, 1e-5);
    ASSERT_EQ(built.sources.size(), 1u);
    const std::string& code = built.sources[0].code;
    EXPECT_NE(code.find("// fused_nn_conv2d_nchwc_sigmoid_multiply_"), std::string::npos);
    EXPECT_NE(code.find("uma_vsigmoid_f32x16(conv2d_nchwc"), std::string::npos) << code;
  }
}

// One blocked op family on a random shape: its build for the host against the interpreter,
// at 1 and 2 threads.
void check_compiled(Context& context, Module& module, const std::string& what) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(fmt::format("{}, {} thread(s)", what, threads));

    auto fresh = parse_module(context, to_string(module));
    ASSERT_TRUE(fresh.ok()) << fresh.error().message();
    build::BuildOptions options;
    options.compiler.cache_dir = testing_c::run_cache_dir();
    options.passes.verify_each = true;
    Function& main = *(*fresh)->find_function("main");
    testing_build::build_and_check(
        main, 3,
        [&] { return build::build(**fresh, {fmt::format("c --threads={}", threads)}, options); },
        1e-4, 1e-5);
  }
}

TEST_F(LayoutTest, BlockedDepthwiseAndPoolsMatchTheInterpreterOnRandomShapes) {
  std::mt19937 rng(11);
  auto pick = [&](std::vector<std::int64_t> values) { return values[rng() % values.size()]; };
  for (int k = 0; k < 8; ++k) {
    // Channels in blocks of 16, 8 and 4; widths with and without tails; strides, padding,
    // dilation; then a max or an average pool, or a global one.
    const std::int64_t channels = pick({4, 8, 24, 32, 48}), height = pick({9, 12}),
                       width = pick({5, 14, 17}), kernel = pick({3, 5});
    const Ints strides = {pick({1, 2}), pick({1, 2})};
    const Ints padding = {kernel / 2, pick({0, kernel / 2}), kernel / 2, kernel / 2};
    const Ints dilation = {pick({1, 2}), 1};
    const int pool = k % 3;
    Module module(context);
    Function& main = *module.add_function("main").value();
    Builder b(main);
    Value* x = main.add_param(tensor({1, channels, height, width}), "x");
    Value* stem =
        b.value("nn.conv2d", {x, b.constant(random_tensor({channels, channels, 1, 1}, 1))});
    Value* y = b.value("nn.conv2d",
                       {stem, b.constant(random_tensor({channels, 1, kernel, kernel}, 2)),
                        b.constant(random_tensor({channels}, 3))},
                       test::make_attrs({{"strides", strides},
                                         {"padding", padding},
                                         {"dilation", dilation},
                                         {"groups", channels}}));
    y = b.value("nn.relu", {y});
    if (pool == 0)
      y = b.value("nn.max_pool2d", {y},
                  test::make_attrs({{"pool_size", Ints{2, 2}}, {"padding", Ints{1, 1, 0, 0}}}));
    else if (pool == 1)
      y = b.value("nn.avg_pool2d", {y},
                  test::make_attrs({{"pool_size", Ints{2, 3}},
                                    {"padding", Ints{0, 1, 1, 1}},
                                    {"count_include_pad", std::int64_t{pool == 1}}}));
    else
      y = b.value("nn.global_avg_pool", {y});
    main.set_outputs({y});
    check_compiled(context, module,
                   fmt::format("{} channels @{}x{} kernel {} strides {},{} padding {},{} dilation "
                               "{} pool {}",
                               channels, height, width, kernel, strides[0], strides[1], padding[1],
                               padding[3], dilation[0], pool));
  }
}

}  // namespace
}  // namespace uma
