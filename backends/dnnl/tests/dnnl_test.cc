// The dnnl backend: convolutions and dense layers with their epilogues built with oneDNN
// against the reference interpreter and the host's loops, what the partition claims and why
// it refuses, the load-time state in the generated code, and dnnl beside vanilla.
#include <oneapi/dnnl/dnnl.h>

#include <cmath>
#include <limits>
#include <optional>

#include "backends/dnnl/dnnl.h"
#include "backends/vanilla/tests/vanilla_test_util.h"
#include "uma/partition/report.h"

namespace uma::backends::dnnl {
namespace {

using vanilla::testing::ConvSpec;
using vanilla::testing::Ints;
using vanilla::testing::ModelBuilder;

// vanilla's test fixture (models, build and compare) with dnnl registered too.
class DnnlTest : public vanilla::testing::VanillaTest {
 protected:
  DnnlTest() { EXPECT_TRUE(register_dnnl(ctx).ok()); }

  // `module` built for `targets` against the reference interpreter, by the model tests'
  // allclose rule (oneDNN sums in another order than the interpreter); returns the build.
  build::HostBuild check(const Module& module, const std::vector<std::string>& targets) {
    std::vector<TensorPtr> inputs = random_inputs(*module.find_function("main"), 1);
    auto reference = interpret(module, inputs);
    EXPECT_TRUE(reference.ok()) << reference.error().message();
    build::HostBuild built;
    auto ours = build_and_run(*copy(module), targets, inputs, &built);
    EXPECT_TRUE(ours.ok()) << ours.error().message();
    if (!reference.ok() || !ours.ok()) return built;
    EXPECT_EQ(ours->size(), reference->size());
    for (std::size_t i = 0; i < ours->size() && i < reference->size(); ++i) {
      TensorComparison compared = compare_tensors(*(*ours)[i], *(*reference)[i], 1e-4, 1e-5);
      EXPECT_TRUE(compared.ok()) << "output " << i << ": " << compared.mismatches
                                 << " mismatch(es), max abs error " << compared.max_abs_error;
    }
    return built;
  }

  static std::string code(const build::HostBuild& built) {
    std::string all;
    for (const runtime::CSourceFile& file : built.sources) all += file.code;
    return all;
  }

  // The partition report's record of the first node of `op` in `m` partitioned for `targets`.
  NodeRecord record_of(Module& m, std::string_view op,
                       const std::vector<std::string>& targets = {"dnnl"}) {
    PartitionReport report;
    report.begin(m, targets);
    build::BuildOptions o = options();
    o.report = &report;
    auto parsed = build::parse_targets(ctx, targets);
    EXPECT_TRUE(parsed.ok()) << parsed.error().message();
    Status partitioned = build::partition_for_targets(m, *parsed, o);
    EXPECT_TRUE(partitioned.ok()) << partitioned.error().message();
    for (const NodeRecord& record : report.records())
      if (record.op == op) return record;
    ADD_FAILURE() << "no " << op << " in the report";
    return {};
  }

  // The one reason the partition report gives for leaving the first node of `op` in `m` on
  // the host.
  std::string refusal_of(Module& m, std::string_view op) {
    NodeRecord record = record_of(m, op);
    EXPECT_EQ(record.target, "");
    EXPECT_EQ(record.rejections.size(), 1u);
    return record.rejections.empty() ? "" : record.rejections[0].detail;
  }
};

struct ConvCase {
  std::string name;
  Shape data;
  ConvSpec conv;
  std::string target = "dnnl";
};

void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

class DnnlConvTest : public DnnlTest, public ::testing::WithParamInterface<ConvCase> {};

// Each case is one composite, one call, its primitive made by the function's init.
TEST_P(DnnlConvTest, MatchesTheInterpreterAndTheLoops) {
  const ConvCase& c = GetParam();
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, c.data}, "x"), c.conv)});
  });
  build::HostBuild built = check(*m, {c.target});
  ASSERT_EQ(built.built.size(), 1u);
  EXPECT_EQ(built.built[0].target, "dnnl");
  std::string text = code(built);
  EXPECT_EQ(count(text, "dnnl_kernel_conv_init(&"), 1u) << text;
  EXPECT_EQ(count(text, "dnnl_kernel_conv(&"), 1u) << text;
  EXPECT_EQ(count(text, "dnnl_kernel_release(&"), 1u) << text;
}

std::vector<ConvCase> conv_cases() {
  return {
      {"Kernel1", {1, 5, 7, 7}, {.out_channels = 10, .kernel = 1}},
      {"Batch2Pad1BiasRelu",
       {2, 3, 9, 9},
       {.out_channels = 17,
        .padding = {1, 1, 1, 1},
        .bias_operand = true,
        .activation = "nn.relu"}},
      {"Stride2BiasAddRelu6",
       {1, 4, 11, 13},
       {.out_channels = 20,
        .kernel = 5,
        .strides = {2, 2},
        .bias_add = true,
        .activation = "clip"}},
      {"AsymmetricPadding",
       {2, 6, 10, 9},
       {.out_channels = 7, .strides = {2, 1}, .padding = {0, 1, 2, 3}}},
      {"Grouped",
       {1, 8, 9, 9},
       {.out_channels = 12, .padding = {1, 1, 1, 1}, .groups = 4, .bias_operand = true}},
      {"Depthwise",
       {1, 32, 12, 12},
       {.out_channels = 32,
        .padding = {1, 1, 1, 1},
        .groups = 32,
        .bias_add = true,
        .activation = "clip"}},
      {"Dilated",
       {1, 16, 12, 12},
       {.out_channels = 16, .padding = {2, 2, 2, 2}, .dilation = {2, 2}}},
      {"Channels64Winograd",
       {1, 64, 14, 14},
       {.out_channels = 64, .padding = {1, 1, 1, 1}, .bias_operand = true, .activation = "nn.relu"},
       "dnnl --winograd=off"},
  };
}

