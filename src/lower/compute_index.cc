// Compute rules of the index family (src/op/index.cc). The gathers (strided_slice, take,
// gather_elements, gather_nd) read one input element per output element, so their stages are
// injective (inlined wherever they are read). A scatter's output element is a reduction over
// the updates: of those aimed at it (combined, then combined with data's element), or, with
// no reduction, of their positions (the last one's update is stored, as the reference
// kernel's sequential stores leave it).
#include "../op/index_util.h"
#include "pointwise_util.h"
#include "uma/lower/compute_util.h"
#include "uma/op/shape_util.h"

namespace uma::lower {
namespace {

using tir::Expr;

// Output index j along an axis reads input index begin + j * step.
Expected<std::vector<Stage>> strided_slice_rule(const Node& node, const std::vector<TensorView>& in,
                                                ComputeBuilder&) {
  TensorView x = in[0];
  UMA_TRY_ASSIGN(std::vector<AxisSlice> slices, resolve_slices(node.attrs(), x.shape));
  return pointwise_result(
      node,
      [x, slices](const Indices& idx) {
        Indices from(idx.size());
        for (std::size_t d = 0; d < idx.size(); ++d)
          from[d] = idx[d] * slices[d].step + slices[d].begin;
        return x.at(from);
      },
      /*injective=*/true);
}

// An index along an axis of `dim` elements: a negative one counts from the end, and one out
// of range (which the reference kernels reject, and the run-time check reports) reads the
// nearest element, so that no read leaves the data.
Expr clamped_index(const Expr& index, std::int64_t dim) {
  return bind(cast(DType::i64, index), "row", [&](const Expr& r) {
    Expr wrapped = tir::SelectNode::make(r < 0, r + dim, r);
    return tir::min(tir::max(wrapped, Expr(0)), Expr(dim - 1));
  });
}

// The run-time check that the indices are in range, as the reference kernels' index_at
// requires: each element of `indices` indexes `axis` of `dim` elements, or, for a column,
// those whose last index is `column` do (gather_nd's and scatter_nd's rows).
void check_indices(ComputeBuilder& builder, const TensorView& indices, std::size_t axis,
                   std::int64_t dim, std::optional<std::int64_t> column = std::nullopt) {
  auto index = [indices](const Indices& idx) { return cast(DType::i64, indices.at(idx)); };
  builder.check(
      indices.shape,
      [index, dim, column](const Indices& idx) {
        Expr failed =
            bind(index(idx), "index", [&](const Expr& i) { return i < -dim || i >= dim; });
        return column ? (idx.back() == *column && failed) : failed;
      },
      index,
      fmt::format("index {{value}} (element {{element}} of indices) is out of range for axis {} "
                  "of size {}",
                  axis, dim));
}

// take(data, indices): data with the axis replaced by the indices' dimensions, each index
// read as clamped_index does.
Expected<std::vector<Stage>> take_rule(const Node& node, const std::vector<TensorView>& in,
                                       ComputeBuilder& builder) {
  TensorView data = in[0], indices = in[1];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), data.shape.size());
  const std::int64_t dim = data.shape[axis];
  check_indices(builder, indices, axis, dim);
  return pointwise_result(
      node,
      [data, indices, axis, dim](const Indices& idx) {
        const std::size_t count = indices.shape.size();
        Indices which(idx.begin() + static_cast<std::ptrdiff_t>(axis),
                      idx.begin() + static_cast<std::ptrdiff_t>(axis + count));
        Indices from(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
        from.push_back(clamped_index(indices.at(which), dim));
        from.insert(from.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + count), idx.end());
        return data.at(from);
      },
      /*injective=*/true);
}

// gather_elements(data, indices): data at the output's indices, the axis's replaced by the
// index there.
Expected<std::vector<Stage>> gather_elements_rule(const Node& node,
                                                  const std::vector<TensorView>& in,
                                                  ComputeBuilder& builder) {
  TensorView data = in[0], indices = in[1];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), data.shape.size());
  const std::int64_t dim = data.shape[axis];
  check_indices(builder, indices, axis, dim);
  return pointwise_result(
      node,
      [data, indices, axis, dim](const Indices& idx) {
        Indices from = idx;
        from[axis] = clamped_index(indices.at(idx), dim);
        return data.at(from);
      },
      /*injective=*/true);
}

