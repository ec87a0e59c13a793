// The host build pipeline end to end: graph functions fused, lowered, generated as C,
// compiled, planned and run by the executor, compared with the reference interpreter.
#include "uma/uma/build.h"

#include <gtest/gtest.h>

#include <cmath>

#include "build_check.h"
#include "c_test_util.h"
#include "tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"

namespace uma::build {
namespace {

using test::random_tensor;

Type tensor(Shape shape, DType dtype = DType::f32) { return TensorType{dtype, std::move(shape)}; }

class HostBuildTest : public ::testing::Test {
 protected:
  HostBuildTest() : module(ctx), main(*module.add_function("main").value()), b(main) {}

  BuildOptions options(std::size_t functions_per_file = 16) {
    BuildOptions o;
    o.compiler.cache_dir = testing_c::run_cache_dir();
    o.passes.verify_each = true;
    o.functions_per_file = functions_per_file;
    return o;
  }

  // Builds @main for the host alone, runs it on random inputs and compares every output with
  // the interpreter's (run before the build, on the module as it was).
  HostBuild build_and_check(int threads, const BuildOptions& build_options) {
    return testing_build::build_and_check(
        main, 1,
        [&] { return build(module, {fmt::format("c --threads={}", threads)}, build_options); },
        1e-5, 1e-6);
  }
  HostBuild build_and_check(int threads = 1) { return build_and_check(threads, options()); }

  // conv(3x3, padding 1) + bias, relu, conv(3x3, stride 2) + bias, relu, max pool: a chain of
  // three fused functions with weights from the blob.
  Value* conv_chain(Value* x) {
    Value* w1 = b.constant(random_tensor({4, 3, 3, 3}, 1));
    Value* b1 = b.constant(random_tensor({4}, 2));
    Value* c1 = b.value("nn.conv2d", {x, w1, b1},
                        test::make_attrs({{"padding", std::vector<std::int64_t>{1, 1, 1, 1}}}));
    Value* r1 = b.value("nn.relu", {c1});
    Value* w2 = b.constant(random_tensor({6, 4, 3, 3}, 3));
    Value* c2 = b.value("nn.conv2d", {r1, w2},
                        test::make_attrs({{"strides", std::vector<std::int64_t>{2, 2}}}));
    Value* b2 = b.constant(random_tensor({1, 6, 1, 1}, 4));
    Value* r2 = b.value("nn.relu", {b.value("add", {c2, b2})});
    return b.value("nn.max_pool2d", {r2},
                   test::make_attrs({{"pool_size", std::vector<std::int64_t>{2, 2}}}));
  }