INSTANTIATE_TEST_SUITE_P(Shapes, DnnlConvTest, ::testing::ValuesIn(conv_cases()),
                         [](const auto& info) { return info.param.name; });

// ResNet's blocks in small: the residual add and its relu fused into the second convolution
// of each block (the sum and eltwise post-ops); every convolution is a call of dnnl.
TEST_F(DnnlTest, ResNetBlocksFuseTheResidualSum) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.resnet(main.add_param(TensorType{DType::f32, {2, 3, 12, 12}}, "x"))});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  std::string text = code(built);
  EXPECT_EQ(count(text, "dnnl_kernel_conv(&"), 6u) << text;
  EXPECT_EQ(count(text, "dnnl_kernel_conv_init(&"), 6u);
}

// The layouts dnnl-layouts gives the composites of `m`'s dnnl regions, in call order:
// "<composite>: <data> -> <result>".
std::vector<std::string> layouts_after_partition(Context& ctx, Module& m) {
  auto targets = build::parse_targets(ctx, {"dnnl"});
  EXPECT_TRUE(targets.ok()) << targets.error().message();
  EXPECT_TRUE(build::partition_for_targets(m, *targets).ok());
  EXPECT_TRUE(keep_layouts(m, targets->backends[0]).ok());
  std::vector<std::string> out;
  for (Function* region : m.functions()) {
    if (region->attrs().string_or_none("Compiler") != "dnnl") continue;
    for (const auto& node : region->nodes()) {
      if (node->callee() == nullptr) continue;
      Layouts layouts = layouts_of(*node->callee());
      out.push_back(fmt::format("{}: {} -> {}",
                                node->callee()->attrs().string_or_none("Composite").value_or("?"),
                                layout_name(layouts.src), layout_name(layouts.dst)));
    }
  }
  return out;
}

// A residual block and a pooling: what passes between the region's composites stays
// channels last; what enters or leaves the region is plain. Returning the block's sum too
// makes it plain, and with it the residual the sum adds (oneDNN's sum reads the destination
// in its layout), so the stem's result is plain as well.
TEST_F(DnnlTest, DataStaysChannelsLastBetweenARegionsComposites) {
  for (bool block_returned : {false, true}) {
    SCOPED_TRACE(block_returned);
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      Value* x = main.add_param(TensorType{DType::f32, {1, 8, 10, 10}}, "x");
      ConvSpec same{.out_channels = 8,
                    .padding = {1, 1, 1, 1},
                    .bias_operand = true,
                    .activation = "nn.relu"};
      Value* stem = mb.conv(x, same);
      ConvSpec linear = same;
      linear.activation = "";
      Value* a = mb.conv(mb.conv(stem, same), linear);
      Value* block = b.value("nn.relu", {b.value("add", {a, stem})});
      Value* pooled = b.value("nn.global_avg_pool", {block});
      main.set_outputs(block_returned ? std::vector<Value*>{pooled, block}
                                      : std::vector<Value*>{pooled});
    });
    check(*m, {"dnnl"});
    std::vector<std::string> expected =
        block_returned
            ? std::vector<std::string>{"dnnl.conv: plain -> plain",
                                       "dnnl.conv: plain -> channels_last",
                                       "dnnl.conv: channels_last -> plain",
                                       "dnnl.pool: plain -> plain"}
            : std::vector<std::string>{
                  "dnnl.conv: plain -> channels_last", "dnnl.conv: channels_last -> channels_last",
                  "dnnl.conv: channels_last -> channels_last", "dnnl.pool: channels_last -> plain"};
    EXPECT_EQ(layouts_after_partition(ctx, *m), expected);
  }
}

TEST_F(DnnlTest, MobileNetBlockRunsWhollyOnDnnl) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.mobilenet(main.add_param(TensorType{DType::f32, {1, 3, 16, 16}}, "x"))});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(count(code(built), "dnnl_kernel_conv(&"), 4u);
}

// Every activation oneDNN fuses, swish (x * sigmoid(x)) too, after a convolution with an
// added bias and a residual.
TEST_F(DnnlTest, ActivationsArePostOps) {
  for (std::string op : {"nn.relu", "sigmoid", "tanh", "nn.elu", "nn.hard_swish", "nn.gelu",
                         "nn.leaky_relu", "swish", "nn.hard_sigmoid"}) {
    SCOPED_TRACE(op);
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Value* x = main.add_param(TensorType{DType::f32, {1, 8, 6, 6}}, "x");
      Value* y = mb.conv(x, {.out_channels = 8, .padding = {1, 1, 1, 1}, .bias_add = true});
      y = mb.builder().value("add", {y, x});
      main.set_outputs(
          {op == "swish" ? mb.builder().value("multiply", {mb.builder().value("sigmoid", {y}), y})
                         : mb.builder().value(op, {y})});
    });
    build::HostBuild built = check(*m, {"dnnl"});
    EXPECT_EQ(functions_on(built, "c"), 0u) << op;
  }
}

TEST_F(DnnlTest, DenseWithBiasAndActivation) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* x = main.add_param(TensorType{DType::f32, {3, 40}}, "x");
    Value* h = b.value("nn.dense", {x, b.constant(test::random_tensor({24, 40}, 7)),
                                    b.constant(test::random_tensor({24}, 8))});
    h = b.value("nn.gelu", {h});
    Value* y =
        b.value("add", {b.value("nn.dense", {h, b.constant(test::random_tensor({16, 24}, 9))}),
                        b.constant(test::random_tensor({16}, 10))});
    main.set_outputs({b.value("sigmoid", {y})});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(functions_on(built, "c"), 0u);
  EXPECT_EQ(count(code(built), "dnnl_kernel_dense(&"), 2u);
}

