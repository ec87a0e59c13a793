// The regions of a layer's operands that one tile of its output needs, derived from the
// layer's own loop nests: no per-op table of halos, strides or paddings.
//
// A layer is a composite function (conv → bias → relu, say) with one output. Its default
// lowering (lower::lower_function) gives blocks whose loads and stores say which elements
// each output point reads. For an output tile, a box [lo_a, hi_a] on each output axis a,
// the region of every buffer is found backwards through the blocks: a block's loops that
// index the buffer it writes are narrowed to the region its readers need, and the bounds
// of its loads over those loops (tir's region bounder: sums, products, floor divisions,
// min, max, select) are the regions it needs of what it reads. A convolution's input thus
// gets [lo * stride - pad_begin, hi * stride - pad_begin + (kernel - 1) * dilation] on each
// spatial axis, its weights the output-channel slice, its bias the same slice.
//
// An axis whose regions divide its bounds (a grouped convolution's input channels follow its
// output channels as [lo / (O / G) * (C / G), ...]) is cut into tiles of a multiple of the
// divisor, its step: each tile then holds whole groups, so that it is the layer in small.
//
// Regions are expressions of the tile's bounds (TileSpace::lo(a), TileSpace::hi(a)); each
// dimension of an operand depends on at most one output axis (the layers tiled here have
// that form) and is clamped to the operand's extent when evaluated: what falls outside is
// the tile's share of the layer's padding.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/support/error.h"
#include "uma/tiling/memory.h"
#include "uma/tir/ir.h"

namespace uma::tiling {

// A region of one dimension, [first, last] before clamping to [0, extent).
struct Span {
  std::int64_t first = 0, last = -1;
  std::int64_t size() const { return last - first + 1; }
};

// Where a tile's region of one dimension lies once clamped to the operand, and what the clamp
// cut: the tile's share of the layer's padding.
struct Place {
  std::int64_t start = 0, extent = 0, pad_before = 0, pad_after = 0;
  bool operator==(const Place&) const = default;
};

// An operand of the layer: a parameter of the composite, a constant in it, or its output.
struct TileOperand {
  const Value* value = nullptr;
  Role role = Role::kFeatures;
  bool output = false;
  DType dtype = DType::f32;
  Shape shape;
  // Per dimension: the output axis its region follows (nullopt: a fixed region), and the
  // region's bounds as expressions of that axis's TileSpace::lo and TileSpace::hi.
  std::vector<std::optional<std::size_t>> axis;
  std::vector<tir::Expr> first, last;
};

class TileSpace {
 public:
  // Derives the regions of `composite`'s operands. Errors say why the layer cannot be tiled:
  // more than one output, a block that is not a loop nest over the buffer it writes, an
  // index the bounder cannot bound, a dimension whose region follows two output axes.
  static Expected<TileSpace> derive(const Function& composite);

  const Shape& output_shape() const { return output_shape_; }
  // The axes a tile cuts: the output's, then the reductions it may cut into chunks (a
  // convolution's input channels: a chunk's partial sums added to the chunks' before), by
  // their extents.
  const Shape& extents() const { return extents_; }
  std::size_t num_axes() const { return extents_.size(); }
  bool is_reduction(std::size_t axis) const { return axis >= output_shape_.size(); }
  // Inputs (the composite's parameters, then its constants, in node order), then the output.
  const std::vector<TileOperand>& operands() const { return operands_; }
  // What the sizes of axis a's tiles are multiples of (but for the whole axis): the least
  // common multiple of the divisors of its bounds in the regions, 1 for most axes.
  std::int64_t step(std::size_t axis) const { return step_[axis]; }
  // The variables of an output tile's bounds on axis a (inclusive).
  const tir::Var& lo(std::size_t axis) const { return lo_[axis]; }
  const tir::Var& hi(std::size_t axis) const { return hi_[axis]; }

  // Operand i's region on dimension d for the output tile [lo, hi] on that dimension's axis
  // (ignored for a fixed region), unclamped.
  Span region(std::size_t operand, std::size_t dim, std::int64_t lo, std::int64_t hi) const;
  // The same region clamped to the operand.
  Place place(std::size_t operand, std::size_t dim, std::int64_t lo, std::int64_t hi) const;
  // The region of the tile at position p of size `size` on the dimension's axis (the fixed
  // region for a dimension that follows none).
  Place tile_place(std::size_t operand, std::size_t dim, std::int64_t size, std::int64_t p) const;

  // The tiles of one axis cut at `size` form runs: consecutive tiles alike, their regions of
  // the same extents and paddings, each starting a fixed step after the one before (the
  // first tile of a padded convolution, the inner ones, the last, shorter one). Per run,
  // its first tile, its count, and per dimension that follows the axis (Follower order) the
  // first tile's place and the step.
  struct Follower {
    std::size_t operand, dim;
  };
  struct Run {
    std::int64_t begin = 0, count = 0;
    std::vector<Place> first;
    std::vector<std::int64_t> step;
  };
  std::vector<Follower> followers(std::size_t axis) const;
  std::vector<Run> runs(std::size_t axis, std::int64_t size) const;

 private:
  Status find_regions(
      const std::vector<const tir::BlockNode*>& blocks, const std::vector<tir::Buffer>& buffers,
      const std::unordered_map<const tir::VarNode*, std::pair<tir::Expr, tir::Expr>>& cut,
      std::optional<std::size_t>& drop);

  Shape output_shape_, extents_;
  std::vector<TileOperand> operands_;
  std::vector<tir::Var> lo_, hi_;
  std::vector<std::int64_t> step_;
};

// The value of an integer expression whose variables `values` gives (floor division and
// modulo, as the loop IR's); nullopt for anything else.
std::optional<std::int64_t> evaluate(
    const tir::Expr& e, const std::unordered_map<const tir::VarNode*, std::int64_t>& values);

}  // namespace uma::tiling
