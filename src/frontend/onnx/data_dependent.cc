// Converters of the ops whose output shapes depend on their inputs' values: NonZero, Unique
// and NonMaxSuppression. uma's shapes are static, so these ops are computed when the model
// is imported, from inputs known then (initializers, Constant nodes, computations on them
// that the importer folds, graph inputs bound to values), and become constants. An input
// known only at run time is an error that says why (NodeContext::require_shaping_input).
//
// Opset differences handled here (1..17): none. NonZero (9, 13) and NonMaxSuppression
// (10, 11) kept their meaning across versions; Unique appeared at 11.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// The one value of a one-element input, or `fallback` when the model leaves it out.
Expected<double> scalar_input(const NodeContext& ctx, std::size_t i, std::string_view what,
                              double fallback) {
  if (!ctx.has_input(i)) return fallback;
  UMA_TRY_ASSIGN(TensorPtr tensor, ctx.require_shaping_input(i, what));
  if (tensor->num_elements() != 1)
    return make_error("input {} ('{}') has {} elements, but must have one", i, what,
                      tensor->num_elements());
  return tensor->get(0);
}

// ---- NonZero ----

// The coordinates of the nonzero elements of `x` in row-major order, one row per dimension
// ([rank, count]); a scalar is a one-element vector, as numpy's nonzero sees it.
TensorPtr nonzero_coordinates(const Tensor& x) {
  Shape shape = x.shape().empty() ? Shape{1} : x.shape();
  std::vector<Ints> rows(shape.size());
  for (std::int64_t i = 0; i < x.num_elements(); ++i) {
    if (x.get(i) == 0) continue;  // NaN is nonzero, as in numpy
    std::int64_t rest = i;
    for (std::size_t d = shape.size(); d-- > 0;) {
      rows[d].push_back(rest % shape[d]);
      rest /= shape[d];
    }
  }
  const auto count = static_cast<std::int64_t>(rows[0].size());
  Ints values;
  for (const Ints& row : rows) values.insert(values.end(), row.begin(), row.end());
  return i64_tensor({static_cast<std::int64_t>(shape.size()), count}, values);
}

Expected<Values> convert_nonzero(NodeContext& ctx) {
  UMA_TRY_ASSIGN(TensorPtr x, ctx.require_shaping_input(0, "X"));
  return Values{ctx.constant(nonzero_coordinates(*x))};
}

// ---- Unique ----

// -1, 0 or 1 as element a of `t` is below, equal to or above element b. 64-bit integers
// compare exactly; NaNs are equal to each other and above every number, as numpy sorts them.
int compare_elements(const Tensor& t, std::int64_t a, std::int64_t b) {
  auto order = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (t.dtype() == DType::i64) return order(t.data<std::int64_t>()[a], t.data<std::int64_t>()[b]);
  if (t.dtype() == DType::u64) return order(t.data<std::uint64_t>()[a], t.data<std::uint64_t>()[b]);
  double x = t.get(a), y = t.get(b);
  if (std::isnan(x) || std::isnan(y)) return order(std::isnan(x), std::isnan(y));
  return order(x, y);
}

// A tensor seen as `count` slices along an axis (each element alone when there is none),
// which Unique compares whole: element k of a slice, in row-major order, is at
// ((k / inner) * count + slice) * inner + k % inner.
struct Slices {
  const Tensor& tensor;
  std::int64_t outer, count, inner;

  std::int64_t size() const { return outer * inner; }
  std::int64_t at(std::int64_t slice, std::int64_t k) const {
    return ((k / inner) * count + slice) * inner + k % inner;
  }
  // Slices compare element by element, as numpy's unique orders them.
  int compare(std::int64_t a, std::int64_t b) const {
    for (std::int64_t k = 0; k < size(); ++k)
      if (int c = compare_elements(tensor, at(a, k), at(b, k)); c != 0) return c;
    return 0;
  }
};

// Unique's outputs but Y: the first occurrence of each distinct slice (in ascending order
// when `sorted`, else in the order they first occur), which distinct slice each slice is,
// and how many times each occurs.
struct Distinct {
  Ints first, inverse, counts;
};