// A batch of matrices times a constant matrix (a transformer's projections), with a bias
// and a residual: an inner product whose weights are read as [in, out].
TEST_F(DnnlTest, MatmulByAConstantIsAnInnerProduct) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* x = main.add_param(TensorType{DType::f32, {2, 5, 40}}, "x");
    Value* r = main.add_param(TensorType{DType::f32, {2, 5, 24}}, "r");
    Value* y = b.value("nn.matmul", {x, b.constant(test::random_tensor({40, 24}, 11))});
    y = b.value("add", {b.constant(test::random_tensor({24}, 12)), y});
    main.set_outputs({b.value("nn.relu", {b.value("add", {y, r})})});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(functions_on(built, "c"), 0u);
  EXPECT_EQ(count(code(built), "dnnl_kernel_dense(&"), 1u);
}

// Attention: scores = q · kᵀ, softmax, then · v, where kᵀ and v are transposes of the heads
// as exporters write them. Each product is one oneDNN matmul that reads its transposed
// operand in place, with its strides permuted: no transpose is left to run.
TEST_F(DnnlTest, AttentionProductsReadTheirTransposesInPlace) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* q = main.add_param(TensorType{DType::f32, {4, 16, 8}}, "q");
    Value* k = main.add_param(TensorType{DType::f32, {16, 4, 8}}, "k");
    Value* v = main.add_param(TensorType{DType::f32, {16, 4, 8}}, "v");
    AttrMap to_kt, to_v;
    to_kt.set("axes", Ints{1, 2, 0});
    to_v.set("axes", Ints{1, 0, 2});
    Value* scores = b.value("nn.matmul", {q, b.value("transpose", {k}, to_kt)});
    Value* weights = b.value("nn.softmax", {scores});
    main.set_outputs({b.value("nn.matmul", {weights, b.value("transpose", {v}, to_v)})});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(functions_on(built, "c"), 0u);
  EXPECT_EQ(count(code(built), "dnnl_kernel_matmul(&"), 2u);
}

// Batch dimensions broadcast (one operand has fewer, or 1s), then a bias of one value per
// column, a residual and an activation, all fused into the one matmul.
TEST_F(DnnlTest, MatmulBroadcastsItsBatchAndFusesTheEpilogue) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* x = main.add_param(TensorType{DType::f32, {2, 3, 5, 8}}, "x");
    Value* w = main.add_param(TensorType{DType::f32, {3, 8, 6}}, "w");
    Value* r = main.add_param(TensorType{DType::f32, {2, 3, 5, 6}}, "r");
    Value* y = b.value("nn.matmul", {x, w});
    y = b.value("add", {y, b.constant(test::random_tensor({6}, 13))});
    main.set_outputs({b.value("tanh", {b.value("add", {r, y})})});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(functions_on(built, "c"), 0u);
  EXPECT_EQ(count(code(built), "dnnl_kernel_matmul(&"), 1u);
}

// A transpose whose result something else reads too is computed (on the host), and the
// matmul reads its result.
TEST_F(DnnlTest, ATransposeReadElsewhereIsComputed) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* a = main.add_param(TensorType{DType::f32, {3, 7, 5}}, "a");
    Value* c = main.add_param(TensorType{DType::f32, {3, 7, 4}}, "c");
    AttrMap swap;
    swap.set("axes", Ints{0, 2, 1});
    Value* at = b.value("transpose", {a}, swap);
    main.set_outputs({b.value("nn.matmul", {at, c}), at});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(count(code(built), "dnnl_kernel_matmul(&"), 1u);
  EXPECT_EQ(functions_on(built, "c"), 1u);
}

TEST_F(DnnlTest, AProductOfAVectorStaysOnTheHost) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* a = main.add_param(TensorType{DType::f32, {5}}, "a");
    Value* c = main.add_param(TensorType{DType::f32, {5, 3}}, "c");
    main.set_outputs({mb.builder().value("nn.matmul", {a, c})});
  });
  EXPECT_EQ(refusal_of(*m, "nn.matmul"),
            "dnnl.matmul: nn.matmul of 5 by 5x3 has a vector operand; the backend takes matrices "
            "and batches of them");
}

// Concatenations along any axis, of two operands or of many (an Inception block's four
// branches, DenseNet's growing list), one a constant: each one call of oneDNN's concat.
TEST_F(DnnlTest, ConcatenationsAreOneCallEach) {
  for (std::int64_t axis : {1, -1, 0}) {
    for (int inputs : {2, 5}) {
      SCOPED_TRACE(fmt::format("axis {}, {} operands", axis, inputs));
      auto m = model([&](Function& main, ModelBuilder& mb) {
        Builder& b = mb.builder();
        std::vector<Value*> operands;
        for (int i = 0; i < inputs; ++i) {
          Shape shape = {2, 3, 4, 5};
          shape[static_cast<std::size_t>(axis < 0 ? axis + 4 : axis)] = 1 + i;
          operands.push_back(
              i == 1 ? b.constant(test::random_tensor(shape, 20 + i))
                     : main.add_param(TensorType{DType::f32, shape}, fmt::format("x{}", i)));
        }
        main.set_outputs({b.value("concatenate", operands, test::make_attrs({{"axis", axis}}))});
      });
      build::HostBuild built = check(*m, {"dnnl"});
      EXPECT_EQ(functions_on(built, "c"), 0u);
      EXPECT_EQ(count(code(built), "dnnl_kernel_concat(&"), 1u);
    }
  }
}