  Context ctx;
  Module module;
  Function& main;
  Builder b;
};

TEST_F(HostBuildTest, ConvolutionChainMatchesTheInterpreter) {
  main.set_outputs({conv_chain(main.add_param(tensor({1, 3, 9, 9}), "x"))});
  HostBuild built = build_and_check();
  ASSERT_NE(built.program, nullptr);
  EXPECT_EQ(built.functions, 3u);
  EXPECT_EQ(built.program->calls.size(), 3u);
  // Two intermediates (1x4x9x9 and 1x6x4x4 floats) that one call reads and writes: nothing
  // to reuse; the second starts at the 64-byte boundary after the first's 1296 bytes.
  EXPECT_EQ(built.memory.buffers, 2u);
  EXPECT_EQ(built.memory.total, 1296 + 384);
  EXPECT_EQ(built.memory.lower_bound, 1296 + 384);
  EXPECT_EQ(built.memory.arena_size, 1344 + 384);
  // Weights: the kernels (4x3x3x3 and 6x4x3x3 floats); the biases (at most 8 elements) are
  // immediates in the code.
  EXPECT_EQ(built.program->weights.size(), 432 + 864);
  std::vector<std::string> stages;
  for (const StageTiming& t : built.timings) stages.push_back(t.stage);
  EXPECT_EQ(stages, (std::vector<std::string>{"fuse-ops", "lower", "tir", "codegen", "plan",
                                              "compile", "load"}));
}

TEST_F(HostBuildTest, ArenaReusesTheBytesOfDeadIntermediates) {
  // Four softmaxes in a row: four calls, three intermediates of which two live at once.
  Value* v = main.add_param(tensor({4, 64}), "x");
  for (int i = 0; i < 4; ++i) v = b.value("nn.softmax", {v});
  main.set_outputs({v});
  HostBuild built = build_and_check();
  ASSERT_NE(built.program, nullptr);
  EXPECT_EQ(built.program->calls.size(), 4u);
  EXPECT_EQ(built.memory.buffers, 3u);
  EXPECT_EQ(built.memory.total, 3 * 1024);
  EXPECT_EQ(built.memory.lower_bound, 2 * 1024);
  EXPECT_EQ(built.memory.arena_size, 2 * 1024);
}

TEST_F(HostBuildTest, OutputsNoCallWrites) {
  // An input, a weight, a computed value twice, a tuple's field.
  Value* x = main.add_param(tensor({2, 5}), "x");
  Value* w = b.constant(random_tensor({2, 5}, 9));
  Value* sum = b.value("add", {x, w});
  Value* pair = b.tuple({sum, x});
  Value* second = b.get_item(pair, 1);
  Value* product = b.value("multiply", {second, b.get_item(pair, 0)});
  main.set_outputs({x, w, sum, sum, product, pair});
  HostBuild built = build_and_check();
  ASSERT_NE(built.program, nullptr);
  EXPECT_EQ(built.program->outputs.size(), 7u);  // the tuple output is flattened
  EXPECT_EQ(built.program->calls.size(), 2u);
  EXPECT_EQ(built.memory.buffers, 0u);  // every computed value is an output
}

TEST_F(HostBuildTest, OnlyInputsAndWeights) {
  Value* x = main.add_param(tensor({3}), "x");
  main.set_outputs({b.constant(random_tensor({20}, 5)), x});
  HostBuild built = build_and_check();
  ASSERT_NE(built.program, nullptr);
  EXPECT_TRUE(built.program->calls.empty());
  EXPECT_EQ(built.program->copies.size(), 2u);
}

TEST_F(HostBuildTest, ThreadsMakeParallelLoops) {
  // The convolutions store 4 * 48 * 48 * 28 and 6 * 23 * 23 * 37 elements, enough work for
  // threads; the pool (6 * 11 * 11 * 5) stays serial.
  main.set_outputs({conv_chain(main.add_param(tensor({1, 3, 48, 48}), "x"))});
  HostBuild built = build_and_check(2);
  ASSERT_NE(built.program, nullptr);
  EXPECT_EQ(built.program->threads, 2);
  ASSERT_EQ(built.sources.size(), 1u);
  const std::string& code = built.sources[0].code;
  std::size_t loops = 0;
  for (std::size_t at = code.find("#pragma omp parallel for"); at != std::string::npos;
       at = code.find("#pragma omp parallel for", at + 1))
    ++loops;
  EXPECT_EQ(loops, 2u) << code;
}

TEST_F(HostBuildTest, OneThreadIsStillSaid) {
  // Libraries the code calls that use OpenMP would take every core otherwise.
  main.set_outputs({conv_chain(main.add_param(tensor({1, 3, 9, 9}), "x"))});
  HostBuild built = build_and_check(1);
  ASSERT_NE(built.program, nullptr);
  EXPECT_EQ(built.program->threads, 1);
}

TEST_F(HostBuildTest, SeveralFilesOfFunctions) {
  main.set_outputs({conv_chain(main.add_param(tensor({1, 3, 9, 9}), "x"))});
  HostBuild built = build_and_check(1, options(2));
  EXPECT_EQ(built.sources.size(), 2u);
}

TEST_F(HostBuildTest, LargeIntermediatesOfAFunctionComeFromTheArena) {
  // The convolution's result (1x8x32x32 floats, 32 KiB: more than the C stack takes) is an
  // intermediate of the fused function, since a reshape is no epilogue of it.
  Value* x = main.add_param(tensor({1, 2, 32, 32}), "x");
  Value* w = b.constant(random_tensor({8, 2, 3, 3}, 6));
  Value* conv = b.value("nn.conv2d", {x, w},
                        test::make_attrs({{"padding", std::vector<std::int64_t>{1, 1, 1, 1}}}));
  main.set_outputs({b.value("reshape", {conv},
                            test::make_attrs({{"newshape", std::vector<std::int64_t>{8, 1024}}}))});
  HostBuild built = build_and_check();
  ASSERT_NE(built.program, nullptr);
  ASSERT_EQ(built.program->calls.size(), 1u);
  EXPECT_EQ(built.program->calls[0].args.size(), 4u);  // x, w, the output, the workspace
  EXPECT_EQ(built.memory.buffers, 1u);
  EXPECT_EQ(built.memory.arena_size, 32768);
  for (const runtime::CSourceFile& file : built.sources)
    EXPECT_EQ(file.code.find("uma_alloc("), std::string::npos) << file.code;
}

TEST_F(HostBuildTest, ScalarOutputsOfRankZero) {
  // A sum over every axis without keepdims is a 0-d tensor: lowering reads and writes its
  // rank-0 buffer with no indices, through the phases (parallelize-blocks too) to the C.
  Value* x = main.add_param(tensor({3, 4, 5}), "x");
  Value* total = b.value("sum", {x}, test::make_attrs({{"keepdims", std::int64_t{0}}}));
  Value* y = main.add_param(tensor({}), "y");
  main.set_outputs({total, b.value("multiply", {total, y}), b.value("nn.relu", {y})});
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    HostBuild built = build_and_check(threads);
    ASSERT_NE(built.program, nullptr);
    EXPECT_EQ(built.program->outputs.size(), 3u);
  }
}

TEST_F(HostBuildTest, Errors) {
  Value* x = main.add_param(tensor({3}), "x");
  main.set_outputs({b.value("nn.relu", {x})});
  auto zero = build(module, {"c --threads=0"}, options());
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message(), "target 'c --threads=0': threads must be in [1, 1024], not 0");

