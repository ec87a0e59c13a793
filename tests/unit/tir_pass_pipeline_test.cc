// Running loop-IR passes: verification after each pass, --print-after, timings, the phase
// pipeline's order, and the passes by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "uma/tir/passes.h"
#include "uma/tir/phases.h"
#include "uma/tir/printer.h"

namespace uma::tir {
namespace {

// y[i] = x[i] + (1 + 1)
PrimFunc add_two() {
  Buffer x = make_buffer("x", DType::i64, {Expr(4)});
  Buffer y = make_buffer("y", DType::i64, {Expr(4)});
  Var i = VarNode::make("i");
  PrimFunc f;
  f.name = "add_two";
  f.params = {x, y};
  f.num_inputs = 1;
  f.body = BlockNode::make(
      "add", {x}, {y},
      ForNode::make(i, Expr(0), Expr(4), ForKind::kSerial,
                    StoreNode::make(y, LoadNode::make(x, {i}) + (Expr(1) + Expr(1)), {i})));
  return f;
}

FuncPass identity(std::string name) {
  return {std::move(name), [](const PrimFunc& f) -> Expected<PrimFunc> { return f; }};
}

// Stores to a buffer nobody declared: what the verifier must catch.
FuncPass broken() {
  return {"broken", [](const PrimFunc& f) -> Expected<PrimFunc> {
            PrimFunc out = f;
            Buffer stray = make_buffer("stray", DType::i64, {Expr(1)});
            out.body = StoreNode::make(stray, Expr(0), {Expr(0)});
            return out;
          }};
}

TEST(TirPassPipeline, TimesEachPassAndSaysWhetherItChanged) {
  std::vector<PassTiming> timings;
  auto out = run_passes(add_two(), {identity("nothing"), simplify_pass()}, {}, &timings);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_EQ(timings[0].pass, "nothing");
  EXPECT_FALSE(timings[0].changed);
  EXPECT_EQ(timings[1].pass, "simplify");
  EXPECT_TRUE(timings[1].changed);
  EXPECT_NE(to_string(*out).find("%y[i] = %x[i] + 2"), std::string::npos) << to_string(*out);
}

TEST(TirPassPipeline, VerifiesAfterEachPass) {
  auto out = run_passes(add_two(), {broken()}, {.verify_each = true});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message(),
            "func @add_two is invalid after pass 'broken' (a bug in that pass): func @add_two: "
            "buffer 'stray' is neither a parameter nor allocated");
  EXPECT_TRUE(run_passes(add_two(), {broken()}).ok());  // not verified unless asked
}

TEST(TirPassPipeline, FailuresNameTheFunctionAndPass) {
  FuncPass failing{
      "failing", [](const PrimFunc&) -> Expected<PrimFunc> { return make_error("cannot do it"); }};
  auto out = run_passes(add_two(), {identity("first"), failing});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message(), "func @add_two: pass 'failing': cannot do it");
}

TEST(TirPassPipeline, PrintsAfterTheNamedPasses) {
  std::ostringstream printed;
  PipelineOptions options{.print_after = {"simplify"}, .print_stream = &printed};
  ASSERT_TRUE(run_passes(add_two(), {identity("nothing"), simplify_pass()}, options).ok());
  EXPECT_EQ(printed.str(),
            "// -----// IR after simplify //----- //\n"
            "func @add_two(%x: i64[4]) -> (%y: i64[4]) {\n"
            "  block add(reads: %x; writes: %y) {\n"
            "    for (i, 0, 4) {\n"
            "      %y[i] = %x[i] + 2\n"
            "    }\n"
            "  }\n"
            "}\n");
  std::ostringstream all;
  options = {.print_after = {"all"}, .print_stream = &all};
  ASSERT_TRUE(run_passes(add_two(), {identity("nothing")}, options).ok());
  EXPECT_EQ(all.str().substr(0, all.str().find('\n')),
            "// -----// IR after nothing (no change) //----- //");
}

TEST(TirPassPipeline, PhasesRunInOrderWithBackendPassesAfterTheCore) {
  TirPipeline pipeline = core_tir_pipeline();
  pipeline[0].push_back(identity("backend-0"));
  pipeline[3].push_back(identity("backend-3"));
  std::vector<PassTiming> timings;
  ASSERT_TRUE(run_tir_pipeline(add_two(), pipeline, {.verify_each = true}, &timings).ok());
  std::vector<std::string> names;
  for (const PassTiming& t : timings) names.push_back(t.pass);
  std::vector<std::string> expected;
  for (std::size_t phase = 0; phase < kNumTirPhases; ++phase)
    for (const FuncPass& pass : pipeline[phase]) expected.push_back(pass.name);
  EXPECT_EQ(names, expected);
  EXPECT_EQ(names.front(), "backend-0");
  EXPECT_EQ(names.back(), "backend-3");
}