// gather_nd(data, indices): the output's first dimensions pick a row of indices, whose
// values index data's dimensions after the batch ones; the rest index the slice.
Expected<std::vector<Stage>> gather_nd_rule(const Node& node, const std::vector<TensorView>& in,
                                            ComputeBuilder& builder) {
  TensorView data = in[0], indices = in[1];
  const NdIndexing nd = *nd_indexing(data.shape, TensorType{indices.dtype, indices.shape},
                                     node.attrs().get_int("batch_dims"));
  for (std::size_t j = 0; j < nd.depth; ++j)
    check_indices(builder, indices, nd.batch + j, data.shape[nd.batch + j],
                  static_cast<std::int64_t>(j));
  const std::size_t rows = indices.shape.size() - 1;
  return pointwise_result(
      node,
      [data, indices, nd, rows](const Indices& idx) {
        Indices row(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(rows));
        Indices from(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(nd.batch));
        for (std::size_t j = 0; j < nd.depth; ++j) {
          row.push_back(Expr(static_cast<std::int64_t>(j)));
          from.push_back(clamped_index(indices.at(row), data.shape[nd.batch + j]));
          row.pop_back();
        }
        from.insert(from.end(), idx.begin() + static_cast<std::ptrdiff_t>(rows), idx.end());
        return data.at(from);
      },
      /*injective=*/true);
}

// data's element `d` combined with `acc`, the updates aimed at it combined; max and min
// propagate NaN as the reference kernel does.
Expr scatter_combine(ScatterReduction reduction, const Expr& d, const Expr& acc) {
  bool floats = is_float(d.type().dtype);
  switch (reduction) {
    case ScatterReduction::kAdd:
      return d + acc;
    case ScatterReduction::kMul:
      return d * acc;
    case ScatterReduction::kMax:
      if (!floats) return tir::max(d, acc);
      return tir::SelectNode::make(intrinsic("isnan", {d}) || d >= acc, d, acc);
    case ScatterReduction::kMin:
      if (!floats) return tir::min(d, acc);
      return tir::SelectNode::make(intrinsic("isnan", {d}) || d <= acc, d, acc);
    case ScatterReduction::kNone:
      break;
  }
  return acc;
}

// The scatter's stage, given for output index o and update position r whether the update
// there is aimed at o (`hits`), its value (`update`), and its flat position (`flat`) and the
// update at a flat position (`update_at`) for the reduction `none`.
struct ScatterParts {
  std::function<Expr(const Indices&o, const Indices&r)> hits, update, flat;
  std::function<Expr(const Indices& o, const Expr& flat)> update_at;
  Shape extents;
};

Expected<std::vector<Stage>> scatter_stage(const Node& node, const TensorView& data,
                                           ScatterParts parts) {
  UMA_TRY_ASSIGN(ScatterReduction reduction, scatter_reduction(node.attrs()));
  Reduction red;
  red.extents = parts.extents;
  if (reduction == ScatterReduction::kNone) {
    red.combiner = Reduction::Combiner::kMax;
    red.accumulate_dtype = DType::i64;
    red.body = [parts](const Indices& o, const Indices& r) {
      return tir::SelectNode::make(parts.hits(o, r), parts.flat(o, r), Expr(std::int64_t{-1}));
    };
    red.finalize = [parts, data](const Expr& last, const Indices& o) {
      return tir::SelectNode::make(last >= 0, parts.update_at(o, last), data.at(o));
    };
  } else {
    static constexpr Reduction::Combiner kCombiners[] = {
        Reduction::Combiner::kSum, Reduction::Combiner::kSum, Reduction::Combiner::kProduct,
        Reduction::Combiner::kMax, Reduction::Combiner::kMin};
    red.combiner = kCombiners[static_cast<std::size_t>(reduction)];
    const DType dtype = data.dtype;
    Expr identity = reduction == ScatterReduction::kAdd   ? constant(dtype, 0)
                    : reduction == ScatterReduction::kMul ? constant(dtype, 1)
                    : reduction == ScatterReduction::kMax ? lowest(dtype)
                                                          : highest(dtype);
    red.body = [parts, identity](const Indices& o, const Indices& r) {
      return tir::SelectNode::make(parts.hits(o, r), parts.update(o, r), identity);
    };
    red.finalize = [data, reduction](const Expr& acc, const Indices& o) {
      return scatter_combine(reduction, data.at(o), acc);
    };
  }
  Stage stage;
  stage.name = block_name(node.op_name());
  stage.dtype = data.dtype;
  stage.shape = data.shape;
  stage.reduction = std::move(red);
  return std::vector<Stage>{std::move(stage)};
}

