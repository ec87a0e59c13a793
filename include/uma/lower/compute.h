// Compute definitions: what each op computes, written as expressions of output indices
// (in the spirit of TVM's tensor expressions). Lowering turns them into loop nests, inlines
// pointwise stages into their consumers, and fuses a reduction with the pointwise chain
// after it, so a fused function becomes one loop nest.
//
// Every op of the op set has a default compute rule (one table per op family,
// src/lower/compute_<family>.cc). A backend's operator strategy is a rule that replaces the
// default for one op inside that backend's functions only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/support/error.h"
#include "uma/tir/ir.h"

namespace uma::lower {

using Indices = std::vector<tir::Expr>;

struct Padding;

// A tensor as a compute rule sees it: element type, shape, and how to read one element.
// Indices are i64 expressions, one per dimension.
struct TensorView {
  DType dtype = DType::f32;
  Shape shape;
  std::function<tir::Expr(const Indices&)> at;
  // The buffer behind the view when it is materialized (a parameter, an output or an
  // intermediate), else null: rules that call extern kernels need it.
  tir::Buffer buffer;
  // Set when the view is another tensor padded (an inlined nn.pad): what a rule with a
  // padding attribute needs to fold it into its own (fold_padding in compute_util.h).
  std::shared_ptr<const Padding> padding;
};

// `source` with before[d] elements in front of dimension d and after[d] behind it (negative:
// cropped), holding `fill`; an undefined fill means the elements repeat or mirror the
// source's (nn.pad's edge and reflect modes).
struct Padding {
  TensorView source;
  std::vector<std::int64_t> before, after;
  tir::Expr fill;
  // The attributes of the nn.pad, for its block when it must be materialized.
  AttrMap attrs;
};

// A reduction over extra axes:
//   out[i] = finalize(combine over r in [0, extents) of body(i, r), i)
// Max and min propagate NaN, as the reference kernels do.
struct Reduction {
  enum class Combiner : std::uint8_t { kSum, kMax, kMin, kProduct };
  Combiner combiner = Combiner::kSum;
  std::vector<std::int64_t> extents;
  std::function<tir::Expr(const Indices& out, const Indices& r)> body;
  // Optional: applied to the accumulated value (average pooling divides by the count).
  std::function<tir::Expr(const tir::Expr& acc, const Indices& out)> finalize;
  // The accumulator's type when it differs from the result's (e.g. f32 sums of f16, which
  // lowering picks by itself for f16 and bf16 results).
  std::optional<DType> accumulate_dtype;
  // Optional names of the reduction loops' variables ("rc", "ry", "rx"), for readable IR.
  std::vector<std::string> axis_names;
};

// One stage of an op: a named block computing a tensor pointwise (`element`) or by a
// reduction. The block name is what passes and backends look for ("conv2d_nchw", "dense",
// "max_pool2d", "add", "softmax_max", ...).
struct Stage {
  std::string name;
  DType dtype = DType::f32;
  Shape shape;
  std::function<tir::Expr(const Indices&)> element;  // pointwise stage, or
  std::optional<Reduction> reduction;                // a reduction
  // Only remaps indices of its inputs (reshape, transpose, pad, slice, concat, broadcast):
  // cheap to recompute, so it is inlined even into reductions.
  bool injective = false;
  // Copied to the block: the graph op's attributes, so a backend's pass can read strides or
  // padding from the block it replaces. They describe what the block computes from the
  // buffers it reads: a padding attribute (convolutions, pools) is the padding of the
  // buffer the block reads as the op's data. Since lowering inlines an nn.pad into the op
  // that reads it, the op's rule folds the pad into its padding attribute where that is the
  // same computation (a convolution after a zero pad of the spatial dimensions: the block
  // reads the unpadded buffer, with padding = the convolution's + the pad's), and
  // materializes any other pad (a block `pad` writing a buffer the op's block reads), so
  // that a pass calling its own kernel with the block's data buffer and padding attribute
  // computes what the block does (fold_padding in compute_util.h). Left empty, lowering
  // fills in the node's attributes (block_attrs).
  AttrMap attrs;
  // Optional names of the output loops' variables ("n", "c", "h", "w").
  std::vector<std::string> axis_names;
  // Set when the stage pads another tensor (nn.pad): views of the stage carry it.
  std::shared_ptr<const Padding> padding;
};

// What a rule may ask of the lowering in progress.
class ComputeBuilder {
 public:
  virtual ~ComputeBuilder() = default;
  // Materializes an intermediate stage (a buffer allocated in the function, computed by its
  // own block) and returns a view that reads it: for multi-stage ops such as softmax.
  virtual TensorView materialize(Stage stage) = 0;
  // A fresh variable, named for readability.
  virtual tir::Var var(std::string_view name) = 0;
  // A run-time check of the node being lowered (uma/tir/run_checks.h): a block, before the
  // node's own, testing `failed` at every index of `shape`; where it holds, the run fails
  // with "<the node's location>: <message>", whose {value} is `value` there (an i64) and
  // {element} the index's row-major position. What a check reads is read once per index,
  // outside the loops of the blocks that use it.
  virtual void check(const Shape& shape, const std::function<tir::Expr(const Indices&)>& failed,
                     const std::function<tir::Expr(const Indices&)>& value,
                     std::string_view message) = 0;
};

// An op's compute rule: one Stage per result of `node`, from views of its operands.
// Errors name what is unsupported (an attribute value, a dtype).
using ComputeRule = std::function<Expected<std::vector<Stage>>(
    const Node& node, const std::vector<TensorView>& inputs, ComputeBuilder& builder)>;

// Rules by op name; safe to use from several threads.
class ComputeRegistry {
 public:
  // Errors when the op has a rule already. (How fuse-ops groups the op is its OpDef's
  // fusion category.)
  Status add(std::string op, ComputeRule rule);
  // The op's rule, or null. The pointer stays valid while the registry lives.
  const ComputeRule* find(std::string_view op) const;
  std::vector<std::string> ops() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, ComputeRule, std::less<>> rules_;
};

// The default rules of every op of the op set (built once; immutable, safe to share).
const ComputeRegistry& default_computes();

// The rules of each op family (src/lower/compute_<family>.cc), one per op family of
// src/op/.
void register_elementwise_computes(ComputeRegistry& registry);
void register_activation_computes(ComputeRegistry& registry);
void register_logical_computes(ComputeRegistry& registry);
void register_transform_computes(ComputeRegistry& registry);
void register_index_computes(ComputeRegistry& registry);
void register_broadcast_computes(ComputeRegistry& registry);  // broadcast_to, tile, nn.pad
void register_shape_computes(ComputeRegistry& registry);
void register_reduce_computes(ComputeRegistry& registry);
void register_nn_computes(ComputeRegistry& registry);    // nn.dense, nn.matmul
void register_conv_computes(ComputeRegistry& registry);  // nn.conv1d/2d/3d, transposes
void register_pool_computes(ComputeRegistry& registry);  // max, avg and global pools
void register_norm_computes(ComputeRegistry& registry);
void register_resize_computes(ComputeRegistry& registry);

}  // namespace uma::lower
