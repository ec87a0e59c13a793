// The UMA backend interface end to end with two small backends declared here: registration
// and its errors, priority between targets, the graph phases in order with the build's
// target, strategies that stay inside their own target's functions, loop-IR passes, codegen
// hooks and extra C sources, each build checked against the reference interpreter.
#include "uma/uma/build.h"

#include <gtest/gtest.h>

#include "build_check.h"
#include "c_test_util.h"
#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/lower/compute_util.h"
#include "uma/partition/report.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/support/file.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"

namespace uma::build {
namespace {

using Log = std::vector<std::string>;

constexpr const char* kAlphaKernel = R"(#include <stdint.h>
int32_t alpha_relu_kernel(const float* in, float* out, int64_t rows, int64_t cols,
                          int64_t scale) {
  if (scale < 1) return -1;
  for (int64_t i = 0; i < rows * cols; ++i) out[i] = in[i] > 0 ? in[i] : 0;
  return 0;
}
)";

// alpha: takes each nn.relu, with a strategy of its own for it (a block "alpha_relu") that
// a phase-0 pass hands to a C kernel, printed with the target's `scale`.
class Alpha : public Backend {
 public:
  Alpha(Log& log, const std::string& include_dir) : Backend("alpha") {
    add_int_attr("scale", 1, "passed to the kernel");
    add_bool_attr("refuse", false, "reject every match");
    add_pattern("relu", is_op("nn.relu", {wildcard()}),
                [](const Match&, const Target& target) -> Status {
                  if (target.get_bool("refuse").value())
                    return make_error("alpha refuses (refuse=true)");
                  return Status::success();
                });
    for (GraphPhase phase : {GraphPhase::kPrePartitioning, GraphPhase::kPostPartitioning0,
                             GraphPhase::kPostPartitioning1})
      add_graph_pass(phase, "alpha-log", [&log, phase](Module&, const Target& target) {
        log.push_back(fmt::format("{} alpha: {}", graph_phase_name(phase), target.str()));
        return Expected<bool>(false);
      });
    add_strategy("nn.relu",
                 [](const Node& node, const std::vector<lower::TensorView>& in,
                    lower::ComputeBuilder&, const Target&) -> Expected<std::vector<lower::Stage>> {
                   const lower::TensorView& x = in[0];
                   lower::Stage stage{.name = "alpha_relu",
                                      .dtype = x.dtype,
                                      .shape = node.result(0)->type().tensor().shape};
                   stage.element = [x](const lower::Indices& i) {
                     return tir::max(x.at(i), lower::constant(x.dtype, 0));
                   };
                   return std::vector<lower::Stage>{std::move(stage)};
                 });
    add_tir_pass(TirPhase::k0, "alpha-offload",
                 [&log](const tir::PrimFunc& func, const Target&) -> Expected<tir::PrimFunc> {
                   log.push_back("TIR_PHASE_0 alpha: " + func.name);
                   tir::Schedule schedule(func);
                   Expected<tir::BlockRef> block = schedule.get_block("alpha_relu");
                   if (!block) return func;
                   UMA_TRY(schedule.replace_with_extern(*block, "alpha_relu_kernel"));
                   return schedule.func();
                 });
    add_tir_pass(TirPhase::k3, "alpha-log", [&log](const tir::PrimFunc& func, const Target&) {
      log.push_back("TIR_PHASE_3 alpha: " + func.name);
      return Expected<tir::PrimFunc>(func);
    });
    add_c_source("alpha_kernel", kAlphaKernel);
    // The header declares the kernel, so the generated code declares no prototype of its own.
    set_declare_externs(false);
    add_include_dir(include_dir);
    add_include("alpha.h");
    set_extern_printer([](const tir::CallNode& call, const codegen::CExprPrinter& print,
                          const Target& target) -> std::optional<std::string> {
      if (call.name != "alpha_relu_kernel") return std::nullopt;
      std::string text = "alpha_relu_kernel(";
      for (const tir::Expr& arg : call.args) text += print(arg) + ", ";
      return text + std::to_string(target.get_int("scale").value()) + ")";
    });
  }
};

// beta: takes sigmoid followed by relu, with the default computes.
class Beta : public Backend {
 public:
  explicit Beta(Log& log) : Backend("beta") {
    add_pattern("sigmoid_relu", is_op("nn.relu", {is_op("sigmoid", {wildcard()})}));
    add_graph_pass(GraphPhase::kPostPartitioning0, "beta-log", [&log](Module&, const Target& t) {
      log.push_back("POST_PARTITIONING_0 beta: " + t.str());
      return Expected<bool>(false);
    });
  }
};

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

class UmaBuildTest : public ::testing::Test {
 protected:
  UmaBuildTest() : module(ctx), main(*module.add_function("main").value()), b(main) {
    std::string dir = testing_c::fresh_dir("alpha-include");
    EXPECT_TRUE(write_file(dir + "/alpha.h",
                           "#include <stdint.h>\nint32_t alpha_relu_kernel(const float*, float*, "
                           "int64_t, int64_t, int64_t);\n")
                    .ok());
    EXPECT_TRUE(register_backend(ctx, std::make_unique<Alpha>(log, dir)).ok());
    EXPECT_TRUE(register_backend(ctx, std::make_unique<Beta>(log)).ok());
    // x → relu → sigmoid → relu → + x
    Value* x = main.add_param(tensor({2, 8}), "x");
    Value* r1 = b.value("nn.relu", {x});
    Value* r2 = b.value("nn.relu", {b.value("sigmoid", {r1})});
    main.set_outputs({b.value("add", {r2, x})});
  }