// An Inception block: branches concatenated along the channels (or, copied by rows of
// another length, along a spatial axis), then a convolution. The branches' results, the
// concatenation and its result all stay channels last.
TEST_F(DnnlTest, BranchesStayChannelsLastThroughTheirConcatenation) {
  for (std::int64_t axis : {1, 2, 3}) {
    SCOPED_TRACE(axis);
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      Value* x = main.add_param(TensorType{DType::f32, {1, 8, 10, 10}}, "x");
      Value* wide = mb.conv(x, {.out_channels = 8, .kernel = 1, .activation = "nn.relu"});
      Value* narrow = mb.conv(x, {.out_channels = 8, .kernel = 3, .padding = {1, 1, 1, 1}});
      Value* joined = b.value("concatenate", {wide, narrow}, test::make_attrs({{"axis", axis}}));
      main.set_outputs({mb.conv(joined, {.out_channels = 8, .kernel = 1})});
    });
    check(*m, {"dnnl"});
    EXPECT_EQ(
        layouts_after_partition(ctx, *m),
        (std::vector<std::string>{
            "dnnl.conv: plain -> channels_last", "dnnl.conv: plain -> channels_last",
            "dnnl.concat: channels_last -> channels_last", "dnnl.conv: channels_last -> plain"}));
  }
}

