// Helpers for writing compute rules (the default ones of src/lower/ and backends'
// strategies): immediates and casts of a dtype, intrinsic calls, numpy broadcasting of
// indices, stages, and a padded view of a tensor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uma/lower/compute.h"

namespace uma::lower {

// An immediate of `dtype`: a float immediate for float types, an integer one (truncated)
// otherwise, 0 or 1 for bool.
tir::Expr constant(DType dtype, double value);
// The least and the greatest value of `dtype`: -inf and +inf for floats.
tir::Expr lowest(DType dtype);
tir::Expr highest(DType dtype);
// `e` converted to `dtype`; `e` itself when it has that type already.
tir::Expr cast(DType dtype, const tir::Expr& e);
// A call of an intrinsic the code generators know ("exp", "sqrt", "isnan", ...), typed like
// its first argument ("isnan" and the other predicates: bool).
tir::Expr intrinsic(std::string_view name, std::vector<tir::Expr> args);

// The indices that read an operand of shape `from` where the result of a numpy broadcast is
// read at `out`: the dimensions align at the last one, and a dimension of size 1 reads 0.
// Given the result's shape `to`, a dimension of size 1 in both reads the result's index
// (the same value, and the access then reads as the same element as the result's).
Indices broadcast_indices(const Indices& out, const Shape& from, const Shape& to = {});

// The name of the block of an op's stage: the op name without its namespace
// ("nn.relu" -> "relu", "image.resize" -> "resize").
std::string block_name(std::string_view op);

// A pointwise stage; `injective` when it only remaps indices.
Stage pointwise_stage(std::string name, DType dtype, Shape shape,
                      std::function<tir::Expr(const Indices&)> element, bool injective = false);

// The view of a stage that is inlined (read by calling its element function).
TensorView view_of(const Stage& stage);

// The node's attributes as a block carries them: without discardable ones (uma.*).
AttrMap block_attrs(const Node& node);

// `view` padded by before[d] elements in front of dimension d and after[d] behind it, with
// `fill` outside the input. The guarded read is a `select`, whose unselected branch is never
// evaluated, so the input is never read out of bounds. An index remapping: inlined even
// into reductions (a padded convolution reads its input directly).
TensorView pad_view(const TensorView& view, const std::vector<std::int64_t>& before,
                    const std::vector<std::int64_t>& after, const tir::Expr& fill);

// A rule whose op has a padding attribute (convolutions, pools) reads its data through
// these, so that the attribute applies to the buffer its block reads (see Stage::attrs).
//
// `data` as such a block may read it: an inlined pad (TensorView::padding) is materialized,
// a block `pad` writing a buffer of its own, which the result reads.
TensorView materialize_padding(const TensorView& data, ComputeBuilder& builder);

// The data of an op that pads it by `before`/`after` (every dimension) with `fill`, and the
// padding to apply. When `data` is an inlined pad that the op's padding can stand for — the
// same fill, only in the dimensions from `first_padded` on, nothing cropped — the two fold:
// the data is the pad's source and the widths add up (`folded`). Any other pad is
// materialized (materialize_padding).
struct PaddedInput {
  TensorView data;
  std::vector<std::int64_t> before, after;
  bool folded = false;
};
PaddedInput fold_padding(const TensorView& data, std::vector<std::int64_t> before,
                         std::vector<std::int64_t> after, const tir::Expr& fill,
                         std::size_t first_padded, ComputeBuilder& builder);

// `view`, a tensor in layout `from`, read as one in layout `to` (uma/op/layout.h): a
// blocked weight read as the plain one its op's rule expects, say.
Expected<TensorView> relaid_view(const TensorView& view, const std::string& from,
                                 const std::string& to);

}  // namespace uma::lower