  Module empty(ctx);
  auto no_main = build(empty, {}, options());
  ASSERT_FALSE(no_main.ok());
  EXPECT_EQ(no_main.error().message(), "the module has no function @main to build");
}

TEST_F(HostBuildTest, HostCanCallOnlyFusedOrPartitionedFunctions) {
  Function& helper = *module.add_function("helper").value();
  Value* p = helper.add_param(tensor({3}), "p");
  Builder hb(helper);
  helper.set_outputs({hb.value("nn.relu", {p})});
  Value* x = main.add_param(tensor({3}), "x");
  Node* call = b.call(&helper, {x});
  call->set_name("call_helper");
  main.set_outputs({call->result()});
  auto built = lower_calls(main);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().message(),
            "node 'call_helper' (call): calls @helper, which is neither a fused (Primitive) nor "
            "a partitioned function; the host runs only those");
}

TEST_F(HostBuildTest, AnOpLeftInTheHostIsAnError) {
  Value* x = main.add_param(tensor({3}), "x");
  Node* relu = b.create("nn.relu", {x}, {}, "r");
  main.set_outputs({relu->result()});
  auto planned = plan_host(main, {});
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.error().message(),
            "node 'r' (nn.relu): the host can only call functions, but op nn.relu is outside any "
            "(run fuse-ops first)");
  // Unless the outputs do not need it: dead nodes are left out.
  main.set_outputs({x});
  b.value("nn.relu", {relu->result()});
  auto dead = plan_host(main, {});
  ASSERT_TRUE(dead.ok()) << dead.error().message();
  EXPECT_TRUE(dead->program->calls.empty());
  EXPECT_EQ(dead->program->copies.size(), 1u);
}

// A host backend of the test's own: the kind "c" with its threads, and a schedule that
// splits the innermost loop of each relu block by 4.
class SplitHost : public Backend {
 public:
  SplitHost() : Backend("c") {
    declare_host();
    add_int_attr("threads", 1);
    add_schedule("relu",
                 [](tir::Schedule& schedule, const tir::BlockRef& block, const Target&) -> Status {
                   UMA_TRY_ASSIGN(std::vector<tir::LoopRef> loops, schedule.get_loops(block));
                   UMA_TRY_ASSIGN(auto split, schedule.split(loops.back(), 4));
                   (void)split;
                   return Status::success();
                 });
  }
};

// The host's backend builds the fused functions: its block schedule shapes their loops. A
// context has one host's backend.
TEST(HostBackendTest, ItsBlockSchedulesShapeTheFusedFunctions) {
  Context ctx(std::make_unique<SplitHost>());
  Module module(ctx);
  Function& main = *module.add_function("main").value();
  Builder b(main);
  main.set_outputs({b.value("nn.relu", {main.add_param(tensor({2, 8}), "x")})});
  BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  options.passes.verify_each = true;
  HostBuild built = testing_build::build_and_check(
      main, 1, [&] { return build(module, {}, options); }, 1e-6, 1e-7);
  ASSERT_EQ(built.sources.size(), 1u);
  EXPECT_EQ(built.built[0].target, "c");
  const std::string& code = built.sources[0].code;
  EXPECT_NE(code.find("/* block relu */"), std::string::npos) << code;
  EXPECT_NE(code.find("< 4; ++"), std::string::npos) << code;

  Status second = register_backend(ctx, std::make_unique<SplitHost>());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(), "backend 'c': the context's host backend is 'c' already");
}

}  // namespace
}  // namespace uma::build