TEST_F(DnnlTest, PoolingsAndSoftmaxes) {
  struct Case {
    std::string op;
    AttrMap attrs;
  };
  using test::make_attrs;
  std::vector<Case> cases = {
      {"nn.max_pool2d",
       make_attrs(
           {{"pool_size", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", Ints{1, 1, 1, 1}}})},
      {"nn.max_pool2d",
       make_attrs(
           {{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", std::int64_t{1}}})},
      {"nn.avg_pool2d", make_attrs({{"pool_size", Ints{3, 3}}, {"padding", Ints{1, 1, 1, 1}}})},
      {"nn.avg_pool2d", make_attrs({{"pool_size", Ints{3, 3}},
                                    {"strides", Ints{2, 2}},
                                    {"padding", Ints{1, 1, 1, 1}},
                                    {"count_include_pad", std::int64_t{1}}})},
      {"nn.avg_pool2d",
       make_attrs(
           {{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", std::int64_t{1}}})},
      {"nn.global_avg_pool", {}},
      {"nn.global_max_pool", {}},
      {"nn.softmax", make_attrs({{"axis", std::int64_t{-1}}})},
      {"nn.log_softmax", make_attrs({{"axis", std::int64_t{3}}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Value* x = main.add_param(TensorType{DType::f32, {2, 8, 7, 7}}, "x");
      main.set_outputs({mb.builder().value(c.op, {x}, c.attrs)});
    });
    build::HostBuild built = check(*m, {"dnnl"});
    EXPECT_EQ(functions_on(built, "c"), 0u);
    EXPECT_EQ(functions_on(built, "dnnl"), 1u);
  }
}

// Binary ops of a tensor and one broadcast to it (per channel, per row, the same shape);
// the broadcast one may come first where the op commutes.
TEST_F(DnnlTest, BinaryOpsBroadcastOneOperand) {
  for (std::string op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"})
    for (Shape other : {Shape{8, 1, 1}, Shape{2, 8, 5, 5}, Shape{5}}) {
      for (bool swapped : {false, true}) {
        if (swapped && (op == "subtract" || op == "divide")) continue;
        SCOPED_TRACE(op + " " + to_string(other) + (swapped ? " swapped" : ""));
        auto m = model([&](Function& main, ModelBuilder& mb) {
          Value* x = main.add_param(TensorType{DType::f32, {2, 8, 5, 5}}, "x");
          Value* y = main.add_param(TensorType{DType::f32, other}, "y");
          main.set_outputs({mb.builder().value(
              op, swapped ? std::vector<Value*>{y, x} : std::vector<Value*>{x, y})});
        });
        build::HostBuild built = check(*m, {"dnnl"});
        EXPECT_EQ(functions_on(built, "c"), 0u);
        EXPECT_EQ(count(code(built), "dnnl_kernel_binary(&"), 1u);
      }
    }
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {2, 8, 5, 5}}, "x");
    Value* y = main.add_param(TensorType{DType::f32, {8, 1, 1}}, "y");
    main.set_outputs({mb.builder().value("subtract", {y, x})});
  });
  EXPECT_EQ(refusal_of(*m, "subtract"),
            "dnnl.binary: subtract broadcasts its first operand from 8x1x1 to 2x8x5x5; "
            "oneDNN broadcasts only the second");
}

// A squeeze-and-excitation block (EfficientNet's): the gate's multiply runs on dnnl too, its
// data channels last between the convolutions around it. The gate, which the multiply
// broadcasts, is plain.
TEST_F(DnnlTest, SqueezeExcitationRunsWhollyOnDnnl) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* x = main.add_param(TensorType{DType::f32, {1, 8, 6, 6}}, "x");
    Value* h = mb.conv(
        x, {.out_channels = 16, .kernel = 1, .bias_operand = true, .activation = "nn.relu"});
    Value* gate = b.value("nn.global_avg_pool", {h});
    gate = mb.conv(
        gate, {.out_channels = 16, .kernel = 1, .bias_operand = true, .activation = "sigmoid"});
    Value* scaled = b.value("multiply", {h, gate});
    main.set_outputs({mb.conv(scaled, {.out_channels = 8, .kernel = 1, .bias_operand = true})});
  });
  build::HostBuild built = check(*m, {"dnnl"});
  EXPECT_EQ(functions_on(built, "c"), 0u);
  EXPECT_EQ(count(code(built), "dnnl_kernel_binary(&"), 1u);
  EXPECT_EQ(layouts_after_partition(ctx, *m),
            (std::vector<std::string>{
                "dnnl.conv: plain -> channels_last", "dnnl.pool: channels_last -> channels_last",
                "dnnl.conv: channels_last -> plain", "dnnl.binary: channels_last -> channels_last",
                "dnnl.conv: channels_last -> plain"}));
}

// A unary op no anchor precedes (after the model's input, say) runs as oneDNN's eltwise.
TEST_F(DnnlTest, UnaryOpsAloneAreEltwise) {
  for (std::string op :
       {"nn.relu", "sigmoid", "tanh", "nn.gelu", "nn.hard_swish", "nn.leaky_relu", "nn.elu", "clip",
        "abs", "exp", "sqrt", "round", "negative", "reciprocal"}) {
    SCOPED_TRACE(op);
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      Value* x = main.add_param(TensorType{DType::f32, {2, 3, 5}}, "x");
      // sqrt and reciprocal of positive values.
      if (op == "sqrt" || op == "reciprocal") x = b.value("exp", {x});
      AttrMap attrs;
      if (op == "nn.leaky_relu" || op == "nn.elu") attrs = test::make_attrs({{"alpha", 0.3}});
      if (op == "clip") attrs = test::make_attrs({{"a_min", -0.25}, {"a_max", 0.5}});
      main.set_outputs({b.value(op, {x}, attrs)});
    });
    build::HostBuild built = check(*m, {"dnnl"});
    EXPECT_EQ(functions_on(built, "c"), 0u);
    EXPECT_GE(count(code(built), "dnnl_kernel_eltwise(&"), 1u);
  }
}

// The eltwise ops whose results oneDNN computes exactly as the interpreter does, checked
// on the values where a different method would show: halves, which round takes to the
// even neighbour; negative bases, zeros and infinities under power by a constant
// (oneDNN's pow calls powf, or multiplies or divides for the exponents 0, 1, 2 and -1).
class DnnlEltwiseTest : public DnnlTest {
 protected:
  // @main: `op` of a parameter of `values` (and of the constant `exponent`, for power),
  // built for dnnl on them against the interpreter, with tolerance `rtol`; returns the
  // build.
  build::HostBuild check_on(const std::string& op, const std::vector<float>& values, double rtol,
                            std::optional<float> exponent = std::nullopt) {
    Shape shape = {static_cast<std::int64_t>(values.size())};
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      std::vector<Value*> operands = {main.add_param(TensorType{DType::f32, shape}, "x")};
      if (exponent) {
        auto power = std::make_shared<Tensor>(TensorType{DType::f32, {}});
        power->set(0, *exponent);
        operands.push_back(b.constant(power));
      }
      main.set_outputs({b.value(op, operands)});
    });
    auto input = std::make_shared<Tensor>(TensorType{DType::f32, shape});
    for (std::size_t i = 0; i < values.size(); ++i)
      input->set(static_cast<std::int64_t>(i), values[i]);
    auto reference = interpret(*m, {input});
    EXPECT_TRUE(reference.ok()) << reference.error().message();
    build::HostBuild built;
    auto ours = build_and_run(*copy(*m), {"dnnl"}, {input}, &built);
    EXPECT_TRUE(ours.ok()) << ours.error().message();
    if (!reference.ok() || !ours.ok()) return built;
    TensorComparison compared = compare_tensors(*(*ours)[0], *(*reference)[0], rtol, 0);
    EXPECT_TRUE(compared.ok()) << compared.mismatches << " mismatch(es), max abs error "
                               << compared.max_abs_error;
    EXPECT_EQ(functions_on(built, "c"), 0u);
    EXPECT_EQ(count(code(built), "dnnl_kernel_eltwise(&"), 1u);
    return built;
  }
};

TEST_F(DnnlEltwiseTest, RoundTakesHalvesToEven) {
  const float inf = std::numeric_limits<float>::infinity();
  check_on("round",
           {-3.5f, -2.5f, -1.5f, -0.5f, -0.0f, 0.5f, 1.5f, 2.5f, 3.5f, 0.49999997f, -0.49999997f,
            4194304.5f, 8388609.0f, 1e30f, inf, -inf, std::nanf("")},
           0);
}

TEST_F(DnnlEltwiseTest, PowerByAConstantIsPowOfEachValue) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {-3.0f, -2.0f, -1.5f, -1.0f, -0.5f, -0.0f, 0.0f, 0.25f,
                               0.5f,  1.0f,  1.5f,  2.0f,  7.0f,  1e20f, -inf, inf};
  for (float exponent : {2.0f, 3.0f, -1.0f, -2.0f, 0.0f, 1.0f, 1.5f, -0.5f, 2.5f}) {
    SCOPED_TRACE(exponent);
    // powf rounds within an ulp of std::pow's result, which the interpreter rounds to f32.
    check_on("power", values, 1.2e-7, exponent);
  }
  check_on("negative", values, 0);
  check_on("reciprocal", values, 0);
}

// What oneDNN 2.6's eltwise computes otherwise than the interpreter stays on the host, the
// partition report saying why.
TEST_F(DnnlEltwiseTest, WhatOneDnnComputesOtherwiseIsRefusedWithTheReason) {
  for (auto [op, reason] : {
           std::pair<std::string, std::string>{
               "log",
               "dnnl.eltwise: oneDNN's log is off by 1.4e-6 at log(1) = 0, where ONNX's tests "
               "allow 1e-7"},
           {"nn.softplus",
            "dnnl.eltwise: oneDNN's soft_relu is off by up to 7.6e-6 below x = -7.9, where "
            "softplus is under 3.7e-4 and ONNX's tests allow 1e-7 plus 1e-3 of it"},
           {"nn.hard_sigmoid",
            "dnnl.eltwise: nn.hard_sigmoid is two eltwise steps, which oneDNN fuses only after "
            "a convolution, dense layer or matrix product"},
       }) {
    auto m = model([&](Function& main, ModelBuilder& mb) {
      main.set_outputs(
          {mb.builder().value(op, {main.add_param(TensorType{DType::f32, {2, 8}}, "x")})});
    });
    EXPECT_EQ(refusal_of(*m, op), reason);
  }
  // power by a constant oneDNN does not compute as pow, or that is no single value.
  for (auto [exponent, reason] : {
           std::pair<Shape, std::string>{
               {},
               "dnnl.eltwise: power by 0.5: oneDNN computes sqrt(x), which is NaN at -inf "
               "where pow is +inf"},
           {{8},
            "dnnl.eltwise: power's exponent of shape 8 is no single value; oneDNN's pow takes "
            "one"},
       }) {
    auto m = model([&](Function& main, ModelBuilder& mb) {
      auto power = std::make_shared<Tensor>(TensorType{DType::f32, exponent});
      for (std::int64_t i = 0; i < power->num_elements(); ++i) power->set(i, 0.5);
      Value* x = main.add_param(TensorType{DType::f32, {2, 8}}, "x");
      main.set_outputs({mb.builder().value("power", {x, mb.builder().constant(power)})});
    });
    EXPECT_EQ(refusal_of(*m, "power"), reason);
  }
}

// An eltwise between two convolutions keeps their data channels last: it maps each value
// alone, so it computes the same on the data in either layout, as long as its result shares
// its data's. Returning its result too makes that plain, and with it the eltwise's data.
TEST_F(DnnlTest, AnEltwiseBetweenCompositesKeepsTheirLayout) {
  for (bool eltwise_returned : {false, true}) {
    SCOPED_TRACE(eltwise_returned);
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      Value* x = main.add_param(TensorType{DType::f32, {1, 8, 6, 6}}, "x");
      Value* h = mb.conv(x, {.out_channels = 8, .padding = {1, 1, 1, 1}, .bias_operand = true});
      Value* a = b.value("abs", {h});
      Value* y = mb.conv(a, {.out_channels = 8, .padding = {1, 1, 1, 1}, .bias_operand = true});
      main.set_outputs(eltwise_returned ? std::vector<Value*>{y, a} : std::vector<Value*>{y});
    });
    build::HostBuild built = check(*m, {"dnnl"});
    EXPECT_EQ(functions_on(built, "c"), 0u);
    std::string middle = eltwise_returned ? "plain" : "channels_last";
    EXPECT_EQ(layouts_after_partition(ctx, *m),
              (std::vector<std::string>{"dnnl.conv: plain -> " + middle,
                                        "dnnl.eltwise: " + middle + " -> " + middle,
                                        "dnnl.conv: " + middle + " -> plain"}));
  }
}

