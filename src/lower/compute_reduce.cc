// Compute rules of the reductions (src/op/reduce.cc): sum, mean, max, min and prod over a set
// of axes (all when `axes` is empty), with or without keepdims, and argmax and argmin along
// one axis.
//
// As in the reference kernels: integers sum and multiply in 64 bits and wrap to their type
// when stored, and an integer mean truncates toward zero; max and min propagate NaN; argmax
// (argmin) gives the first (or, with select_last_index, the last) position of the maximum
// (minimum), NaN beating every number. argmax materializes the maximum (argmax_max), then
// finds its position (argmax); argmin likewise (argmin_min, argmin). cumsum is a sum over the
// whole axis of the elements at or before (after, with reverse) the output's position,
// without it with exclusive. topk materializes each element's rank in the order
// (topk_rank), then finds the element of each rank and its position (topk, topk_indices):
// quadratic in the axis's length, which suits the short axes it is used on.
#include "uma/lower/compute_util.h"
#include "uma/op/shape_util.h"

namespace uma::lower {
namespace {

using tir::Expr;
using Combiner = Reduction::Combiner;

struct ReduceRule {
  const char* op;
  Combiner combiner;
  bool mean;
};

const ReduceRule kReduceRules[] = {
    {"sum", Combiner::kSum, false},      {"mean", Combiner::kSum, true},
    {"max", Combiner::kMax, false},      {"min", Combiner::kMin, false},
    {"prod", Combiner::kProduct, false},
};

// Which input axes are reduced, and how output indices and reduction variables make an
// input index.
struct AxisMap {
  std::vector<bool> reduced;
  bool keepdims = false;
  Shape extents;  // of the reduced axes, in order

  Indices input_index(const Indices& out, const Indices& r) const {
    Indices idx;
    std::size_t next_out = 0, next_r = 0;
    for (bool is_reduced : reduced) {
      if (is_reduced) {
        idx.push_back(r[next_r++]);
        if (keepdims) ++next_out;
      } else {
        idx.push_back(out[next_out++]);
      }
    }
    return idx;
  }
};

AxisMap axis_map(const Shape& shape, const std::vector<std::size_t>& axes, bool keepdims) {
  AxisMap map{std::vector<bool>(shape.size(), axes.empty()), keepdims, {}};
  for (std::size_t axis : axes) map.reduced[axis] = true;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (map.reduced[d]) map.extents.push_back(shape[d]);
  return map;
}

// The attribute `axes` normalized (validated by the op's inference).
std::vector<std::size_t> axes_of(const Node& node, std::size_t rank) {
  std::vector<std::size_t> axes;
  for (std::int64_t axis : node.attrs().get_ints("axes"))
    axes.push_back(*normalize_axis(axis, rank));
  return axes;
}

// a / count rounded toward zero, for a non-negative count (TIR's integer division floors).
Expr truncating_divide(const Expr& a, const Expr& count) {
  if (is_unsigned(a.type().dtype)) return a / count;
  return tir::SelectNode::make(a < 0, Expr(0) - (Expr(0) - a) / count, a / count);
}

ComputeRule reduce_rule(const ReduceRule& rule) {
  return [&rule](const Node& node, const std::vector<TensorView>& in,
                 ComputeBuilder&) -> Expected<std::vector<Stage>> {
    const TensorType& out = node.result()->tensor_type();
    const TensorView x = in[0];
    const AxisMap map =
        axis_map(x.shape, axes_of(node, x.shape.size()), node.attrs().get_int("keepdims") == 1);
    Reduction red;
    red.combiner = rule.combiner;
    red.extents = map.extents;
    red.body = [x, map](const Indices& o, const Indices& r) { return x.at(map.input_index(o, r)); };
    const DType dtype = x.dtype;
    if ((rule.combiner == Combiner::kSum || rule.combiner == Combiner::kProduct) &&
        !is_float(dtype))
      red.accumulate_dtype = is_unsigned(dtype) ? DType::u64 : DType::i64;
    if (rule.mean) {
      std::int64_t count = 1;
      for (std::int64_t extent : map.extents) count *= extent;
      red.finalize = [count](const Expr& acc, const Indices&) {
        DType acc_dtype = acc.type().dtype;
        if (is_float(acc_dtype)) return acc / constant(acc_dtype, static_cast<double>(count));
        return truncating_divide(acc, constant(acc_dtype, static_cast<double>(count)));
      };
    }
    Stage stage;
    stage.name = rule.op;
    stage.dtype = out.dtype;
    stage.shape = out.shape;
    stage.reduction = std::move(red);
    return std::vector<Stage>{std::move(stage)};
  };
}

// The maximum (minimum) along the axis first; then the least (or greatest) position holding
// it, or holding a NaN (the extreme is NaN exactly when some element is).
Expected<std::vector<Stage>> arg_reduction_rule(bool min, const Node& node,
                                                const std::vector<TensorView>& in,
                                                ComputeBuilder& builder) {
  const std::string op = min ? "argmin" : "argmax";
  const TensorType& out = node.result()->tensor_type();
  const TensorView x = in[0];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), x.shape.size());
  const bool last = node.attrs().get_int("select_last_index") == 1;
  const AxisMap map = axis_map(x.shape, {axis}, node.attrs().get_int("keepdims") == 1);
  auto element = [x, map](const Indices& o, const Indices& r) {
    return x.at(map.input_index(o, r));
  };

  Stage extreme;
  extreme.name = op + (min ? "_min" : "_max");
  extreme.dtype = x.dtype;
  extreme.shape = out.shape;
  extreme.reduction = Reduction{
      .combiner = min ? Combiner::kMin : Combiner::kMax, .extents = map.extents, .body = element};
  TensorView extreme_view = builder.materialize(extreme);

