// The core loop-IR pipeline (TIR_PHASE_0..3) on functions as lowering makes them, some
// scheduled first: every pass keeps the function valid, and the function computes the same
// bits after the pipeline as before it.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"
#include "uma/graph/builder.h"
#include "uma/lower/lower.h"
#include "uma/tir/phases.h"
#include "uma/tir/schedule.h"
#include "uma/uma/context.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

TensorType f32(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

using BuildFn = std::function<std::vector<Value*>(Builder&, const std::vector<Value*>&)>;

// @main of `params` and `build`, lowered.
PrimFunc lowered(const std::vector<TensorType>& params, const BuildFn& build) {
  Context context;
  Module module(context, "m");
  Function& main = **module.add_function("main");
  std::vector<Value*> values;
  for (std::size_t k = 0; k < params.size(); ++k)
    values.push_back(main.add_param(params[k], fmt::format("p{}", k)));
  Builder builder(main);
  main.set_outputs(build(builder, values));
  Expected<PrimFunc> func = lower::lower_function(main);
  EXPECT_TRUE(func.ok()) << func.error().message();
  return func.ok() ? *func : PrimFunc{};
}

// The function after the core pipeline, verified after every pass, with the names of the
// passes that changed it.
PrimFunc pipeline(const PrimFunc& func, std::vector<std::string>* changed = nullptr) {
  std::vector<PassTiming> timings;
  Expected<PrimFunc> out =
      run_tir_pipeline(func, core_tir_pipeline(), {.verify_each = true}, &timings);
  EXPECT_TRUE(out.ok()) << out.error().message();
  if (changed != nullptr)
    for (const PassTiming& t : timings)
      if (t.changed) changed->push_back(t.pass);
  return out.ok() ? *out : func;
}

Node* op(Builder& b, const char* name, std::vector<Value*> operands, AttrMap attrs = {}) {
  return b.create(name, std::move(operands), std::move(attrs));
}

TEST(TirCorePipeline, TwoSoftmaxesShareTheirIntermediates) {
  // The first softmax's max and sum are dead when the second's are computed.
  PrimFunc func = lowered({f32({3, 7})}, [](Builder& b, const std::vector<Value*>& p) {
    Value* first = op(b, "nn.softmax", {p[0]})->result(0);
    return std::vector<Value*>{op(b, "nn.softmax", {first})->result(0)};
  });
  std::vector<std::string> changed;
  PrimFunc after = pipeline(func, &changed);
  EXPECT_NE(std::find(changed.begin(), changed.end(), "storage-rewrite"), changed.end());
  // Five intermediates (two maxima, two sums, the first softmax) in three allocations.
  auto count = [](const PrimFunc& f, const std::string& what) {
    std::string text = to_string(f);
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(func, "allocate %softmax"), 5u) << to_string(func);
  EXPECT_EQ(count(after, "allocate %softmax"), 3u) << to_string(after);
  expect_same_results(func, after);
}

TEST(TirCorePipeline, ScheduledConvolutionWithUnrolledKernelLoops) {
  PrimFunc func = lowered({f32({1, 3, 9, 9}), f32({4, 3, 3, 3}), f32({4, 1, 1})},
                          [](Builder& b, const std::vector<Value*>& p) {
                            AttrMap attrs;
                            attrs.set("padding", std::vector<std::int64_t>{1, 1, 1, 1});
                            attrs.set("strides", std::vector<std::int64_t>{2, 2});
                            Value* c = op(b, "nn.conv2d", {p[0], p[1]}, attrs)->result(0);
                            Value* a = op(b, "add", {c, p[2]})->result(0);
                            return std::vector<Value*>{op(b, "nn.relu", {a})->result(0)};
                          });
  Schedule sch(func);
  auto block = sch.get_block("conv2d_nchw");
  ASSERT_TRUE(block.ok()) << block.error().message();
  auto loops = sch.get_loops(*block);
  ASSERT_TRUE(loops.ok()) << loops.error().message();
  // n c h w rc rh rw: unroll the kernel's rows and columns; vectorizing w cannot be done
  // (its body allocates the accumulator), so it falls back.
  ASSERT_EQ(loops->size(), 7u);
  ASSERT_TRUE(sch.unroll((*loops)[5]).ok());
  ASSERT_TRUE(sch.unroll((*loops)[6]).ok());
  ASSERT_TRUE(sch.vectorize((*loops)[3]).ok());
  std::vector<std::string> changed;
  PrimFunc after = pipeline(sch.func(), &changed);
  const Attribute* fallback = after.attrs.find("vectorize_fallback");
  ASSERT_NE(fallback, nullptr) << to_string(after);
  EXPECT_EQ(std::get<std::vector<std::string>>(*fallback),
            std::vector<std::string>{"loop 'w': its body allocates %conv2d_nchw_acc"});
  std::string text = to_string(after);
  EXPECT_EQ(text.find("unrolled for"), std::string::npos) << text;
  expect_same_results(sch.func(), after);
}

TEST(TirCorePipeline, VectorizedPointwiseChainWithBroadcasting) {
  PrimFunc func = lowered({f32({2, 3, 8}), f32({3, 1}), f32({8})},
                          [](Builder& b, const std::vector<Value*>& p) {
                            Value* a = op(b, "add", {p[0], p[1]})->result(0);
                            Value* m = op(b, "multiply", {a, p[2]})->result(0);
                            return std::vector<Value*>{op(b, "nn.relu", {m})->result(0)};
                          });
  Schedule sch(func);
  auto block = sch.get_block("relu");
  ASSERT_TRUE(block.ok()) << block.error().message();
  auto loops = sch.get_loops(*block);
  ASSERT_TRUE(loops.ok() && loops->size() == 3u);
  ASSERT_TRUE(sch.vectorize(loops->back()).ok());
  PrimFunc after = pipeline(sch.func());
  EXPECT_EQ(
      to_string(after),
      R"(func @main(%p0: f32[48], %p1: f32[3], %p2: f32[8]) -> (%out: f32[48]) attributes {global_symbol = "main"} {
  block relu(reads: %p0, %p1, %p2; writes: %out) {
    for (i0, 0, 2) {
      for (i1, 0, 3) {
        %out[ramp(i0 * 24 + i1 * 8, 1, 8)] = max((%p0[ramp(i0 * 24 + i1 * 8, 1, 8)] + x8(%p1[i1])) * %p2[ramp(0, 1, 8)], x8(0.0f))
      }
    }
  }
}
)");
  expect_same_results(sch.func(), after);
}

}  // namespace
}  // namespace uma::tir