TEST(TirPassPipeline, ParallelConfigAddsParallelizeBlocks) {
  auto names = [](const std::vector<FuncPass>& passes) {
    std::vector<std::string> out;
    for (const FuncPass& p : passes) out.push_back(p.name);
    return out;
  };
  std::vector<std::string> serial = names(core_tir_pipeline()[1]);
  std::vector<std::string> parallel = names(core_tir_pipeline({.parallel = true})[1]);
  EXPECT_EQ(std::count(serial.begin(), serial.end(), "parallelize-blocks"), 0);
  // After decompose-reductions and compact-buffers, which give it plain loop nests, and
  // simplify, which removes the loops of one iteration of moved epilogues.
  ASSERT_GE(parallel.size(), 4u);
  EXPECT_EQ(parallel[0], "decompose-reductions");
  EXPECT_EQ(parallel[1], "compact-buffers");
  EXPECT_EQ(parallel[2], "simplify");
  EXPECT_EQ(parallel[3], "parallelize-blocks");
}

TEST(TirPassPipeline, TimingsAlsoGoWhereThePipelineOptionsSay) {
  std::vector<PassTiming> explicit_list, build_list;
  PipelineOptions options{.timings = &build_list};
  ASSERT_TRUE(
      run_passes(add_two(), {identity("nothing"), simplify_pass()}, options, &explicit_list).ok());
  ASSERT_EQ(build_list.size(), 2u);
  EXPECT_EQ(build_list[1].pass, "simplify");
  EXPECT_TRUE(build_list[1].changed);
  EXPECT_EQ(explicit_list.size(), 2u);
}

TEST(TirPassRegistry, CreatesThePassesOfAPipelineByName) {
  FuncPassRegistry registry;
  register_core_passes(registry);
  auto passes = registry.create_pipeline(
      "flatten-buffers, unroll{auto-max-extent=4 max-extent=8},vectorize{max-lanes=16},simplify");
  ASSERT_TRUE(passes.ok()) << passes.error().message();
  std::vector<std::string> names;
  for (const FuncPass& pass : *passes) names.push_back(pass.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"flatten-buffers", "unroll", "vectorize", "simplify"}));
  auto out = run_passes(add_two(), *passes, {.verify_each = true});
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::ostringstream printed;
  print(printed, *out);
  EXPECT_EQ(printed.str(),
            "func @add_two(%x: i64[4]) -> (%y: i64[4]) {\n"
            "  block add(reads: %x; writes: %y) {\n"
            "    %y[0] = %x[0] + 2\n"
            "    %y[1] = %x[1] + 2\n"
            "    %y[2] = %x[2] + 2\n"
            "    %y[3] = %x[3] + 2\n"
            "  }\n"
            "}\n");
}

TEST(TirPassRegistry, ListsEveryCorePassWithASummary) {
  FuncPassRegistry registry;
  register_core_passes(registry);
  std::vector<std::string> names;
  for (const auto& [name, summary] : registry.list()) {
    names.push_back(name);
    EXPECT_FALSE(summary.empty()) << name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "compact-buffers", "decompose-reductions", "flatten-buffers",
                       "hoist-padding-guards", "lift-allocations", "parallelize-blocks",
                       "pipeline-dma", "remove-no-op", "simplify", "storage-rewrite", "unroll",
                       "vectorize"}));
}

TEST(TirPassRegistry, ErrorsNameThePassAndTheOption) {
  FuncPassRegistry registry;
  register_core_passes(registry);
  auto message = [&](std::string_view pipeline) {
    auto passes = registry.create_pipeline(pipeline);
    return passes.ok() ? std::string("ok") : passes.error().message();
  };
  EXPECT_EQ(message("simplify,fold"),
            "unknown pass 'fold' (known passes: compact-buffers, decompose-reductions, "
            "flatten-buffers, hoist-padding-guards, lift-allocations, "
            "parallelize-blocks, pipeline-dma, remove-no-op, simplify, storage-rewrite, unroll, "
            "vectorize)");
  EXPECT_EQ(message("simplify{depth=2}"), "pass 'simplify' takes no options");
  EXPECT_EQ(message("vectorize{lanes=4}"), "pass 'vectorize' has no option 'lanes'");
  EXPECT_EQ(message("unroll{max-extent=-1}"),
            "pass option 'max-extent' must not be negative, not -1");
  EXPECT_EQ(message("lift-allocations{min-bytes=many}"),
            "pass option 'min-bytes' must be an integer, not 'many'");
  EXPECT_EQ(message("simplify,,unroll"), "empty pass name in pipeline 'simplify,,unroll'");
  EXPECT_EQ(registry.add("simplify", "again", simplify_pass).error().message(),
            "pass 'simplify' is registered twice");
}

}  // namespace
}  // namespace uma::tir