Distinct distinct_slices(const Slices& slices, bool sorted) {
  Ints order(static_cast<std::size_t>(slices.count));
  std::iota(order.begin(), order.end(), 0);
  // Stable, so that each run of equal slices starts at its first occurrence.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return slices.compare(a, b) < 0; });
  Distinct result;
  result.inverse.resize(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || slices.compare(order[i - 1], order[i]) != 0) {
      result.first.push_back(order[i]);
      result.counts.push_back(0);
    }
    result.inverse[static_cast<std::size_t>(order[i])] =
        static_cast<std::int64_t>(result.first.size()) - 1;
    ++result.counts.back();
  }
  if (sorted) return result;
  // Renumber the distinct slices by first occurrence.
  Ints by_first(result.first.size());
  std::iota(by_first.begin(), by_first.end(), 0);
  std::sort(by_first.begin(), by_first.end(), [&](std::int64_t a, std::int64_t b) {
    return result.first[static_cast<std::size_t>(a)] < result.first[static_cast<std::size_t>(b)];
  });
  Ints number(by_first.size());
  Distinct reordered{{}, {}, {}};
  for (std::size_t n = 0; n < by_first.size(); ++n) {
    auto old = static_cast<std::size_t>(by_first[n]);
    number[old] = static_cast<std::int64_t>(n);
    reordered.first.push_back(result.first[old]);
    reordered.counts.push_back(result.counts[old]);
  }
  for (std::int64_t group : result.inverse)
    reordered.inverse.push_back(number[static_cast<std::size_t>(group)]);
  return reordered;
}

// Y: the slices `first` of `slices`, in that order, along the same axis of `shape`.
TensorPtr gather_slices(const Slices& slices, const Ints& first, Shape shape) {
  auto y = std::make_shared<Tensor>(TensorType{slices.tensor.dtype(), std::move(shape)});
  const std::size_t bytes = dtype_size(y->dtype());
  const Slices out{*y, slices.outer, static_cast<std::int64_t>(first.size()), slices.inner};
  for (std::size_t j = 0; j < first.size(); ++j)
    for (std::int64_t k = 0; k < slices.size(); ++k)
      std::memcpy(y->bytes().data() + out.at(static_cast<std::int64_t>(j), k) * bytes,
                  slices.tensor.bytes().data() + slices.at(first[j], k) * bytes, bytes);
  return y;
}

// Unique: Y, indices, inverse_indices and counts, along `axis` when given (slices compared
// whole), else over the flattened input.
Expected<Values> convert_unique(NodeContext& ctx) {
  UMA_TRY_ASSIGN(TensorPtr x, ctx.require_shaping_input(0, "X"));
  UMA_TRY_ASSIGN(std::int64_t sorted, ctx.attr_int("sorted", 1));
  if (sorted != 0 && sorted != 1)
    return make_error("attribute 'sorted' is {}, but must be 0 or 1", sorted);
  Shape shape{x->num_elements()};
  std::size_t axis = 0;
  if (ctx.has_attr("axis")) {
    UMA_TRY_ASSIGN(std::int64_t given, ctx.attr_int("axis", std::nullopt));
    const auto rank = static_cast<std::int64_t>(x->shape().size());
    std::optional<std::size_t> normalized = normalize_axis(given, x->shape().size());
    if (!normalized)
      return make_error("attribute 'axis' is {}, but must be in [{}, {}] for an input of rank {}",
                        given, -rank, rank - 1, rank);
    shape = x->shape();
    axis = *normalized;
  }
  const Slices slices{*x, product(shape, 0, axis), shape[axis],
                      product(shape, axis + 1, shape.size())};
  Distinct distinct = distinct_slices(slices, sorted != 0);
  const auto count = static_cast<std::int64_t>(distinct.first.size());
  shape[axis] = count;
  Values outputs{ctx.constant(gather_slices(slices, distinct.first, shape)),
                 ctx.constant(i64_tensor({count}, distinct.first)),
                 ctx.constant(i64_tensor({slices.count}, distinct.inverse)),
                 ctx.constant(i64_tensor({count}, distinct.counts))};
  // Only the outputs the node names (the others' constants go as dead code).
  outputs.resize(std::min<std::size_t>(outputs.size(), ctx.proto().output_size()));
  return outputs;
}

// ---- NonMaxSuppression ----

// A box by its extents, lower bound first on each axis.
struct Box {
  float y_min, y_max, x_min, x_max;
  float area() const { return (y_max - y_min) * (x_max - x_min); }
};

// Box `values` ([y1, x1, y2, x2] of any two opposite corners, or [x_center, y_center,
// width, height] with `center_point_box`).
Box box_of(const float* v, bool center_point_box) {
  if (center_point_box) return {v[1] - v[3] / 2, v[1] + v[3] / 2, v[0] - v[2] / 2, v[0] + v[2] / 2};
  return {std::min(v[0], v[2]), std::max(v[0], v[2]), std::min(v[1], v[3]), std::max(v[1], v[3])};
}

// Whether a selected box `a` suppresses `b`: their intersection over union is strictly above
// the threshold. Boxes that do not meet, or of no area, never suppress, as in ONNX's
// reference; computed in f32 like it, so that ties at the threshold fall the same way.
bool suppresses(const Box& a, const Box& b, float iou_threshold) {
  const float height = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  const float width = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  if (height <= 0 || width <= 0) return false;
  const float intersection = height * width;
  const float united = a.area() + b.area() - intersection;
  if (a.area() <= 0 || b.area() <= 0 || united <= 0) return false;
  return intersection / united > iou_threshold;
}

