// The host backend's convolution: the CPU's vector lanes, pack-weights, and the
// register-tiled schedule of conv2d_nchw, compiled over many shapes against the reference
// interpreter (with a tolerance that allows FMA and reassociation, not an index error).
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "backends/cpu/cpu.h"
#include "tests/unit/build_check.h"
#include "tests/unit/c_test_util.h"
#include "tests/unit/tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::random_tensor;

using Ints = std::vector<std::int64_t>;

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

Target target(Context& context, std::string_view text) {
  auto parsed = context.target_kinds().parse(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message();
  return std::move(*parsed);
}

std::int64_t lanes(Context& context, std::string_view text) {
  auto lanes = backends::vector_lanes(target(context, text));
  EXPECT_TRUE(lanes.ok()) << lanes.error().message();
  return lanes.ok() ? *lanes : 0;
}

TEST(CpuVectorLanes, FromTheTargetsCpuAndFeatures) {
  Context context;
  EXPECT_EQ(lanes(context, "c --mcpu=skylake-avx512"), 16);
  EXPECT_EQ(lanes(context, "c --mcpu=znver3"), 8);
  EXPECT_EQ(lanes(context, "c --mcpu=x86-64"), 4);
  EXPECT_EQ(lanes(context, "c --mcpu=x86-64 --mattr=+avx2"), 8);
  EXPECT_EQ(lanes(context, "c --mcpu=x86-64 --mattr=+avx512f"), 16);
  EXPECT_EQ(lanes(context, "c --mcpu=icelake-server --mattr=-avx512f"), 8);
  EXPECT_EQ(lanes(context, "c --mcpu=haswell --mattr=-avx2"), 4);
  std::int64_t native = lanes(context, "c");
  EXPECT_TRUE(native == 4 || native == 8 || native == 16) << native;
}

TEST(PackConvWeights, PacksConstantWeightsInBlocksOfTheLanesOrFewer) {
  Context context;
  Module module(context);
  Function& main = *module.add_function("main").value();
  Builder b(main);
  Value* x = main.add_param(tensor({1, 4, 6, 6}), "x");
  TensorPtr w = random_tensor({32, 4, 3, 3}, 1);
  Value* packed = b.value("nn.conv2d", {x, b.constant(w), b.constant(random_tensor({32}, 2))},
                          test::make_attrs({{"padding", Ints{1, 1, 1, 1}}}));
  // 24 output channels: blocks of 8; depthwise, 4 channels: blocks of 4.
  Value* narrow = b.value("nn.conv2d", {x, b.constant(random_tensor({24, 4, 1, 1}, 4))});
  Value* depthwise = b.value("nn.conv2d", {x, b.constant(random_tensor({4, 1, 3, 3}, 6))},
                             test::make_attrs({{"groups", std::int64_t{4}}}));
  // Left alone: two groups that are not one per channel; 6 output channels (no block of 4
  // or more divides them); a computed weight.
  Value* grouped = b.value("nn.conv2d", {x, b.constant(random_tensor({16, 2, 1, 1}, 3))},
                           test::make_attrs({{"groups", std::int64_t{2}}}));
  Value* odd = b.value("nn.conv2d", {x, b.constant(random_tensor({6, 4, 1, 1}, 7))});
  Value* computed_weight = b.value("nn.relu", {b.constant(random_tensor({16, 4, 1, 1}, 5))});
  Value* computed = b.value("nn.conv2d", {x, computed_weight});
  main.set_outputs({packed, narrow, depthwise, grouped, odd, computed});

  auto changed = backends::pack_weights(module, target(context, "c --mcpu=skylake-avx512"));
  ASSERT_TRUE(changed.ok()) << changed.error().message();
  EXPECT_TRUE(*changed);
  std::vector<std::string> ops;
  std::vector<Shape> weights;
  for (Value* output : main.outputs()) {
    ops.push_back(output->producer()->op_name());
    weights.push_back(output->producer()->operand(1)->tensor_type().shape);
  }
  EXPECT_EQ(ops,
            (std::vector<std::string>{"nn.conv2d_packed", "nn.conv2d_packed", "nn.conv2d_packed",
                                      "nn.conv2d", "nn.conv2d", "nn.conv2d"}));
  EXPECT_EQ(weights[1], (Shape{3, 4, 1, 1, 8}));
  EXPECT_EQ(weights[2], (Shape{1, 1, 3, 3, 4}));
  const Node& conv = *main.outputs()[0]->producer();
  EXPECT_EQ(conv.attrs().get_ints("padding"), (Ints{1, 1, 1, 1}));
  EXPECT_EQ(conv.num_operands(), 3u);
  const Tensor& p = *conv.operand(1)->producer()->attrs().get_tensor("value");
  ASSERT_EQ(p.shape(), (Shape{2, 4, 3, 3, 16}));
  for (std::int64_t o = 0; o < 32; ++o)
    for (std::int64_t i = 0; i < 36; ++i)
      ASSERT_EQ(p.get(((o / 16) * 36 + i) * 16 + o % 16), w->get(o * 36 + i)) << o << " " << i;
}

// One convolution with a constant weight and what may follow it.
struct ConvCase {
  std::int64_t channels, out_channels, height, width, kh, kw;
  Ints strides, padding, dilation;
  enum Epilogue { kNone, kBias, kBiasRelu, kResidual } epilogue;
};

std::string describe(const ConvCase& c) {
  return fmt::format("{}->{} @{}x{} kernel {}x{} strides {} padding {} dilation {} epilogue {}",
                     c.channels, c.out_channels, c.height, c.width, c.kh, c.kw,
                     fmt::join(c.strides, ","), fmt::join(c.padding, ","),
                     fmt::join(c.dilation, ","), static_cast<int>(c.epilogue));
}

TEST(ConvSchedule, RandomShapesMatchTheInterpreter) {
  Context probe;
  const std::int64_t l = lanes(probe, "c");
  std::mt19937 rng(7);
  auto pick = [&](std::vector<std::int64_t> values) { return values[rng() % values.size()]; };
  std::vector<ConvCase> cases;
  // Tails of every kind: widths that divide into no full tile, prime ones, 1x1 and
  // non-square kernels, strides, dilation, asymmetric padding, each epilogue.
  for (int k = 0; k < 12; ++k) {
    ConvCase c{pick({1, 3, 8, 13}),
               l * pick({1, 2, 3}),
               pick({1, 5, 9}),
               pick({1, 7, 13, 16, 29}),
               pick({1, 3}),
               pick({1, 3, 5}),
               {pick({1, 2}), pick({1, 2})},
               {pick({0, 1}), pick({0, 2}), pick({0, 1}), pick({0, 1})},
               {pick({1, 2}), 1},
               static_cast<ConvCase::Epilogue>(k % 4)};
    if (c.height + c.padding[0] + c.padding[2] < (c.kh - 1) * c.dilation[0] + 1)
      c.padding[0] = c.padding[2] = c.kh;  // the window must fit
    if (c.width + c.padding[1] + c.padding[3] < c.kw) c.padding[1] = c.padding[3] = c.kw;
    cases.push_back(c);
  }
  for (const ConvCase& c : cases) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(describe(c) + fmt::format(", {} thread(s)", threads));
      Context context;
      Module module(context);
      Function& main = *module.add_function("main").value();
      Builder b(main);
      Value* x = main.add_param(tensor({1, c.channels, c.height, c.width}), "x");
      Value* w = b.constant(random_tensor({c.out_channels, c.channels, c.kh, c.kw}, 11));
      std::vector<Value*> operands = {x, w};
      if (c.epilogue != ConvCase::kNone)
        operands.push_back(b.constant(random_tensor({c.out_channels}, 12)));
      Value* y =
          b.value("nn.conv2d", operands,
                  test::make_attrs(
                      {{"strides", c.strides}, {"padding", c.padding}, {"dilation", c.dilation}}));
      if (c.epilogue == ConvCase::kBiasRelu) y = b.value("nn.relu", {y});
      if (c.epilogue == ConvCase::kResidual) {
        Shape shape = y->tensor_type().shape;
        y = b.value("add", {y, main.add_param(tensor(shape), "residual")});
      }
      main.set_outputs({y});
      build::BuildOptions options;
      options.compiler.cache_dir = testing_c::run_cache_dir();
      options.passes.verify_each = true;
      build::HostBuild built = testing_build::build_and_check(
          main, 3,
          [&] { return build::build(module, {fmt::format("c --threads={}", threads)}, options); },
          1e-4, 1e-5);
      // The schedule ran: the accumulator is a tile of whole vectors.
      const std::regex tile(fmt::format(R"(uma_f32x{} \w+\[\d+\];)", l));
      bool tiled = false;
      for (const runtime::CSourceFile& file : built.sources)
        tiled |= std::regex_search(file.code, tile);
      EXPECT_TRUE(tiled);
    }
  }
}

}  // namespace
}  // namespace uma
