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
)");
}

// The target lets a layer through whose weights the model's 64 KiB weight memory does not
// hold: the load fails when the function runs, and its code reaches the caller.
TEST_F(UltraTrailBuildTest, AFailedLoadFailsTheRun) {
  Value* x = main.add_param(tensor({1, 64, 8}), "x");
  Value* w = b.constant(random_tensor({80, 64, 4}, 1));  // 81920 bytes
  main.set_outputs({b.create("nn.conv1d", {x, w}, conv_attrs({1}, {0, 0}), "big")->result()});
  auto built = build::build(module, {"ultra_trail --wmem_kb=128"}, options());
  ASSERT_TRUE(built.ok()) << built.error().message();
  runtime::Executor executor(built->program);
  auto outputs = executor.run(random_inputs(main, 1));
  ASSERT_FALSE(outputs.ok());
  // -2: the model's "does not fit" (kernels/ultra_trail.c), the first call that failed.
  EXPECT_EQ(outputs.error().message(),
            "the compiled function of @module_ultra_trail_main_0 returned -2");
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

TEST_F(UltraTrailBuildTest, BadTargetAttributesAreErrors) {
  conv1d_model();
  auto built = build::build(module, {"ultra_trail --dimension=0"}, options());
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().message(),
            "pass 'ultra-trail-config': target 'ultra_trail --dimension=0': attribute "
            "'dimension' must be in [1, 1024], not 0");
}

}  // namespace
}  // namespace uma::backends::ultra_trail::test