// scatter_elements(data, indices, updates): update i lands on i with its axis coordinate
// replaced by indices[i]; an output element beyond indices' extent in another axis gets
// none. The reduction runs along that axis of indices.
Expected<std::vector<Stage>> scatter_elements_rule(const Node& node,
                                                   const std::vector<TensorView>& in,
                                                   ComputeBuilder& builder) {
  TensorView data = in[0], indices = in[1], updates = in[2];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), data.shape.size());
  const std::int64_t dim = data.shape[axis];
  check_indices(builder, indices, axis, dim);
  auto at_r = [axis](const Indices& o, const Expr& r) {
    Indices idx = o;
    idx[axis] = r;
    return idx;
  };
  ScatterParts parts;
  parts.extents = {indices.shape[axis]};
  parts.hits = [data, indices, axis, dim, at_r](const Indices& o, const Indices& r) {
    Expr hit = clamped_index(indices.at(at_r(o, r[0])), dim) == o[axis];
    // Outside indices' extent, indices is not read (a select evaluates one branch).
    for (std::size_t d = o.size(); d-- > 0;)
      if (d != axis && indices.shape[d] < data.shape[d])
        hit = tir::SelectNode::make(o[d] < indices.shape[d], hit, Expr(false));
    return hit;
  };
  parts.update = [updates, at_r](const Indices& o, const Indices& r) {
    return updates.at(at_r(o, r[0]));
  };
  parts.flat = [](const Indices&, const Indices& r) { return r[0]; };
  parts.update_at = [updates, at_r](const Indices& o, const Expr& flat) {
    return updates.at(at_r(o, flat));
  };
  return scatter_stage(node, data, std::move(parts));
}

// scatter_nd(data, indices, updates): the reduction runs over the rows of indices; row r
// hits the output elements whose first k indices it holds.
Expected<std::vector<Stage>> scatter_nd_rule(const Node& node, const std::vector<TensorView>& in,
                                             ComputeBuilder& builder) {
  TensorView data = in[0], indices = in[1], updates = in[2];
  const NdIndexing nd = *nd_indexing(data.shape, TensorType{indices.dtype, indices.shape}, 0);
  for (std::size_t j = 0; j < nd.depth; ++j)
    check_indices(builder, indices, j, data.shape[j], static_cast<std::int64_t>(j));
  const Shape rows(indices.shape.begin(), indices.shape.end() - 1);
  auto update_index = [nd](const Indices& o, const Indices& r) {
    Indices idx = r;
    idx.insert(idx.end(), o.begin() + static_cast<std::ptrdiff_t>(nd.depth), o.end());
    return idx;
  };
  ScatterParts parts;
  parts.extents = rows;
  parts.hits = [indices, data, nd](const Indices& o, const Indices& r) {
    Expr hit;
    Indices row = r;
    for (std::size_t j = 0; j < nd.depth; ++j) {
      row.push_back(Expr(static_cast<std::int64_t>(j)));
      Expr same = clamped_index(indices.at(row), data.shape[j]) == o[j];
      hit = j == 0 ? same : (hit && same);
      row.pop_back();
    }
    return hit;
  };
  parts.update = [updates, update_index](const Indices& o, const Indices& r) {
    return updates.at(update_index(o, r));
  };
  parts.flat = [rows](const Indices&, const Indices& r) {
    Expr flat(std::int64_t{0});
    for (std::size_t d = 0; d < rows.size(); ++d) flat = flat * rows[d] + r[d];
    return flat;
  };
  parts.update_at = [updates, update_index, rows](const Indices& o, const Expr& flat) {
    Indices r(rows.size());
    Expr rest = flat;
    for (std::size_t d = rows.size(); d-- > 0;) {
      r[d] = rest % rows[d];
      rest = rest / rows[d];
    }
    return updates.at(update_index(o, r));
  };
  return scatter_stage(node, data, std::move(parts));
}

}  // namespace

void register_index_computes(ComputeRegistry& registry) {
  UMA_CHECK(registry.add("strided_slice", strided_slice_rule).ok());
  UMA_CHECK(registry.add("take", take_rule).ok());
  UMA_CHECK(registry.add("gather_elements", gather_elements_rule).ok());
  UMA_CHECK(registry.add("gather_nd", gather_nd_rule).ok());
  UMA_CHECK(registry.add("scatter_elements", scatter_elements_rule).ok());
  UMA_CHECK(registry.add("scatter_nd", scatter_nd_rule).ok());
}

}  // namespace uma::lower