// A value a binary op reads as both operands (x * x) is read plain as the broadcast one, so
// it stays plain.
TEST_F(DnnlTest, AValueABinaryOpBroadcastsStaysPlain) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {1, 8, 6, 6}}, "x");
    Value* h = mb.conv(x, {.out_channels = 8, .kernel = 1, .bias_operand = true});
    Value* squared = mb.builder().value("multiply", {h, h});
    main.set_outputs({mb.conv(squared, {.out_channels = 8, .kernel = 1, .bias_operand = true})});
  });
  check(*m, {"dnnl"});
  EXPECT_EQ(
      layouts_after_partition(ctx, *m),
      (std::vector<std::string>{"dnnl.conv: plain -> plain", "dnnl.binary: plain -> channels_last",
                                "dnnl.conv: channels_last -> plain"}));
}

// Batch normalization with its statistics (and a relu after it), and layer normalization over
// the last axis or the last two, with and without a shift: each one call of dnnl.
TEST_F(DnnlTest, BatchAndLayerNormalizations) {
  struct Case {
    std::string op;
    Shape data;
    std::int64_t axis;
    std::vector<Shape> params;
    bool relu = false;  // then a relu: one primitive with the batch normalization
  };
  std::vector<Case> cases = {
      {"nn.batch_norm", {2, 8, 5, 5}, 1, {{8}, {8}, {8}, {8}}},
      {"nn.batch_norm", {1, 16, 6, 6}, 1, {{16}, {16}, {16}, {16}}, true},
      {"nn.batch_norm", {3, 6}, 1, {{6}, {6}, {6}, {6}}},
      {"nn.layer_norm", {2, 5, 24}, -1, {{24}, {24}}},
      {"nn.layer_norm", {2, 5, 4, 6}, 2, {{4, 6}, {4, 6}}},
      {"nn.layer_norm", {4, 16}, 1, {{16}}},
  };
  unsigned seed = 20;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + to_string(c.data));
    auto m = model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      std::vector<Value*> operands = {main.add_param(TensorType{DType::f32, c.data}, "x")};
      for (const Shape& shape : c.params) {
        TensorPtr random = test::random_tensor(shape, seed++);
        auto values = std::make_shared<Tensor>(TensorType{DType::f32, shape});
        // A variance is positive.
        bool variance = operands.size() == 4;
        for (std::int64_t i = 0; i < values->num_elements(); ++i)
          values->set(i, variance ? std::abs(random->get(i)) + 0.1 : random->get(i));
        operands.push_back(b.constant(values));
      }
      Value* y = b.value(c.op, operands, test::make_attrs({{"axis", c.axis}, {"epsilon", 1e-3}}));
      main.set_outputs({c.relu ? b.value("nn.relu", {y}) : y});
    });
    build::HostBuild built = check(*m, {"dnnl"});
    EXPECT_EQ(functions_on(built, "c"), 0u);
    EXPECT_EQ(count(code(built), "dnnl_kernel_eltwise(&"), 0u);
    std::string entry =
        c.op == "nn.batch_norm" ? "dnnl_kernel_batch_norm(&" : "dnnl_kernel_layer_norm(&";
    EXPECT_EQ(count(code(built), entry), 1u);
  }
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {2, 5, 24}}, "x");
    main.set_outputs({mb.builder().value("nn.layer_norm",
                                         {x, mb.builder().constant(test::random_tensor({1}, 3))})});
  });
  EXPECT_EQ(refusal_of(*m, "nn.layer_norm"),
            "dnnl.norm: the layer normalization's scale of shape 1 broadcasts; oneDNN takes one "
            "value per normalized element (24)");
}