struct NmsParams {
  std::int64_t max_per_class = 0;
  float iou_threshold = 0;
  std::optional<float> score_threshold;
  bool center_point_box = false;
};

// The boxes of one batch and class that NMS selects: candidates (scores above the threshold;
// NaN scores never are) by descending score, ties to the lower index, each kept unless a
// box kept before suppresses it, up to the limit.
Ints select_boxes(const float* boxes, const float* scores, std::int64_t count,
                  const NmsParams& params) {
  Ints candidates;
  for (std::int64_t i = 0; i < count; ++i)
    if (!std::isnan(scores[i]) && (!params.score_threshold || scores[i] > *params.score_threshold))
      candidates.push_back(i);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::int64_t a, std::int64_t b) { return scores[a] > scores[b]; });
  Ints selected;
  std::vector<Box> kept;
  for (std::int64_t i : candidates) {
    if (static_cast<std::int64_t>(selected.size()) >= params.max_per_class) break;
    const Box box = box_of(boxes + 4 * i, params.center_point_box);
    if (std::any_of(kept.begin(), kept.end(),
                    [&](const Box& k) { return suppresses(k, box, params.iou_threshold); }))
      continue;
    selected.push_back(i);
    kept.push_back(box);
  }
  return selected;
}

Expected<NmsParams> nms_params(const NodeContext& ctx) {
  NmsParams params;
  UMA_TRY_ASSIGN(std::int64_t center, ctx.attr_int("center_point_box", 0));
  if (center != 0 && center != 1)
    return make_error("attribute 'center_point_box' is {}, but must be 0 or 1", center);
  params.center_point_box = center == 1;
  UMA_TRY_ASSIGN(double max_per_class, scalar_input(ctx, 2, "max_output_boxes_per_class", 0));
  if (!(max_per_class >= 0))
    return make_error("input 2 ('max_output_boxes_per_class') is {}, but must be at least 0",
                      max_per_class);
  // No class selects more boxes than there are; the bound keeps the conversion defined.
  params.max_per_class = static_cast<std::int64_t>(std::min(max_per_class, 0x1p62));
  UMA_TRY_ASSIGN(double iou, scalar_input(ctx, 3, "iou_threshold", 0));
  if (!(iou >= 0 && iou <= 1))
    return make_error("input 3 ('iou_threshold') is {}, but must be in [0, 1]", iou);
  params.iou_threshold = static_cast<float>(iou);
  if (ctx.has_input(4)) {
    UMA_TRY_ASSIGN(double score, scalar_input(ctx, 4, "score_threshold", 0));
    params.score_threshold = static_cast<float>(score);
  }
  return params;
}

// NonMaxSuppression: [selected, 3] rows of (batch, class, box), per batch, per class, by
// descending score.
Expected<Values> convert_non_max_suppression(NodeContext& ctx) {
  UMA_TRY_ASSIGN(TensorPtr boxes, ctx.require_shaping_input(0, "boxes"));
  UMA_TRY_ASSIGN(TensorPtr scores, ctx.require_shaping_input(1, "scores"));
  for (const auto& [i, what, tensor] : {std::tuple{0, "boxes", boxes}, {1, "scores", scores}})
    if (tensor->dtype() != DType::f32)
      return make_error("input {} ('{}') is {}, but must be f32", i, what,
                        dtype_name(tensor->dtype()));
  const Shape& b = boxes->shape();
  if (b.size() != 3 || b[2] != 4)
    return make_error("input 0 ('boxes') has shape {}, but must be batches x boxes x 4",
                      to_string(b));
  const Shape& s = scores->shape();
  if (s.size() != 3 || s[0] != b[0] || s[2] != b[1])
    return make_error(
        "input 1 ('scores') has shape {}, but must be {} x classes x {} for boxes of shape {}",
        to_string(s), b[0], b[1], to_string(b));
  UMA_TRY_ASSIGN(NmsParams params, nms_params(ctx));
  Ints rows;
  for (std::int64_t batch = 0; batch < b[0]; ++batch)
    for (std::int64_t cls = 0; cls < s[1]; ++cls)
      for (std::int64_t box :
           select_boxes(boxes->data<float>() + batch * b[1] * 4,
                        scores->data<float>() + (batch * s[1] + cls) * b[1], b[1], params))
        rows.insert(rows.end(), {batch, cls, box});
  return Values{ctx.constant(i64_tensor({static_cast<std::int64_t>(rows.size()) / 3, 3}, rows))};
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry): all of them
// from their first version.
void register_data_dependent_converters(ConverterTable& table) {
  table.add("NonZero", 9, convert_nonzero);
  table.add("Unique", 11, convert_unique);
  table.add("NonMaxSuppression", 10, convert_non_max_suppression);
}

}  // namespace uma::onnx_import
