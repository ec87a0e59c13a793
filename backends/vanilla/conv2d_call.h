// The kernel call and the loop-IR shapes around it that vanilla's passes read and write
// (conv2d_offload.cc makes calls, fuse_epilogue.cc folds a following epilogue into them).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "uma/tir/ir.h"

namespace uma::backends::vanilla {

using Ints = std::vector<std::int64_t>;

// A loop from 0 to a constant.
struct Loop {
  tir::Var var;
  std::int64_t extent = 0;
};

// `count` perfectly nested loops from 0 to constants, from `s` in; `s` becomes the innermost
// body. An error says which is not.
Expected<std::vector<Loop>> peel_loops(tir::Stmt& s, std::size_t count);
// The buffer's shape when every dimension is a constant.
std::optional<Ints> constant_shape(const tir::Buffer& buffer);
// Whether `index` is the loop's variable as lowering indexes with it: 0 when the loop has one
// iteration.
bool is_index_of(const tir::Expr& index, const Loop& loop);

// What the kernel computes after the sum: min(max(sum + bias[c], act_min), act_max).
struct Epilogue {
  tir::Expr bias;  // &bias[0, ...] of one value per output channel, or a null handle
  double act_min = -std::numeric_limits<double>::infinity();
  double act_max = std::numeric_limits<double>::infinity();
  Epilogue();
  bool has_bias() const;
  bool has_clamp() const;
};

// `value` as an epilogue of the kernel's, where `is_sum` tells the reads of the sum and
// `channel` is the loop over output channels; nullopt when the kernel cannot compute it.
// Recognized: min(max(x, lo), hi), max(x, lo) and min(x, hi) with f32 constants (clip and
// relu, NaN kept as the kernel keeps it), of x = sum or sum + bias[c] in either order.
std::optional<Epilogue> match_epilogue(const tir::Expr& value,
                                       const std::function<bool(const tir::Expr&)>& is_sum,
                                       const Loop& channel);

// The arguments of one vanilla_conv2dnchw call (kernels/vanilla_conv2d.c).
struct KernelCall {
  tir::Buffer data, weight, result;  // NCHW, OIHW, NCHW
  Ints data_shape;                   // N, IC, IH, IW
  Ints weight_shape;                 // OC, IC, KH, KW
  Ints strides;                      // h, w
  Ints padding;                      // top, left, bottom, right
  Epilogue epilogue;
  std::int64_t dimension = 16;

  // The call statement.
  tir::Stmt to_stmt() const;
  // The call `s` makes, when `s` is one (as to_stmt makes it).
  static std::optional<KernelCall> from_stmt(const tir::Stmt& s);
};

}  // namespace uma::backends::vanilla
