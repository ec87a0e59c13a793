// Compute rules of the pools (src/op/pool.cc): nn.max_pool1d/2d/3d, nn.avg_pool1d/2d/3d and
// the global pools, each one reduction stage over the window (max_pool2d, avg_pool2d,
// global_max_pool, global_avg_pool).
//
// The window reads a padded view of the data, extended past the trailing padding as far
// as ceil mode's last window hangs: a max never takes the padding (it reads -inf there) and
// a sum adds zeros. An average then divides by the number of taps inside the data, or
// inside the padded data with count_include_pad, computed from the window's position (the
// part past the trailing padding never counts).
//
// nn.max_poolNd_with_indices materializes the maximum (max_pool2d), then finds where it came
// from (max_pool2d_indices): the least row-major offset in the plane of an element inside
// the window equal to the maximum (or NaN, when the maximum is NaN), numbered as
// storage_order asks, or -1 for a window with no element inside the data.
#include <fmt/format.h>

#include "uma/lower/compute_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using Ints = std::vector<std::int64_t>;

enum class Pool { kMax, kAvg };

std::vector<std::string> spatial_names(std::size_t rank, const char* prefix) {
  static constexpr const char* kLetters[] = {"d", "h", "w"};
  std::vector<std::string> names;
  for (std::size_t i = 3 - rank; i < 3; ++i) names.push_back(std::string(prefix) + kLetters[i]);
  return names;
}

std::vector<std::string> output_axes(std::size_t rank) {
  std::vector<std::string> names = {"n", "c"};
  for (const std::string& s : spatial_names(rank, "")) names.push_back(s);
  return names;
}

DType accumulator(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 ? DType::f32 : dtype;
}

Expected<std::vector<Stage>> pool_rule(Pool pool, std::size_t rank, const Node& node,
                                       const std::vector<TensorView>& in, ComputeBuilder& builder) {
  const TensorType& out = node.result()->tensor_type();
  const AttrMap& attrs = node.attrs();
  const Ints& pool_size = attrs.get_ints("pool_size");
  const Ints& strides = attrs.get_ints("strides");
  const Ints& padding = attrs.get_ints("padding");
  const Ints dilation = pool == Pool::kMax ? attrs.get_ints("dilation") : Ints(rank, 1);
  const bool count_pad = pool == Pool::kAvg && attrs.get_int("count_include_pad") == 1;
  // The block's padding attribute is the padding of the buffer it reads: an nn.pad before
  // the pool is materialized, not folded (the average's count and ceil mode's last window
  // depend on which elements are padding).
  const TensorView data = materialize_padding(in[0], builder);

  // Padding in front as given; behind, enough for the last window (ceil mode may hang past
  // the trailing padding).
  Ints before(2, 0), after(2, 0);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t last_tap = (out.shape[2 + i] - 1) * strides[i] + (pool_size[i] - 1) * dilation[i];
    before.push_back(padding[i]);
    after.push_back(std::max(padding[rank + i], last_tap + 1 - padding[i] - data.shape[2 + i]));
  }
  Expr fill = pool == Pool::kMax ? lowest(data.dtype) : constant(data.dtype, 0);
  TensorView padded = pad_view(data, before, after, fill);

  Reduction window;
  window.combiner = pool == Pool::kMax ? Reduction::Combiner::kMax : Reduction::Combiner::kSum;
  window.extents = pool_size;
  window.axis_names = spatial_names(rank, "r");
  window.accumulate_dtype = accumulator(data.dtype);
  window.body = [=](const Indices& o, const Indices& r) {
    Indices at = {o[0], o[1]};
    for (std::size_t i = 0; i < rank; ++i) at.push_back(o[2 + i] * strides[i] + r[i] * dilation[i]);
    return padded.at(at);
  };
  if (pool == Pool::kAvg) {
    Shape shape = data.shape;
    window.finalize = [=](const Expr& acc, const Indices& o) {
      // Taps of the window [start, start + size) inside [low, high) along each axis.
      Expr count;
      for (std::size_t i = 0; i < rank; ++i) {
        Expr start = o[2 + i] * strides[i] - padding[i];
        std::int64_t low = count_pad ? -padding[i] : 0;
        std::int64_t high = shape[2 + i] + (count_pad ? padding[rank + i] : 0);
        Expr taps = tir::min(start + pool_size[i], Expr(high)) - tir::max(start, Expr(low));
        count = count.defined() ? count * taps : taps;
      }
      return acc / cast(acc.type().dtype, count);
    };
  }

  Stage stage;
  stage.name = fmt::format("{}_pool{}d", pool == Pool::kMax ? "max" : "avg", rank);
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(window);
  stage.axis_names = output_axes(rank);
  return std::vector<Stage>{std::move(stage)};
}

