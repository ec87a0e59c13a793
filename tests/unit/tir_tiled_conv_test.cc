// The register-tiled convolution of perf-plan.md written with the Schedule primitives alone
// on what lowering makes of conv + bias + relu: channels innermost and packed weights
// (transform_layout), a tile of output pixels x channel vectors (split, reorder), the
// reduction loops outside the tile (decompose_reduction), the epilogue on the tile
// (reverse_compute_at), the accumulator shrunk to the tile (compact-buffers), vectorized,
// unrolled and parallel; compiled and checked against the reference interpreter.
#include <gtest/gtest.h>

#include "c_test_util.h"
#include "uma/graph/parser.h"
#include "uma/lower/lower.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/interpreter.h"
#include "uma/tir/phases.h"
#include "uma/tir/printer.h"
#include "uma/tir/schedule.h"
#include "uma/uma/context.h"

namespace uma::tir {
namespace {

constexpr const char* kLayer = R"(
func @main(%x: tensor<1x32x10x10xf32>, %w: tensor<32x32x3x3xf32>, %b: tensor<32x1x1xf32>) -> (tensor<1x32x10x10xf32>) {
  %c = nn.conv2d(%x, %w) {padding = [1, 1, 1, 1]} : tensor<1x32x10x10xf32>
  %a = add(%c, %b) : tensor<1x32x10x10xf32>
  %r = nn.relu(%a) : tensor<1x32x10x10xf32>
  return %r
}
)";

template <typename T>
T ok(Expected<T> value) {
  EXPECT_TRUE(value.ok()) << value.error().message();
  return std::move(*value);
}

void ok(const Status& status) { EXPECT_TRUE(status.ok()) << status.error().message(); }

LoopRef named(const std::vector<LoopRef>& loops, std::string_view name) {
  for (const LoopRef& l : loops)
    if (l.var.as<VarNode>()->name == name) return l;
  ADD_FAILURE() << "no loop " << name;
  return loops.front();
}

Buffer buffer_named(const PrimFunc& func, std::string_view name) {
  for (const Buffer& p : func.params)
    if (p->name == name) return p;
  const auto* allocate = func.body.as<AllocateNode>();
  EXPECT_TRUE(allocate != nullptr && allocate->buffer->name == name) << name;
  return allocate->buffer;
}

IndexMap nchw_to_nhwc() {
  Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h"),
      w = VarNode::make("w");
  return {{n, c, h, w}, {n, h, w, c}};
}

TEST(TiledConvolution, PrimitivesAloneWriteTheRegisterTileAndItMatchesTheInterpreter) {
  Context context;
  auto module = ok(parse_module(context, kLayer, "layer.uma"));
  const Function& main = *module->find_function("main");
  Schedule s(ok(lower::lower_function(main, {.symbol = "tiled"})));
  for (const char* name : {"x", "r", "conv2d_nchw_acc"})
    ok(s.transform_layout(buffer_named(s.func(), name), nchw_to_nhwc()));
  Var o = VarNode::make("o"), i = VarNode::make("i"), kh = VarNode::make("kh"),
      kw = VarNode::make("kw");
  ok(s.transform_layout(buffer_named(s.func(), "w"),
                        {{o, i, kh, kw}, {o / 16, kh, kw, i, o % 16}}));

  BlockRef conv = ok(s.get_block("conv2d_nchw"));
  BlockRef epilogue = ok(s.get_block("conv2d_nchw_epilogue"));
  std::vector<LoopRef> loops = ok(s.get_loops(conv));
  auto [co, cl] = ok(s.split(named(loops, "c"), 16, TailStrategy::kError));
  auto [cog, cob] = ok(s.split(co, 2, TailStrategy::kError));
  auto [wo, wi] = ok(s.split(named(loops, "w"), 5, TailStrategy::kError));
  LoopRef h = named(loops, "h");
  ok(s.reorder(
      {cog, h, wo, named(loops, "rh"), named(loops, "rw"), named(loops, "rc"), wi, cob, cl}));
  ok(s.reverse_compute_at(epilogue, wo));
  BlockRef init = ok(s.decompose_reduction(conv, named(loops, "rh")));
  ok(s.vectorize(cl));
  ok(s.unroll(wi));
  ok(s.unroll(cob));
  std::vector<LoopRef> init_loops = ok(s.get_loops(init));
  ok(s.vectorize(init_loops.back()));
  std::vector<LoopRef> epi = ok(s.get_loops(epilogue));
  std::size_t own = epi.size() - 4;  // the epilogue's n, c, h, w over the tile
  auto [eco, eci] = ok(s.split(epi[own + 1], 16, TailStrategy::kError));
  ok(s.reorder({epi[own + 2], epi[own + 3], eco, eci}));
  ok(s.vectorize(eci));
  ok(s.parallel(ok(s.fuse(cog, h))));

  PrimFunc func = ok(run_tir_pipeline(s.func(), core_tir_pipeline({.parallel = true})));
  std::string text = to_string(func);
  // The accumulator is the tile: 5 pixels x 32 channels, in registers.
  EXPECT_NE(text.find("allocate %conv2d_nchw_acc: f32[160] in \"local\""), std::string::npos)
      << text;
  auto built = testing_c::build({func}, {.openmp = true}, {}, {.openmp = true});
  ASSERT_TRUE(built.ok()) << built.error().message();

  for (std::uint64_t seed : {1, 2}) {
    std::vector<TensorPtr> inputs = random_inputs(main, seed);
    auto expected = interpret(main, inputs);
    ASSERT_TRUE(expected.ok()) << expected.error().message();
    // The tiled function takes NHWC data and packed weights, and gives NHWC.
    Tensor x_nhwc(inputs[0]->type()), w_packed(inputs[1]->type());
    Tensor out(inputs[0]->type());
    for (std::int64_t c = 0; c < 32; ++c)
      for (std::int64_t y = 0; y < 10; ++y)
        for (std::int64_t z = 0; z < 10; ++z)
          x_nhwc.set((y * 10 + z) * 32 + c, inputs[0]->get((c * 10 + y) * 10 + z));
    for (std::int64_t k = 0; k < 32; ++k)
      for (std::int64_t c = 0; c < 32; ++c)
        for (std::int64_t r = 0; r < 9; ++r)
          w_packed.set(((k / 16 * 9 + r) * 32 + c) * 16 + k % 16,
                       inputs[1]->get((k * 32 + c) * 9 + r));
    std::vector<void*> args = {x_nhwc.bytes().data(), w_packed.bytes().data(),
                               const_cast<std::byte*>(inputs[2]->bytes().data()),
                               out.bytes().data()};
    ASSERT_EQ(testing_c::call(*built, 0, args), 0);
    Tensor out_nchw(inputs[0]->type());
    for (std::int64_t c = 0; c < 32; ++c)
      for (std::int64_t y = 0; y < 10; ++y)
        for (std::int64_t z = 0; z < 10; ++z)
          out_nchw.set((c * 10 + y) * 10 + z, out.get((y * 10 + z) * 32 + c));
    TensorComparison cmp = compare_scaled(out_nchw, *(*expected)[0]);
    EXPECT_TRUE(cmp.ok()) << "seed " << seed << ": max abs error " << cmp.max_abs_error;
  }
}

}  // namespace
}  // namespace uma::tir
