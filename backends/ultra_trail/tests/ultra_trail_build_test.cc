// ultra_trail end to end: conv1d models built with uma::build::build for the accelerator's
// functional model, run, and compared with the reference interpreter on the module as it
// was; what the build offloads and why not; failures of the model reaching the caller.
#include <gtest/gtest.h>

#include <thread>

#include "tests/unit/build_check.h"
#include "ultra_trail_test_util.h"
#include "uma/partition/report.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"

namespace uma::backends::ultra_trail::test {
namespace {

class UltraTrailBuildTest : public UltraTrailTest {
 protected:
  // Builds @main for `targets`, runs it on random inputs and compares the outputs with the
  // interpreter's (run before the build, on the module as it was).
  build::HostBuild build_and_check(const std::vector<std::string>& targets,
                                   const build::BuildOptions& build_options) {
    return testing_build::build_and_check(
        main, 7, [&] { return build::build(module, targets, build_options); }, 1e-5, 1e-5);
  }

  // "<function>: <composite> <layer> <plan>" for each tiled call the report recorded.
  static std::vector<std::string> tilings_of(const PartitionReport& report) {
    std::vector<std::string> tilings;
    for (const TilingRecord& t : report.tilings())
      tilings.push_back(t.function + ": " + t.composite + " " + t.layer + " " + t.plan.summary());
    return tilings;
  }

  static std::vector<std::string> targets_of(const build::HostBuild& built) {
    std::vector<std::string> targets;
    for (const build::BuiltFunction& function : built.built)
      targets.push_back(function.name + " on " + function.target);
    return targets;
  }
};

TEST_F(UltraTrailBuildTest, TwoLayersRunOnTheAcceleratorAndTheAddOnTheHost) {
  conv1d_model(/*batch=*/2);
  build::HostBuild built = build_and_check({"ultra_trail"}, options());
  // Both layers in one function, which passes the first layer's features to the second
  // through a buffer of its own.
  EXPECT_EQ(targets_of(built), (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail",
                                                         "fused_add_0 on c"}));
}

// Each layer a function of its own, partitioned without binding constants, and the host's
// code in parallel loops.
TEST_F(UltraTrailBuildTest, OneFunctionPerLayerWithoutMergedRegions) {
  conv1d_model();
  build::BuildOptions o = options();
  o.merge_regions = false;
  o.bind_constants = false;
  build::HostBuild built = build_and_check({"ultra_trail", "c --threads=2"}, o);
  EXPECT_EQ(targets_of(built), (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail",
                                                         "module_ultra_trail_main_1 on ultra_trail",
                                                         "fused_add_0 on c"}));
}

// The first layer's result is an output of the function too: the host reads it, and the
// second layer loads it from there.
TEST_F(UltraTrailBuildTest, ALayersResultTheHostAlsoReads) {
  Value* relu1 = conv1d_model();
  main.set_outputs({main.outputs()[0], b.value("sigmoid", {relu1})});
  build::HostBuild built = build_and_check({"ultra_trail"}, options());
  EXPECT_EQ(targets_of(built),
            (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail",
                                      "fused_add_0 on c", "fused_sigmoid_1 on c"}));
}