  const std::int64_t length = x.shape[axis];
  Reduction position;
  position.combiner = last ? Combiner::kMax : Combiner::kMin;
  position.extents = map.extents;
  position.body = [element, extreme_view, last, length](const Indices& o, const Indices& r) {
    Expr v = element(o, r);
    Expr is_extreme = v == extreme_view.at(o);
    if (is_float(v.type().dtype)) is_extreme = is_extreme || intrinsic("isnan", {v});
    return tir::SelectNode::make(is_extreme, r[0], Expr(last ? std::int64_t{-1} : length));
  };
  Stage stage;
  stage.name = op;
  stage.dtype = out.dtype;
  stage.shape = out.shape;
  stage.reduction = std::move(position);
  return std::vector<Stage>{std::move(stage)};
}

Expected<std::vector<Stage>> cumsum_rule(const Node& node, const std::vector<TensorView>& in,
                                         ComputeBuilder&) {
  const TensorView x = in[0];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), x.shape.size());
  const bool exclusive = node.attrs().get_int("exclusive") == 1;
  const bool reverse = node.attrs().get_int("reverse") == 1;
  Reduction sum;
  sum.extents = {x.shape[axis]};
  sum.body = [x, axis, exclusive, reverse](const Indices& o, const Indices& r) {
    Indices idx = o;
    idx[axis] = r[0];
    const Expr& k = r[0];
    const Expr& i = o[axis];
    Expr taken = reverse ? (exclusive ? k > i : k >= i) : (exclusive ? k < i : k <= i);
    return tir::SelectNode::make(taken, x.at(idx), constant(x.dtype, 0));
  };
  if (!is_float(x.dtype)) sum.accumulate_dtype = is_unsigned(x.dtype) ? DType::u64 : DType::i64;
  Stage stage;
  stage.name = "cumsum";
  stage.dtype = x.dtype;
  stage.shape = x.shape;
  stage.reduction = std::move(sum);
  return std::vector<Stage>{std::move(stage)};
}

// topk(x): each element's rank along the axis (how many elements beat it, or equal it
// before it), then output j is the element of rank j and its position.
Expected<std::vector<Stage>> topk_rule(const Node& node, const std::vector<TensorView>& in,
                                       ComputeBuilder& builder) {
  const TensorView x = in[0];
  const std::size_t axis = *normalize_axis(node.attrs().get_int("axis"), x.shape.size());
  const bool smallest = node.attrs().get_int("largest") == 0;
  const Shape& out = node.results()[0]->tensor_type().shape;
  auto at_row = [axis](const Indices& o, const Expr& row) {
    Indices idx = o;
    idx[axis] = row;
    return idx;
  };
  // a before b in the order: larger (smaller), NaN above every number, as argmax compares.
  auto beats = [smallest](const Expr& a, const Expr& b) {
    Expr strict = smallest ? a < b : a > b;
    if (!is_float(a.type().dtype)) return strict;
    return !intrinsic("isnan", {b}) && (intrinsic("isnan", {a}) || strict);
  };
  Stage rank;
  rank.name = "topk_rank";
  rank.dtype = DType::i64;
  rank.shape = x.shape;
  rank.reduction = Reduction{
      .combiner = Combiner::kSum,
      .extents = {x.shape[axis]},
      .body = [x, axis, at_row, beats](const Indices& o, const Indices& r) {
        Expr other = x.at(at_row(o, r[0])), self = x.at(o);
        Expr before = beats(other, self) || (!beats(self, other) && r[0] < o[axis]);
        return tir::SelectNode::make(before, Expr(std::int64_t{1}), Expr(std::int64_t{0}));
      }};
  TensorView ranks = builder.materialize(std::move(rank));
  // The row whose rank is the output's position: its value, or the row itself.
  auto picked = [ranks, at_row, axis](std::function<Expr(const Indices&, const Expr&)> of,
                                      Expr none) {
    return [ranks, at_row, axis, of, none](const Indices& o, const Indices& r) {
      return tir::SelectNode::make(ranks.at(at_row(o, r[0])) == o[axis], of(o, r[0]), none);
    };
  };
  Stage values;
  values.name = "topk";
  values.dtype = x.dtype;
  values.shape = out;
  values.reduction =
      Reduction{.combiner = Combiner::kMax,
                .extents = {x.shape[axis]},
                .body = picked(
                    [x, at_row](const Indices& o, const Expr& row) { return x.at(at_row(o, row)); },
                    lowest(x.dtype))};
  Stage positions;
  positions.name = "topk_indices";
  positions.dtype = DType::i64;
  positions.shape = out;
  positions.reduction = Reduction{
      .combiner = Combiner::kMax,
      .extents = {x.shape[axis]},
      .body = picked([](const Indices&, const Expr& row) { return row; }, Expr(std::int64_t{-1}))};
  return std::vector<Stage>{std::move(values), std::move(positions)};
}

}  // namespace

void register_reduce_computes(ComputeRegistry& registry) {
  for (const ReduceRule& rule : kReduceRules)
    UMA_CHECK(registry.add(rule.op, reduce_rule(rule)).ok());
  for (bool min : {false, true}) {
    auto rule = [min](const Node& node, const std::vector<TensorView>& in, ComputeBuilder& b) {
      return arg_reduction_rule(min, node, in, b);
    };
    UMA_CHECK(registry.add(min ? "argmin" : "argmax", rule).ok());
  }
  UMA_CHECK(registry.add("cumsum", cumsum_rule).ok());
  UMA_CHECK(registry.add("topk", topk_rule).ok());
}

}  // namespace uma::lower
