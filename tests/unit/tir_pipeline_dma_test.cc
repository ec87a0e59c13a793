// Golden tests of the pipeline-dma pass: which loops of a tiles block it double buffers.
#include <gtest/gtest.h>

#include "tir_pass_test_util.h"
#include "uma/tir/dma.h"

namespace uma::tir {
namespace {

using namespace testing_pass;

// A move of 2 elements between %host at `at` and %tile, waited for at once.
Stmt move(bool in, const Buffer& host, Expr at, const Buffer& tile, std::int64_t queue) {
  AttrMap attrs;
  attrs.set(std::string(kDmaQueueAttr), queue);
  attrs.set(std::string(kDmaOperandAttr), host->name);
  Expr host_address = AddressNode::make(host, {std::move(at)});
  Expr tile_address = AddressNode::make(tile, {Expr(0)});
  Stmt start =
      in ? dma_start(Expr(queue), tile_address, host_address, Expr(8), Expr(1), Expr(0), Expr(0))
         : dma_start(Expr(queue), host_address, tile_address, Expr(8), Expr(1), Expr(0), Expr(0));
  return BlockNode::make(std::string(in ? kDmaInBlock : kDmaOutBlock), {in ? host : tile},
                         {in ? tile : host}, SeqNode::make({start, dma_wait(Expr(queue))}),
                         std::move(attrs));
}

// A tile's compute; with `tile`, iterating over the tiles of its loop (as tiling's are).
Stmt compute(const Buffer& in, const Buffer& out, std::int64_t pad, std::optional<Var> tile) {
  std::vector<IterVar> iter_vars;
  if (tile) iter_vars.push_back({"tile", Expr(8), IterKind::kSpatial, *tile});
  return BlockNode::make(
      "compute", {in}, {out},
      EvaluateNode::make(CallNode::make(
          DataType::scalar(DType::i32), "kernel",
          {AddressNode::make(in, {Expr(0)}), AddressNode::make(out, {Expr(0)}), Expr(pad)},
          CallNode::CallKind::kExtern)),
      {}, std::move(iter_vars));
}

// A tiles block over %x[16] → %y[16] in tiles of 2 elements, in a loop whose body runs
// `per_iteration` tiles one after the other, each bound to the loop when `bound`.
PrimFunc tiles(int per_iteration, bool bound = true) {
  Buffer x = make_buffer("x", DType::f32, {Expr(16)});
  Buffer y = make_buffer("y", DType::f32, {Expr(16)});
  Buffer xs = make_buffer("x_sram", DType::f32, {Expr(2)}, "sram");
  Buffer ys = make_buffer("y_sram", DType::f32, {Expr(2)}, "sram");
  Var t = var("t");
  std::vector<Stmt> body;
  for (int k = 0; k < per_iteration; ++k) {
    Expr at = t * Expr(std::int64_t{2 * per_iteration}) + Expr(std::int64_t{2 * k});
    body.push_back(move(true, x, at, xs, 0));
    body.push_back(compute(xs, ys, k, bound ? std::optional<Var>(t) : std::nullopt));
    body.push_back(move(false, y, at, ys, 1));
  }
  AttrMap attrs;
  attrs.set("tile.double", std::int64_t{1});
  Stmt block = BlockNode::make(
      "tiles", {x}, {y},
      AllocateNode::make(
          xs, AllocateNode::make(ys, loop(t, 8 / per_iteration, SeqNode::make(std::move(body))))),
      std::move(attrs));
  return make_func("tiles", {x, y}, 1, block);
}

TEST(PipelineDma, TheLoopItsComputeIteratesOverIsDoubleBuffered) {
  EXPECT_EQ(to_string(apply(pipeline_dma_pass(), tiles(1))),
            R"(func @tiles(%x: f32[16]) -> (%y: f32[16]) {
  block tiles(reads: %x; writes: %y) attributes {"tile.double" = 1} {
    allocate %x_sram: f32[4] in "sram" {
      allocate %y_sram: f32[4] in "sram" {
        block dma_in(reads: %x; writes: %x_sram) attributes {"dma.operand" = "x", "dma.queue" = 0} {
          dma_start<i32>(0, &%x_sram[0], &%x[0], 8, 1, 0, 0)
        }
        for (t, 0, 8) {
          if (t + 1 < 8) {
            block dma_in(reads: %x; writes: %x_sram) attributes {"dma.operand" = "x", "dma.queue" = 0} {
              dma_start<i32>((t + 1) % 2, &%x_sram[(t + 1) % 2 * 2], &%x[t * 2 + 2], 8, 1, 0, 0)
            }
          }
          dma_wait<i32>(t % 2)
          if (t >= 2) {
            dma_wait<i32>(t % 2 + 2)
          }
          block compute(reads: %x_sram; writes: %y_sram) iters {tile: spatial(8) = t} {
            @extern kernel<i32>(&%x_sram[t % 2 * 2], &%y_sram[t % 2 * 2], 0)
          }
          block dma_out(reads: %y_sram; writes: %y) attributes {"dma.operand" = "y", "dma.queue" = 1} {
            dma_start<i32>(t % 2 + 2, &%y[t * 2], &%y_sram[t % 2 * 2], 8, 1, 0, 0)
          }
        }
        dma_wait<i32>(2)
        dma_wait<i32>(3)
      }
    }
  }
}
)");
}

// A loop whose computes do not iterate over its tiles (they are no tiles of the innermost
// tiled axis, which tiling binds to its loop): its moves keep the one buffer the plan counted.
TEST(PipelineDma, ALoopItsComputeDoesNotIterateOverIsLeftAlone) {
  for (int per_iteration : {1, 2}) {
    PrimFunc func = tiles(per_iteration, /*bound=*/false);
    PrimFunc after = apply(pipeline_dma_pass(), func);
    EXPECT_TRUE(after.body.same_as(func.body)) << to_string(after);
  }
}

}  // namespace
}  // namespace uma::tir