// The channels span several blocks of the array (and end in a partial one), a layer reads
// the same input with padding on one side only, and a relu follows an added bias.
TEST_F(UltraTrailBuildTest, ChannelBlocksPaddingAndStridesMatchTheInterpreter) {
  Value* x = main.add_param(tensor({1, 19, 24}), "x");
  Value* w = b.constant(random_tensor({10, 19, 4}, 5));
  Value* conv = b.create("nn.conv1d", {x, w}, conv_attrs({3}, {0, 2}), "conv")->result();
  Value* bias = b.value("add", {b.constant(random_tensor({1, 10, 1}, 6)), conv});
  main.set_outputs({b.value("nn.relu", {bias})});
  build::HostBuild built = build_and_check({"ultra_trail --dimension=4"}, options());
  EXPECT_EQ(targets_of(built),
            (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail"}));
}

TEST_F(UltraTrailBuildTest, TheReportSaysWhatTheAcceleratorTookAndWhyNotTheRest) {
  conv1d_model();
  // A third conv1d with two groups, which the accelerator does not run.
  Value* y = main.outputs()[0];
  Value* wg = b.constant(random_tensor({4, 2, 1}, 9));
  main.set_outputs(
      {b.create("nn.conv1d", {y, wg}, conv_attrs({1}, {0, 0}, 2), "grouped")->result()});
  PartitionReport report;
  report.begin(module, {"ultra_trail"});
  build::BuildOptions o = options();
  o.report = &report;
  build_and_check({"ultra_trail"}, o);
  EXPECT_EQ(report.to_table(),
            R"(id  name     op         target       composite           other targets
0   conv1    nn.conv1d  ultra_trail  ultra_trail.conv1d
1   relu1    nn.relu    ultra_trail  ultra_trail.conv1d
2   conv2    nn.conv1d  ultra_trail  ultra_trail.conv1d
3   bias2    add        ultra_trail  ultra_trail.conv1d
4   plus42   add        host         -                   ultra_trail: no pattern matched (ultra_trail.conv1d: at operand 0 of node 'plus42' (add): expected nn.conv1d, found add)
5   grouped  nn.conv1d  host         -                   ultra_trail: predicate rejected (groups is 2; ultra_trail runs groups 1)

target       nodes      regions  MACs          bytes
ultra_trail  4 (66.7%)  1        2432 (97.4%)  2256 (88.5%)
host         2 (33.3%)  -        64 (2.6%)     292 (11.5%)
total        6          1        2496          2548

tiles
layer  composite           output  tile    tiles  buffering  wmem peak/capacity  fmem peak/capacity  bmem peak/capacity
  operand  role            memory  region  buffers  moves  transfers  bytes  halo bytes
conv1  ultra_trail.conv1d  1x8x16  1x8x16  1      single     288/65536           704/32768           32/2048
  x        features        fmem    1x3x16  1        1      1          192    0
  w1       weights         wmem    8x3x3   1        1      1          288    0
  b1       bias            bmem    8       1        1      1          32     0
  -        features (out)  fmem    1x8x16  1        1      1          512    0
conv2  ultra_trail.conv1d  1x4x8   1x4x8   1      single     640/65536           640/32768           16/2048
  -        features        fmem    1x8x16  1        1      1          512    0
  w2       weights         wmem    4x8x5   1        1      1          640    0
  b2       bias            bmem    4x1     1        1      1          16     0
  -        features (out)  fmem    1x4x8   1        1      1          128    0
)");
  // Each layer fits the memories whole.
  EXPECT_EQ(tilings_of(report),
            (std::vector<std::string>{
                "module_ultra_trail_main_0: ultra_trail.conv1d conv1 1x8x16 (1 tile, single buffered)",
                "module_ultra_trail_main_0: ultra_trail.conv1d conv2 1x4x8 (1 tile, single buffered)"}));
}

// A layer 40 times larger than the weight memory and 16 times the feature memory runs in
// tiles, each one call of the array on what the memories hold.
TEST_F(UltraTrailBuildTest, ALayerFarLargerThanItsMemoriesRunsInTiles) {
  Value* x = main.add_param(tensor({2, 32, 64}), "x");  // 16384 bytes
  // 64x32x5 weights: 40960 bytes.
  main.set_outputs({conv1d_layer(b, x, 64, 5, conv_attrs({1}, {2, 2}), 1)});
  PartitionReport report;
  build::BuildOptions o = options();
  o.report = &report;
  build::HostBuild built = build_and_check({"ultra_trail --fmem_kb=1 --wmem_kb=1"}, o);
  EXPECT_EQ(targets_of(built),
            (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail"}));
  ASSERT_EQ(report.tilings().size(), 1u);
  // Eleven output channels, sixteen steps of time, two input channels at a time (their
  // partial sums kept in fmem): 2 x 6 x 4 tiles of 16 chunks, two of each in memory.
  EXPECT_EQ(report.tilings()[0].plan.summary(),
            "1x11x16 (768 tiles, reduction 3 in chunks of 2, double buffered)");
}

// A layer whose smallest tile, one output of one channel summed over one input channel at
// a time, needs more than the feature memory (a window of its 256 taps, 1028 bytes with the
// output, in 1 KiB) stays on the host, and the report says why.
TEST_F(UltraTrailBuildTest, ALayerWhoseSmallestTileDoesNotFitStaysOnTheHost) {
  Value* x = main.add_param(tensor({1, 2, 260}), "x");
  Value* w = b.constant(random_tensor({8, 2, 256}, 1));
  main.set_outputs({b.create("nn.conv1d", {x, w}, conv_attrs({1}, {0, 0}), "big")->result()});
  PartitionReport report;
  build::BuildOptions o = options();
  o.report = &report;
  build::HostBuild built = build_and_check({"ultra_trail --fmem_kb=1"}, o);
  EXPECT_EQ(targets_of(built), (std::vector<std::string>{"fused_nn_conv1d_0 on c"}));
  EXPECT_EQ(report.to_table(),
            R"(id  name  op         target  composite  other targets
0   big   nn.conv1d  host    -          ultra_trail: predicate rejected (needs 1028 bytes of fmem at its smallest tile (1x1x1), has 1024)

target       nodes       regions  MACs            bytes
ultra_trail  0 (0.0%)    0        0 (0.0%)        0 (0.0%)
host         1 (100.0%)  -        20480 (100.0%)  16544 (100.0%)
total        1           0        20480           16544
)");
}

// Two models of one structure with different weights: the weights are passed by pointer,
// so both have the same code, and the object cache gives them one library. The
// accelerator's memories are each executor's state, so two executors run that library at
// once (a thread each), each to its own model's answer.
TEST_F(UltraTrailBuildTest, TwoExecutorsRunOneLibraryAtOnceOnDifferentWeights) {
  struct Model {
    std::unique_ptr<Module> module;
    std::vector<TensorPtr> inputs, reference;
    std::unique_ptr<runtime::Executor> executor;
  };
  auto make = [&](unsigned seed) {
    Model m{std::make_unique<Module>(ctx), {}, {}, nullptr};
    Function& f = *m.module->add_function("main").value();
    Builder fb(f);
    Value* x = f.add_param(tensor({2, 3, 16}), "x");
    Value* c1 = fb.create("nn.conv1d",
                          {x, fb.constant(random_tensor({8, 3, 3}, seed)),
                           fb.constant(random_tensor({8}, seed + 1))},
                          conv_attrs({1}, {1, 1}), "conv1")
                    ->result();
    Value* r1 = fb.create("nn.relu", {c1}, {}, "relu1")->result();
    f.set_outputs({fb.create("nn.conv1d", {r1, fb.constant(random_tensor({4, 8, 5}, seed + 2))},
                             conv_attrs({2}, {2, 1}), "conv2")
                       ->result()});
    m.inputs = random_inputs(f, seed);
    m.reference = interpret(f, m.inputs).value();
    auto built = build::build(*m.module, {"ultra_trail"}, options());
    EXPECT_TRUE(built.ok()) << built.error().message();
    if (!built.ok()) return m;
    EXPECT_EQ(targets_of(*built),
              (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail"}));
    auto executor = runtime::Executor::create(built->program);
    EXPECT_TRUE(executor.ok()) << executor.error().message();
    if (executor.ok()) m.executor = std::move(*executor);
    return m;
  };
  Model a = make(10), b = make(20);
  ASSERT_TRUE(a.executor && b.executor);
  ASSERT_EQ(a.executor->program().library->path(), b.executor->program().library->path());
  auto run = [](Model& m, int& mismatches) {
    for (int k = 0; k < 200; ++k) {
      auto outputs = m.executor->run(m.inputs);
      if (!outputs.ok() || !compare_tensors(*(*outputs)[0], *m.reference[0], 1e-5, 1e-5).ok())
        ++mismatches;
    }
  };
  int mismatches_a = 0, mismatches_b = 0;
  std::thread thread_a(run, std::ref(a), std::ref(mismatches_a));
  std::thread thread_b(run, std::ref(b), std::ref(mismatches_b));
  thread_a.join();
  thread_b.join();
  EXPECT_EQ(mismatches_a, 0);
  EXPECT_EQ(mismatches_b, 0);
}

// Each attribute out of its range is an error naming it: the array's, a memory's capacity,
// the DMA engine's.
TEST_F(UltraTrailBuildTest, BadTargetAttributesAreErrors) {
  conv1d_model();
  for (const auto& [target, message] : std::vector<std::pair<std::string, std::string>>{
           {"ultra_trail --dimension=0",
            "target 'ultra_trail --dimension=0': dimension must be between 1 and 1024, not 0"},
           {"ultra_trail --fmem_kb=0",
            "target 'ultra_trail --fmem_kb=0': attribute 'fmem_kb' must be in [1, 1048576], not "
            "0"},
           {"ultra_trail --dma_dims=0",
            "target 'ultra_trail --dma_dims=0': attribute 'dma_dims' must be in [1, 2], not 0"},
       }) {
    auto built = build::build(module, {target}, options());
    ASSERT_FALSE(built.ok()) << target;
    EXPECT_EQ(built.error().message(), message);
  }
}

// One model at feature memories of 32, 8, 2 and 1 KiB: ever more tiles, the interpreter's
// results at each size. The model is TC-ResNet8's stem and first block (1-D keyword
// spotting on 40 MFCC coefficients): four layers in one function, their tiles allocated one
// layer after the other.
TEST_F(UltraTrailBuildTest, SmallerFeatureMemoriesGiveMoreTilesAndTheSameResults) {
  std::vector<std::string> tiles;
  for (int kb : {32, 8, 2, 1}) {
    Module m(ctx);
    Function& f = *m.add_function("main").value();
    Builder fb(f);
    Value* x = f.add_param(tensor({1, 40, 101}), "x");
    Value* stem = conv1d_layer(fb, x, 16, 3, conv_attrs({1}, {1, 1}), 1, false);
    Value* y = conv1d_layer(fb, stem, 24, 9, conv_attrs({2}, {4, 4}), 3);
    y = conv1d_layer(fb, y, 24, 9, conv_attrs({1}, {4, 4}), 5);
    Value* shortcut = conv1d_layer(fb, stem, 24, 1, conv_attrs({2}, {0, 0}), 7);
    f.set_outputs({fb.value("add", {y, shortcut})});
    PartitionReport report;
    build::BuildOptions o = options();
    o.report = &report;
    std::string target = "ultra_trail --fmem_kb=" + std::to_string(kb);
    build::HostBuild built = testing_build::build_and_check(
        f, 7, [&] { return build::build(m, {target}, o); }, 1e-5, 1e-5);
    EXPECT_EQ(targets_of(built),
              (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail",
                                        "fused_add_0 on c"}))
        << target;
    std::string line = std::to_string(kb) + " KiB:";
    for (const TilingRecord& tiling : report.tilings()) line += " " + tiling.plan.summary();
    tiles.push_back(line);
  }
  // Per layer: stem, conv1, conv2, shortcut.
  EXPECT_EQ(tiles,
            (std::vector<std::string>{
                "32 KiB: 1x16x101 (1 tile, single buffered) 1x24x51 (1 tile, single buffered) "
                "1x24x51 (1 tile, single buffered) 1x24x51 (1 tile, single buffered)",
                "8 KiB: 1x16x15 (7 tiles, double buffered) 1x24x26 (2 tiles, single buffered) "
                "1x24x51 (3 tiles, reduction 3 in chunks of 8, double buffered) "
                "1x24x26 (2 tiles, single buffered)",
                "2 KiB: 1x16x3 (34 tiles, double buffered) 1x24x2 (26 tiles, double buffered) "
                "1x6x51 (48 tiles, reduction 3 in chunks of 2, double buffered) "
                "1x24x4 (13 tiles, double buffered)",
                "1 KiB: 1x8x17 (168 tiles, reduction 3 in chunks of 3, double buffered) "
                "1x8x17 (144 tiles, reduction 3 in chunks of 1, double buffered) "
                "1x5x26 (120 tiles, reduction 3 in chunks of 2, double buffered) "
                "1x24x2 (26 tiles, double buffered)",
            }));
}

// A batch of three, tiled.
TEST_F(UltraTrailBuildTest, ABatchOfThreeRunsInTiles) {
  Value* x = main.add_param(tensor({3, 16, 40}), "x");
  main.set_outputs({conv1d_layer(b, x, 24, 3, conv_attrs({1}, {1, 1}), 1)});
  PartitionReport report;
  build::BuildOptions o = options();
  o.report = &report;
  build::HostBuild built = build_and_check({"ultra_trail --fmem_kb=2"}, o);
  EXPECT_EQ(targets_of(built),
            (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail"}));
  ASSERT_EQ(report.tilings().size(), 1u);
  // Two samples, then one, in eight stripes of time each: fewer, larger moves than one sample
  // at a time double buffered.
  EXPECT_EQ(report.tilings()[0].plan.summary(), "2x24x5 (16 tiles, single buffered)");
}

// Stride 3 with more padding on the left than on the right, in tiles along time: the first
// tile reads three zeros on the left, the last one on the right, those between none.
TEST_F(UltraTrailBuildTest, StrideThreeWithAsymmetricPaddingRunsInTiles) {
  Value* x = main.add_param(tensor({1, 8, 199}), "x");
  main.set_outputs({conv1d_layer(b, x, 8, 5, conv_attrs({3}, {3, 1}), 1)});
  PartitionReport report;
  build::BuildOptions o = options();
  o.report = &report;
  build::HostBuild built = build_and_check({"ultra_trail --fmem_kb=1"}, o);
  EXPECT_EQ(targets_of(built),
            (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail"}));
  ASSERT_EQ(report.tilings().size(), 1u);
  // 67 outputs in stripes of 3.
  EXPECT_EQ(report.tilings()[0].plan.summary(), "1x8x3 (23 tiles, double buffered)");
}

// Channels that are no multiple of the array's side (13 in, 21 out, dimension 8), cut into
// slices of output channels that are no multiple of it either.
TEST_F(UltraTrailBuildTest, ChannelsNoMultipleOfTheDimensionRunInTiles) {
  Value* x = main.add_param(tensor({1, 13, 30}), "x");
  main.set_outputs({conv1d_layer(b, x, 21, 7, conv_attrs({1}, {3, 3}), 1)});
  PartitionReport report;
  build::BuildOptions o = options();
  o.report = &report;
  build::HostBuild built = build_and_check({"ultra_trail --wmem_kb=4"}, o);
  EXPECT_EQ(targets_of(built),
            (std::vector<std::string>{"module_ultra_trail_main_0 on ultra_trail"}));
  ASSERT_EQ(report.tilings().size(), 1u);
  // Slices of 11 and 10 output channels, a block of the array and a part of one; the 13 input
  // channels are a block and 5 more.
  EXPECT_EQ(report.tilings()[0].plan.summary(), "1x11x30 (2 tiles, single buffered)");
}

}  // namespace
}  // namespace uma::backends::ultra_trail::test