  // Builds for `targets`, runs, compares with the interpreter; which target runs each
  // function ("name:target").
  std::vector<std::string> build_and_check(const std::vector<std::string>& targets) {
    BuildOptions options;
    options.compiler.cache_dir = testing_c::run_cache_dir();
    options.passes.verify_each = true;
    built = testing_build::build_and_check(
        main, 3, [&] { return build(module, targets, options); }, 1e-6, 1e-7);
    std::vector<std::string> placed;
    for (const BuiltFunction& function : built.built)
      placed.push_back(function.name + ":" + function.target);
    return placed;
  }

  // The generated C of one target's files.
  std::string code_of(const std::string& target) const {
    std::string code;
    for (const runtime::CSourceFile& file : built.sources)
      if (file.name.starts_with(target + "_")) code += file.code;
    return code;
  }

  Log log;
  Context ctx;
  Module module;
  Function& main;
  Builder b;
  HostBuild built;
};

TEST_F(UmaBuildTest, EarlierTargetsWin) {
  // alpha first: it takes both relus; beta's sigmoid → relu finds its relu taken.
  EXPECT_EQ(build_and_check({"alpha", "beta"}),
            (std::vector<std::string>{"module_alpha_main_0:alpha", "fused_sigmoid_0:c",
                                      "module_alpha_main_1:alpha", "fused_add_1:c"}));
}

#if defined(__x86_64__)
TEST_F(UmaBuildTest, TheHostCpuAndFeaturesBecomeCompilerFlags) {
  // The baseline x86-64, with one extension on and one off: builds and runs.
  EXPECT_EQ(build_and_check({"c --mcpu=x86-64 --mattr=+sse4.1,-avx"}),
            (std::vector<std::string>{"fused_nn_relu_sigmoid_nn_relu_add_0:c"}));
}
#endif

TEST_F(UmaBuildTest, LaterTargetsGetWhatEarlierOnesLeave) {
  EXPECT_EQ(build_and_check({"beta", "alpha"}),
            (std::vector<std::string>{"module_alpha_main_0:alpha", "module_beta_main_1:beta",
                                      "fused_add_0:c"}));
}

TEST_F(UmaBuildTest, PhasesRunInOrderWithTheBuildsTargets) {
  build_and_check({"beta", "alpha --scale=3", "c --threads=1"});
  EXPECT_EQ(log, (Log{"PRE_PARTITIONING alpha: alpha --scale=3", "POST_PARTITIONING_0 beta: beta",
                      "POST_PARTITIONING_0 alpha: alpha --scale=3",
                      "POST_PARTITIONING_1 alpha: alpha --scale=3",
                      "TIR_PHASE_0 alpha: module_alpha_main_0",
                      "TIR_PHASE_3 alpha: module_alpha_main_0"}));
}

TEST_F(UmaBuildTest, StrategyAndHooksStayInsideTheirTarget) {
  build_and_check({"beta", "alpha --scale=3"});
  // alpha's relu is its own block, handed to its kernel, printed with the target's scale.
  std::string alpha = code_of("alpha");
  EXPECT_NE(alpha.find("#include \"alpha.h\""), std::string::npos);
  EXPECT_NE(alpha.find("/* block alpha_relu */\n    alpha_relu_kernel(&x[0], &out[0], 2, 8, 3);"),
            std::string::npos)
      << alpha;
  // beta's relu and the host's code keep the default compute, and none of alpha's hooks.
  for (std::string target : {"beta", "host"}) {
    std::string code = code_of(target);
    EXPECT_FALSE(code.empty()) << target;
    EXPECT_EQ(code.find("alpha"), std::string::npos) << code;
  }
  EXPECT_NE(code_of("beta").find("/* block relu */"), std::string::npos);
}

TEST_F(UmaBuildTest, PredicatesSeeTheBuildsTargetAndTheReportSaysWhy) {
  PartitionReport report;
  BuildOptions options{.report = &report};
  BuildTargets targets = parse_targets(ctx, {"alpha --refuse", "beta"}).value();
  ASSERT_TRUE(partition_for_targets(module, targets, options).ok());
  std::string table = report.to_table();
  EXPECT_NE(table.find("alpha: predicate rejected (alpha refuses (refuse=true))"),
            std::string::npos)
      << table;
  std::string text = to_string(module);
  EXPECT_EQ(text.find("Compiler = \"alpha\""), std::string::npos) << text;
  EXPECT_NE(text.find("Compiler = \"beta\""), std::string::npos) << text;
}

TEST_F(UmaBuildTest, PartitionEqualsTheHandAssembledPasses) {
  Context other_ctx;
  Log other_log;
  ASSERT_TRUE(register_backend(other_ctx, std::make_unique<Alpha>(other_log, "/tmp")).ok());
  ASSERT_TRUE(register_backend(other_ctx, std::make_unique<Beta>(other_log)).ok());
  auto by_hand = parse_module(other_ctx, to_string(module)).value();
  ASSERT_TRUE(partition_for_targets(module, parse_targets(ctx, {"beta", "alpha"}).value()).ok());
  auto passes = parse_pipeline(other_ctx.passes(),
                               "merge-composite{targets=beta,alpha},"
                               "annotate-target{targets=beta,alpha},merge-compiler-regions,"
                               "partition-graph");
  ASSERT_TRUE(passes.ok()) << passes.error().message();
  ASSERT_TRUE(passes->run(*by_hand).ok());
  EXPECT_EQ(to_string(module), to_string(*by_hand));
}

TEST_F(UmaBuildTest, BadTargetListsAreClearErrors) {
  auto error = [&](std::vector<std::string> texts) {
    Expected<BuildTargets> targets = parse_targets(ctx, texts);
    return targets.ok() ? std::string("ok") : targets.error().message();
  };
  EXPECT_EQ(error({"gamma"}),
            "target 'gamma': unknown target kind 'gamma' (known: alpha, beta, c)");
  EXPECT_EQ(error({"alpha", "alpha --scale=2"}),
            "target 'alpha --scale=2': target kind 'alpha' is named twice");
  EXPECT_EQ(error({"c", "c --threads=2"}),
            "target 'c --threads=2': a second host target (the first is 'c')");
  EXPECT_EQ(error({"alpha --scale=x"}),
            "target 'alpha --scale=x': attribute 'scale' is an int, not 'x'");
  ASSERT_TRUE(ctx.target_kinds().add({"bare", {}}).ok());
  EXPECT_EQ(error({"bare"}), "target 'bare': target kind 'bare' has no backend");
  // Targets made by hand, without parse_targets, are checked by the build too.
  BuildTargets by_hand{{ctx.target_kinds().parse("bare").value()},
                       ctx.target_kinds().parse("c").value()};
  EXPECT_EQ(build(module, by_hand).error().message(),
            "target 'bare': target kind 'bare' has no backend");
  EXPECT_EQ(error({"c --threads=2"}), "ok");
  auto threads = build(module, {"c --threads=0"});
  EXPECT_EQ(threads.error().message(),
            "target 'c --threads=0': threads must be in [1, 1024], not 0");
}

// A backend whose declarations the test sets.
class Custom : public Backend {
 public:
  explicit Custom(std::string name) : Backend(std::move(name)) {}
  using Backend::add_int_attr;
  using Backend::add_pattern;
  using Backend::add_schedule;
  using Backend::add_strategy;
  using Backend::add_tir_pass;
};

TEST_F(UmaBuildTest, BadBackendsAreRefusedAndRegisterNothing) {
  auto error = [&](std::unique_ptr<Backend> backend) {
    Status status = register_backend(ctx, std::move(backend));
    return status.ok() ? std::string("ok") : status.error().message();
  };
  EXPECT_EQ(error(std::make_unique<Alpha>(log, "/tmp")),
            "backend 'alpha': a partition target of that name is registered already");
  EXPECT_EQ(error(std::make_unique<Custom>("c")),
            "backend 'c': target kind 'c' is registered already");
  auto shadow = std::make_unique<Custom>("delta");
  shadow->add_int_attr("device", 1);
  EXPECT_EQ(error(std::move(shadow)),
            "backend 'delta': target kind 'delta': attribute 'device' shadows the standard "
            "attribute of that name");
  auto twice = std::make_unique<Custom>("delta");
  twice->add_pattern("p", is_op("nn.relu"));
  twice->add_pattern("p", is_op("add"));
  EXPECT_EQ(error(std::move(twice)), "backend 'delta': pattern 'p' is declared twice");
  auto unknown_op = std::make_unique<Custom>("delta");
  unknown_op->add_strategy("nn.relu6", {});
  EXPECT_EQ(error(std::move(unknown_op)), "backend 'delta': strategy for 'nn.relu6': no such op");
  auto no_compute = std::make_unique<Custom>("delta");
  no_compute->add_strategy("nn.relu", {});
  EXPECT_EQ(error(std::move(no_compute)), "backend 'delta': strategy for 'nn.relu' has no compute");
  auto no_pass = std::make_unique<Custom>("delta");
  no_pass->add_tir_pass(TirPhase::k2, "", {});
  EXPECT_EQ(error(std::move(no_pass)),
            "backend 'delta': a loop-IR pass at TIR_PHASE_2 has no name or no function");
  EXPECT_EQ(error(nullptr), "register_backend: the backend is null");
  // Nothing of the refused ones was registered: "delta" is still free.
  EXPECT_EQ(error(std::make_unique<Custom>("delta")), "ok");
  EXPECT_EQ(ctx.backends().names(), (std::vector<std::string>{"alpha", "beta", "c", "delta"}));
}

// A strategy's schedule runs on the lowered functions of its target that hold its op, with
// the build's target: here it splits the relu's inner loop by the target's `split`.
TEST_F(UmaBuildTest, AStrategysScheduleShapesItsTargetsLoops) {
  auto gamma = std::make_unique<Custom>("gamma");
  gamma->add_int_attr("split", 2);
  gamma->add_pattern("sigmoid", is_op("sigmoid", {wildcard()}));
  gamma->add_strategy(
      "sigmoid",
      [](const Node& node, const std::vector<lower::TensorView>& in, lower::ComputeBuilder&,
         const Target&) -> Expected<std::vector<lower::Stage>> {
        lower::TensorView x = in[0];
        lower::Stage stage{.name = "gamma_sigmoid",
                           .dtype = x.dtype,
                           .shape = node.result(0)->type().tensor().shape};
        stage.element = [x](const lower::Indices& i) {
          return lower::intrinsic("sigmoid", {x.at(i)});
        };
        return std::vector<lower::Stage>{std::move(stage)};
      },
      [](tir::Schedule& schedule, const Target& target) -> Status {
        UMA_TRY_ASSIGN(tir::BlockRef block, schedule.get_block("gamma_sigmoid"));
        UMA_TRY_ASSIGN(std::vector<tir::LoopRef> loops, schedule.get_loops(block));
        UMA_TRY_ASSIGN(std::int64_t factor, target.get_int("split"));
        UMA_TRY_ASSIGN(auto split, schedule.split(loops.back(), factor));
        (void)split;
        return Status::success();
      });
  ASSERT_TRUE(register_backend(ctx, std::move(gamma)).ok());
  build_and_check({"gamma --split=4"});
  std::string code = code_of("gamma");
  EXPECT_NE(code.find("/* block gamma_sigmoid */"), std::string::npos) << code;
  EXPECT_NE(code.find("< 4; ++"), std::string::npos) << code;
}

// A block schedule runs on the block of its name in each function of its target, whatever
// compute made the block, with the build's target; the host's block of that name keeps its
// loops.
TEST_F(UmaBuildTest, ABlockScheduleShapesItsTargetsBlocksOfThatName) {
  auto gamma = std::make_unique<Custom>("gamma");
  gamma->add_int_attr("split", 2);
  gamma->add_pattern("relu", is_op("nn.relu", {is_op("sigmoid", {wildcard()})}));
  gamma->add_schedule(
      "relu",
      [](tir::Schedule& schedule, const tir::BlockRef& block, const Target& target) -> Status {
        UMA_TRY_ASSIGN(std::vector<tir::LoopRef> loops, schedule.get_loops(block));
        UMA_TRY_ASSIGN(std::int64_t factor, target.get_int("split"));
        UMA_TRY_ASSIGN(auto split, schedule.split(loops.back(), factor));
        (void)split;
        return Status::success();
      });
  ASSERT_TRUE(register_backend(ctx, std::move(gamma)).ok());
  EXPECT_EQ(build_and_check({"gamma --split=4"}),
            (std::vector<std::string>{"fused_nn_relu_0:c", "module_gamma_main_0:gamma",
                                      "fused_add_1:c"}));
  std::string code = code_of("gamma");
  EXPECT_NE(code.find("/* block relu */"), std::string::npos) << code;
  EXPECT_NE(code.find("< 4; ++"), std::string::npos) << code;
  std::string host = code_of("host");
  EXPECT_NE(host.find("/* block relu */"), std::string::npos) << host;
  EXPECT_EQ(host.find("< 4; ++"), std::string::npos) << host;
}

}  // namespace
}  // namespace uma::build