// The position (the second result) of nn.max_poolNd_with_indices, `max` being the first.
Stage indices_stage(std::size_t rank, const Node& node, const TensorView& data,
                    const TensorView& max) {
  const TensorType& out = node.result(1)->tensor_type();
  const AttrMap& attrs = node.attrs();
  const Ints& strides = attrs.get_ints("strides");
  const Ints& padding = attrs.get_ints("padding");
  const Ints& dilation = attrs.get_ints("dilation");
  const bool column_major = attrs.get_int("storage_order") == 1;
  const Shape spatial(data.shape.begin() + 2, data.shape.end());
  std::int64_t plane = 1;
  for (std::int64_t d : spatial) plane *= d;

  Reduction first;
  first.combiner = Reduction::Combiner::kMin;
  first.extents = attrs.get_ints("pool_size");
  first.axis_names = spatial_names(rank, "r");
  first.body = [=](const Indices& o, const Indices& r) {
    Indices at = {o[0], o[1]};
    Expr inside, offset = Expr(0);
    for (std::size_t i = 0; i < rank; ++i) {
      Expr p = o[2 + i] * strides[i] + r[i] * dilation[i] - padding[i];
      Expr ok = p >= 0 && p < spatial[i];
      inside = inside.defined() ? (inside && ok) : ok;
      offset = offset * spatial[i] + p;
      at.push_back(p);
    }
    Expr v = data.at(at);
    Expr is_max = v == max.at(o);
    if (is_float(v.type().dtype)) is_max = is_max || intrinsic("isnan", {v});
    // Outside the data the read is never made (select), and the position never wins.
    return tir::SelectNode::make(inside, tir::SelectNode::make(is_max, offset, Expr(plane)),
                                 Expr(plane));
  };
  first.finalize = [=](const Expr& acc, const Indices& o) {
    Expr position = acc;
    if (column_major) {
      // Row-major coordinates of the offset, recombined with the first dimension fastest.
      std::vector<Expr> coords(rank);
      Expr rest = acc;
      for (std::size_t i = rank; i-- > 0;) {
        coords[i] = rest % spatial[i];
        rest = rest / spatial[i];
      }
      position = coords[rank - 1];
      for (std::size_t i = rank - 1; i-- > 0;) position = coords[i] + position * spatial[i];
    }
    Expr flat = (o[0] * data.shape[1] + o[1]) * plane + position;
    return tir::SelectNode::make(acc == plane, Expr(-1), flat);
  };
  Stage stage;
  stage.name = fmt::format("max_pool{}d_indices", rank);
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(first);
  stage.axis_names = output_axes(rank);
  return stage;
}

Expected<std::vector<Stage>> pool_with_indices_rule(std::size_t rank, const Node& node,
                                                    const std::vector<TensorView>& in,
                                                    ComputeBuilder& builder) {
  // Both blocks read the same data, materialized once if it is an nn.pad.
  std::vector<TensorView> inputs = in;
  inputs[0] = materialize_padding(in[0], builder);
  UMA_TRY_ASSIGN(std::vector<Stage> max, pool_rule(Pool::kMax, rank, node, inputs, builder));
  TensorView values = builder.materialize(max.front());
  Stage copy = pointwise_stage("copy", values.dtype, values.shape, values.at, true);
  return std::vector<Stage>{copy, indices_stage(rank, node, inputs[0], values)};
}

// out[n, c, 0...] = the maximum or the average of data[n, c, every position].
Expected<std::vector<Stage>> global_pool_rule(Pool pool, const Node& node,
                                              const std::vector<TensorView>& in, ComputeBuilder&) {
  const TensorType& out = node.result()->tensor_type();
  const TensorView data = in[0];
  const std::size_t rank = data.shape.size() - 2;
  Reduction all;
  all.combiner = pool == Pool::kMax ? Reduction::Combiner::kMax : Reduction::Combiner::kSum;
  all.extents.assign(data.shape.begin() + 2, data.shape.end());
  all.accumulate_dtype = accumulator(data.dtype);
  if (rank <= 3) all.axis_names = spatial_names(rank, "r");
  all.body = [data](const Indices& o, const Indices& r) {
    Indices at = {o[0], o[1]};
    at.insert(at.end(), r.begin(), r.end());
    return data.at(at);
  };
  if (pool == Pool::kAvg) {
    std::int64_t count = 1;
    for (std::int64_t extent : all.extents) count *= extent;
    all.finalize = [count](const Expr& acc, const Indices&) {
      return acc / constant(acc.type().dtype, static_cast<double>(count));
    };
  }
  Stage stage;
  stage.name = pool == Pool::kMax ? "global_max_pool" : "global_avg_pool";
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(all);
  if (rank <= 3) stage.axis_names = output_axes(rank);
  return std::vector<Stage>{std::move(stage)};
}

}  // namespace

void register_pool_computes(ComputeRegistry& registry) {
  for (Pool pool : {Pool::kMax, Pool::kAvg}) {
    for (std::size_t rank = 1; rank <= 3; ++rank) {
      auto rule = [pool, rank](const Node& node, const std::vector<TensorView>& in,
                               ComputeBuilder& b) { return pool_rule(pool, rank, node, in, b); };
      std::string op = fmt::format("nn.{}_pool{}d", pool == Pool::kMax ? "max" : "avg", rank);
      UMA_CHECK(registry.add(op, rule).ok());
      if (pool == Pool::kAvg) continue;
      auto with_indices = [rank](const Node& node, const std::vector<TensorView>& in,
                                 ComputeBuilder& b) {
        return pool_with_indices_rule(rank, node, in, b);
      };
      UMA_CHECK(registry.add(op + "_with_indices", with_indices).ok());
    }
    auto global = [pool](const Node& node, const std::vector<TensorView>& in, ComputeBuilder& b) {
      return global_pool_rule(pool, node, in, b);
    };
    std::string op = pool == Pool::kMax ? "nn.global_max_pool" : "nn.global_avg_pool";
    UMA_CHECK(registry.add(op, global).ok());
  }
}

}  // namespace uma::lower