// oneDNN 2.6 has only its reference softmax over an axis with others inside it: the
// predicate says so, and the host runs it.
TEST_F(DnnlTest, WhereOneDnnWouldRunItsReferenceTheHostRuns) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Value* x = main.add_param(TensorType{DType::f32, {2, 8, 7, 7}}, "x");
    main.set_outputs(
        {mb.builder().value("nn.softmax", {x}, test::make_attrs({{"axis", std::int64_t{1}}}))});
  });
  EXPECT_EQ(refusal_of(*copy(*m), "nn.softmax"),
            "dnnl.softmax: oneDNN would run its slow reference implementation (ref:any)");
  EXPECT_EQ(functions_on(check(*m, {"dnnl"}), "dnnl"), 0u);
}

// With vanilla first, vanilla takes the convolutions it computes and dnnl the depthwise one.
TEST_F(DnnlTest, BesideVanillaTheEarlierTargetWins) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.mobilenet(main.add_param(TensorType{DType::f32, {1, 3, 16, 16}}, "x"))});
  });
  build::HostBuild built = check(*m, {"vanilla", "dnnl"});
  std::string text = code(built);
  // dnnl: the depthwise convolution, and the global pool at the end.
  EXPECT_EQ(functions_on(built, "vanilla"), 2u);
  EXPECT_EQ(functions_on(built, "dnnl"), 2u);
  EXPECT_EQ(count(text, "dnnl_kernel_conv(&"), 1u);
}

// Two executors of one program: each makes its own primitives, and both give the result.
TEST_F(DnnlTest, TwoExecutorsOfOneProgramEachHaveTheirOwnPrimitives) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.resnet(main.add_param(TensorType{DType::f32, {1, 3, 8, 8}}, "x"))});
  });
  std::vector<TensorPtr> inputs = random_inputs(*m->find_function("main"), 3);
  auto expected = interpret(*m, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message();
  auto built = build::build(*m, {"dnnl"}, options());
  ASSERT_TRUE(built.ok()) << built.error().message();
  runtime::Executor first(built->program), second(built->program);
  for (runtime::Executor* executor : {&first, &second, &first}) {
    auto outputs = executor->run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().message();
    EXPECT_TRUE(compare_tensors(*(*outputs)[0], *(*expected)[0], 1e-4, 1e-5).ok());
  }
}

TEST_F(DnnlTest, ClaimsAConvolutionWithItsEpilogue) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, {1, 4, 8, 8}}, "x"),
                              {.out_channels = 8, .bias_add = true, .activation = "clip"})});
  });
  NodeRecord record = record_of(*m, "nn.conv2d");
  EXPECT_EQ(record.target, "dnnl");
  EXPECT_EQ(record.composite, "dnnl.conv");
}

TEST_F(DnnlTest, OtherDtypesAreRejectedWithTheReason) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs(
        {mb.conv(main.add_param(TensorType{DType::f16, {1, 4, 8, 8}}, "x"), {.out_channels = 8})});
  });
  EXPECT_EQ(refusal_of(*m, "nn.conv2d"),
            "dnnl.conv: f16 operands are not supported; the backend computes f32");
}

// With bf16, a convolution and a dense layer multiply in bfloat16: the results move off the
// f32 ones (else bf16 did nothing), by no more than bfloat16's 8 bits of mantissa allow.
TEST_F(DnnlTest, Bf16MultipliesInBfloat16) {
  auto m = model([&](Function& main, ModelBuilder& mb) {
    Builder& b = mb.builder();
    Value* x = main.add_param(TensorType{DType::f32, {1, 32, 8, 8}}, "x");
    Value* y = mb.conv(x, {.out_channels = 32,
                           .padding = {1, 1, 1, 1},
                           .bias_operand = true,
                           .activation = "nn.relu"});
    y = b.value("reshape", {y}, test::make_attrs({{"newshape", Ints{1, 32 * 8 * 8}}}));
    main.set_outputs({b.value("nn.dense", {y, b.constant(test::random_tensor({10, 2048}, 5))})});
  });
  std::vector<TensorPtr> inputs = random_inputs(*m->find_function("main"), 1);
  auto reference = interpret(*m, inputs);
  ASSERT_TRUE(reference.ok()) << reference.error().message();
  build::HostBuild built;
  auto ours = build_and_run(*copy(*m), {"dnnl --bf16"}, inputs, &built);
  ASSERT_TRUE(ours.ok()) << ours.error().message();
  EXPECT_EQ(functions_on(built, "c"), 1u);  // the reshape
  // Sums of products rounded to 8 bits: within 1% of the largest output.
  double largest = compare_tensors(*(*reference)[0], *(*reference)[0], 0, 0).max_expected;
  TensorComparison bf16 = compare_tensors(*(*ours)[0], *(*reference)[0], 1e-2, 1e-2 * largest);
  EXPECT_TRUE(bf16.ok()) << bf16.mismatches << " mismatch(es), max abs error " << bf16.max_abs_error
                         << " of max " << bf16.max_expected;
  EXPECT_GT(bf16.max_abs_error, 1e-4 * bf16.max_expected);
}

// max_isa keeps oneDNN to implementations of that instruction set or older ones.
TEST_F(DnnlTest, MaxIsaLimitsTheImplementations) {
  ConvCall call{.rank = 2, .batch = 1, .in_channels = 32, .out_channels = 32};
  call.in[0] = call.in[1] = call.out[0] = call.out[1] = 14;
  call.kernel[0] = call.kernel[1] = 3;
  call.pad_begin[0] = call.pad_begin[1] = call.pad_end[0] = call.pad_end[1] = 1;
  call.algorithm = dnnl_convolution_direct;
  // oneDNN has no convolution of AVX alone: the newest within it is SSE4.1's.
  for (auto [isa, implementation] :
       {std::pair<std::string, std::string>{"avx2", "jit:avx2"}, {"avx", "jit:sse41"}}) {
    auto targets = build::parse_targets(ctx, {"dnnl --max_isa=" + isa});
    ASSERT_TRUE(targets.ok()) << targets.error().message();
    Expected<Primitive> primitive = conv_primitive(call, targets->backends[0]);
    ASSERT_TRUE(primitive.ok()) << primitive.error().message();
    EXPECT_EQ(primitive->implementation, implementation);
  }
  auto m = model([&](Function& main, ModelBuilder& mb) {
    main.set_outputs({mb.resnet(main.add_param(TensorType{DType::f32, {1, 3, 8, 8}}, "x"))});
  });
  EXPECT_EQ(functions_on(check(*m, {"dnnl --max_isa=avx2"}), "dnnl"), 1u);
  auto bad = build::parse_targets(ctx, {"dnnl --max_isa=avx3"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find(
                "max_isa must be all or one of oneDNN's instruction sets (sse41, avx, avx2, "
                "avx2_vnni, avx512_core, avx512_core_vnni, avx512_core_bf16, avx512_core_amx), "
                "not 'avx3'"),
            std::string::npos)
      << bad.error().message();
}

// winograd=auto takes Winograd for 3x3 stride-1 layers of 64 channels or more; on for every
// 3x3 stride-1 layer; off never.
TEST_F(DnnlTest, WinogradAutoTakesTheWideLayers) {
  auto algorithm = [&](std::int64_t channels, const std::string& target) {
    auto m = model([&](Function& main, ModelBuilder& mb) {
      main.set_outputs({mb.conv(main.add_param(TensorType{DType::f32, {1, channels, 14, 14}}, "x"),
                                {.out_channels = channels, .padding = {1, 1, 1, 1}})});
    });
    auto targets = build::parse_targets(ctx, {target});
    EXPECT_TRUE(targets.ok());
    EXPECT_TRUE(build::partition_for_targets(*m, *targets).ok());
    for (Function* composite : m->functions()) {
      if (composite->attrs().string_or_none("Composite") != "dnnl.conv") continue;
      std::vector<const Node*> nodes;
      for (const auto& node : composite->nodes()) nodes.push_back(node.get());
      Expected<ConvCall> call = conv_call(nodes, targets->backends[0]);
      EXPECT_TRUE(call.ok());
      return call.ok() ? call->algorithm : std::int64_t{-1};
    }
    return std::int64_t{-1};
  };
  EXPECT_EQ(algorithm(64, "dnnl"), dnnl_convolution_winograd);
  EXPECT_EQ(algorithm(32, "dnnl"), dnnl_convolution_direct);
  EXPECT_EQ(algorithm(32, "dnnl --winograd=on"), dnnl_convolution_winograd);
  EXPECT_EQ(algorithm(64, "dnnl --winograd=off"), dnnl_convolution_direct);
}

// In a region with Winograd convolutions, data stays blocked by 16 channels (their own
// layout) from one composite to the next, with no reorder between; a value of 24 channels
// cannot be, and the convolutions beside it, given two layouts, would be oneDNN's reference
// ones: their values step down to channels last.
TEST_F(DnnlTest, DataStaysBlockedAroundWinogradConvolutions) {
  auto block = [&](bool narrow) {
    return model([&](Function& main, ModelBuilder& mb) {
      Builder& b = mb.builder();
      Value* x = main.add_param(TensorType{DType::f32, {1, 64, 14, 14}}, "x");
      ConvSpec wide{.out_channels = 64, .padding = {1, 1, 1, 1}, .activation = "nn.relu"};
      Value* a = mb.conv(x, wide);
      Value* c =
          narrow ? mb.conv(mb.conv(a, {.out_channels = 24, .kernel = 1}),
                           {.out_channels = 64, .kernel = 1})
                 : b.value("add", {mb.conv(a, {.out_channels = 64, .padding = {1, 1, 1, 1}}), a});
      main.set_outputs({b.value("nn.global_avg_pool", {c})});
    });
  };
  auto wide = block(false);
  build::HostBuild built = check(*wide, {"dnnl"});
  EXPECT_EQ(count(code(built), "dnnl_kernel_conv(&"), 2u);
  EXPECT_EQ(layouts_after_partition(ctx, *wide),
            (std::vector<std::string>{"dnnl.conv: plain -> blocked16",
                                      "dnnl.conv: blocked16 -> blocked16",
                                      "dnnl.pool: blocked16 -> plain"}));
  auto narrow = block(true);
  check(*narrow, {"dnnl"});
  EXPECT_EQ(layouts_after_partition(ctx, *narrow),
            (std::vector<std::string>{
                "dnnl.conv: plain -> channels_last", "dnnl.conv: channels_last -> channels_last",
                "dnnl.conv: channels_last -> channels_last", "dnnl.pool: channels_last -> plain"}));
}

TEST_F(DnnlTest, WinogradIsAutoOnOrOff) {
  auto parsed = build::parse_targets(ctx, {"dnnl --winograd=maybe"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message().find("winograd must be auto, on or off, not 'maybe'"),
            std::string::npos)
      << parsed.error().message();
}

}  // namespace
}  // namespace uma::backends::dnnl
