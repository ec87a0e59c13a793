// Pooling over 1 to 3 spatial dimensions of (N, C, spatial...) data: nn.max_pool1d/2d/3d,
// nn.max_pool1d/2d/3d_with_indices, nn.avg_pool1d/2d/3d, and nn.global_max_pool /
// nn.global_avg_pool over every spatial dimension (kept as size 1). One rank-generic inference
// rule and kernel serves each kind.
//
// nn.max_poolNd_with_indices also gives, as a second (i64) result, where each maximum came
// from, as ONNX MaxPool's Indices output defines it: an index into data flattened, padding not
// counted, (n * C + c) * S + s for an element at offset s of a plane of S spatial elements.
// Within the plane, storage_order 0 numbers the elements row-major (the last dimension
// fastest), 1 column-major (the first fastest). The first maximum in the window's row-major
// order wins, or its first NaN; a window with no element inside the data gives -1.
//
// `padding` has 2 * rank values, all the begins then all the ends (ONNX's `pads` order).
// Padding never takes part in a maximum; an average counts it (as zeros) only with
// count_include_pad = 1, and never counts the part of a ceil-mode window that hangs past the
// trailing padding. Each padding must be smaller than the pool size, as ONNX Runtime
// requires, so that every window of an average holds at least one input element.
//
// Max pools take f32, f16, bf16, i8 and u8 (ONNX's MaxPool types) and propagate NaN, as numpy
// and PyTorch do; average pools take floating-point types, sum in double and round once.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "nn_util.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using nn::inside_range;
using nn::Range;
using nn::Window3;

enum class Pool { Max, MaxWithIndices, Avg };

bool is_max(Pool pool) { return pool != Pool::Avg; }

// The larger of two values, or NaN if either is one (numpy's maximum).
double max_or_nan(double a, double b) { return std::isnan(a) || a > b ? a : b; }

// The data operand: `rank` spatial dimensions, or any number from 1 when `rank` is 0.
Status check_data(const std::vector<Type>& inputs, std::size_t rank, Pool pool) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  if (rank == 0 && data.rank() < 3)
    return make_error("data must have rank 3 or more (N, C, spatial...), got {}",
                      to_string(Type(data)));
  if (rank != 0 && data.rank() != rank + 2)
    return make_error("data must have rank {} (NC{}), got {}", rank + 2, nn::spatial_letters(rank),
                      to_string(Type(data)));
  if (is_max(pool) && (data.dtype == DType::i8 || data.dtype == DType::u8))
    return Status::success();
  // f64 is left out: the kernels read the data as f32 (nn::to_floats).
  if (!is_float(data.dtype) || data.dtype == DType::f64)
    return make_error(
        "data is {}, but only {} are supported", dtype_name(data.dtype),
        is_max(pool) ? "f32, f16, bf16, i8 and u8" : "floating-point types (f32, f16, bf16)");
  return Status::success();
}

Status check_flag(const AttrMap& attrs, const char* name) {
  std::int64_t value = attrs.get_int(name);
  if (value != 0 && value != 1)
    return make_error("attribute '{}' must be 0 or 1, got {}", name, value);
  return Status::success();
}

// ---- nn.max_poolNd, nn.avg_poolNd ----

Expected<std::vector<Type>> infer_pool(Pool pool, std::size_t rank, const std::vector<Type>& inputs,
                                       const AttrMap& attrs) {
  UMA_TRY(check_data(inputs, rank, pool));
  UMA_TRY(nn::check_ints_attr(attrs, "pool_size", rank, "", 1));
  UMA_TRY(nn::check_ints_attr(attrs, "strides", rank, "", 1));
  UMA_TRY(nn::check_ints_attr(attrs, "padding", 2 * rank, nn::padding_meaning(rank), 0));
  if (is_max(pool)) UMA_TRY(nn::check_ints_attr(attrs, "dilation", rank, "", 1));
  UMA_TRY(check_flag(attrs, "ceil_mode"));
  if (pool == Pool::Avg) UMA_TRY(check_flag(attrs, "count_include_pad"));
  if (pool == Pool::MaxWithIndices) UMA_TRY(check_flag(attrs, "storage_order"));

  const TensorType& data = inputs[0].tensor();
  const auto& pool_size = attrs.get_ints("pool_size");
  const auto& strides = attrs.get_ints("strides");
  const auto& padding = attrs.get_ints("padding");
  bool ceil_mode = attrs.get_int("ceil_mode") == 1;
  TensorType result{data.dtype, {data.shape[0], data.shape[1]}};
  for (std::size_t i = 0; i < rank; ++i) {
    const char* what = nn::spatial_name(rank, i);
    if (padding[i] >= pool_size[i] || padding[rank + i] >= pool_size[i])
      return make_error(
          "attribute 'padding' is {}, but the {} padding {}+{} is not smaller than "
          "the pool size {}",
          format_ints(padding), what, padding[i], padding[rank + i], pool_size[i]);
    std::int64_t dilation = is_max(pool) ? attrs.get_ints("dilation")[i] : 1;
    UMA_TRY_ASSIGN(std::int64_t size,
                   nn::window_output_size(what, data.shape[2 + i], padding[i], padding[rank + i],
                                          pool_size[i], dilation, strides[i], ceil_mode));
    result.shape.push_back(size);
  }
  UMA_TRY(check_result_type(result));
  if (pool == Pool::MaxWithIndices)
    return std::vector<Type>{result, TensorType{DType::i64, result.shape}};
  return std::vector<Type>{result};
}

// Whether v takes the place of `max` as a window's maximum: it is larger, or the first NaN.
bool beats(double v, double max) { return v > max || (std::isnan(v) && !std::isnan(max)); }

// The position in storage_order of the element at row-major offset `offset` of a plane of
// (depth, height, width) elements: the offset itself for row-major (0), or the position with
// the first dimension fastest for column-major (1).
std::int64_t in_storage_order(std::int64_t offset, const Window3& win, bool column_major) {
  if (!column_major) return offset;
  const std::int64_t depth = win[0].input, height = win[1].input, width = win[2].input;
  const std::int64_t x = offset % width, y = offset / width % height, z = offset / width / height;
  return z + (y + x * height) * depth;
}

// out[n][c][p] = the maximum, or the average, of data[n][c][p * stride - pad + k * dilation]
// over the window's taps k that land inside the input. An average divides by the number of
// those taps, or with count_include_pad by the number that land inside the padded input.
Expected<std::vector<TensorPtr>> pool_kernel(Pool pool, const std::vector<TensorPtr>& inputs,
                                             const AttrMap& attrs,
                                             const std::vector<Type>& result_types) {
  const Shape& ds = inputs[0]->shape();
  const TensorType& out_type = result_types[0].tensor();
  const std::size_t rank = ds.size() - 2;
  const auto& padding = attrs.get_ints("padding");
  const Window3 win = nn::make_window(
      ds, out_type.shape, attrs.get_ints("pool_size"), attrs.get_ints("strides"), padding,
      is_max(pool) ? attrs.get_ints("dilation") : std::vector<std::int64_t>{});
  // The padded input's size along each of the three axes (missing leading axes unpadded).
  std::array<std::int64_t, 3> padded;
  for (std::size_t i = 0; i < 3; ++i) padded[i] = win[i].input;
  for (std::size_t i = 0; i < rank; ++i) padded[3 - rank + i] += padding[i] + padding[rank + i];
  const bool count_pad = pool == Pool::Avg && attrs.get_int("count_include_pad") == 1;
  const bool column_major = pool == Pool::MaxWithIndices && attrs.get_int("storage_order") == 1;
  // The taps of the window at position p along axis i that land inside the padded input
  // (averages have no dilation).
  auto padded_taps = [&](std::size_t i, std::int64_t p) {
    Range r = inside_range(win[i].kernel, padded[i], 1, p * win[i].stride);
    return r.end - r.begin;
  };
  std::vector<float> data = nn::to_floats(*inputs[0]);

  const std::int64_t planes = ds[0] * ds[1];
  const std::int64_t in_plane = product(ds, 2, ds.size());
  const auto& [d, h, w] = win;
  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  double* dst = out.data();
  // The flattened index of each maximum (with_indices only).
  std::vector<std::int64_t> indices;
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const float* src = data.data() + plane * in_plane;
    for (std::int64_t z = 0; z < d.output; ++z) {
      // The taps of the window at z that land inside the input, and where the window starts.
      std::int64_t z_start = z * d.stride - d.pad_before;
      Range kzs = inside_range(d.kernel, d.input, d.dilation, z_start);
      for (std::int64_t y = 0; y < h.output; ++y) {
        std::int64_t y_start = y * h.stride - h.pad_before;
        Range kys = inside_range(h.kernel, h.input, h.dilation, y_start);
        for (std::int64_t x = 0; x < w.output; ++x, ++dst) {
          std::int64_t x_start = x * w.stride - w.pad_before;
          Range kxs = inside_range(w.kernel, w.input, w.dilation, x_start);
          double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
          std::int64_t best = -1;  // the maximum's row-major offset in the plane
          for (std::int64_t kz = kzs.begin; kz < kzs.end; ++kz) {
            for (std::int64_t ky = kys.begin; ky < kys.end; ++ky) {
              const std::int64_t row =
                  ((z_start + kz * d.dilation) * h.input + y_start + ky * h.dilation) * w.input;
              for (std::int64_t kx = kxs.begin; kx < kxs.end; ++kx) {
                const std::int64_t offset = row + x_start + kx * w.dilation;
                double v = src[offset];
                if (best < 0 || beats(v, max)) best = offset;
                max = max_or_nan(max, v);
                sum += v;
              }
            }
          }
          if (pool == Pool::MaxWithIndices)
            indices.push_back(
                best < 0 ? -1 : plane * in_plane + in_storage_order(best, win, column_major));
          if (is_max(pool)) {
            *dst = max;
            continue;
          }
          std::int64_t count =
              count_pad ? padded_taps(0, z) * padded_taps(1, y) * padded_taps(2, x)
                        : (kzs.end - kzs.begin) * (kys.end - kys.begin) * (kxs.end - kxs.begin);
          *dst = sum / static_cast<double>(count);
        }
      }
    }
  }
  std::vector<TensorPtr> results{nn::from_doubles(out, out_type)};
  if (pool == Pool::MaxWithIndices) {
    auto positions = std::make_shared<Tensor>(result_types[1].tensor());
    std::copy(indices.begin(), indices.end(), positions->data<std::int64_t>());
    results.push_back(std::move(positions));
  }
  return results;
}

// ---- nn.global_max_pool, nn.global_avg_pool ----

Expected<std::vector<Type>> infer_global_pool(Pool pool, const std::vector<Type>& inputs,
                                              const AttrMap&) {
  UMA_TRY(check_data(inputs, 0, pool));
  TensorType result = inputs[0].tensor();
  std::fill(result.shape.begin() + 2, result.shape.end(), 1);
  return std::vector<Type>{result};
}

Expected<std::vector<TensorPtr>> global_pool_kernel(Pool pool, const std::vector<TensorPtr>& inputs,
                                                    const std::vector<Type>& result_types) {
  const Shape& ds = inputs[0]->shape();
  const std::int64_t planes = ds[0] * ds[1];
  const std::int64_t in_plane = product(ds, 2, ds.size());
  std::vector<float> data = nn::to_floats(*inputs[0]);
  std::vector<double> out(static_cast<std::size_t>(planes));
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const float* src = data.data() + plane * in_plane;
    double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (std::int64_t i = 0; i < in_plane; ++i) {
      double v = src[i];
      max = max_or_nan(max, v);
      sum += v;
    }
    out[plane] = pool == Pool::Max ? max : sum / static_cast<double>(in_plane);
  }
  return std::vector<TensorPtr>{nn::from_doubles(out, result_types[0].tensor())};
}

}  // namespace

void register_pool_ops(OpRegistry& registry) {
  using Ints = std::vector<std::int64_t>;
  auto add = [&registry](OpDef def) {
    std::string name = def.name;
    UMA_CHECK(registry.add(std::move(def)).ok(), "op {} registered twice", name);
  };
  for (Pool pool : {Pool::Max, Pool::MaxWithIndices, Pool::Avg}) {
    for (std::size_t rank = 1; rank <= 3; ++rank) {
      std::vector<AttrDef> attrs = {{"pool_size", AttrKind::Ints, std::nullopt},
                                    {"strides", AttrKind::Ints, Ints(rank, 1)},
                                    {"padding", AttrKind::Ints, Ints(2 * rank, 0)},
                                    {"ceil_mode", AttrKind::Int, std::int64_t{0}}};
      if (is_max(pool))
        attrs.push_back({"dilation", AttrKind::Ints, Ints(rank, 1)});
      else
        attrs.push_back({"count_include_pad", AttrKind::Int, std::int64_t{0}});
      if (pool == Pool::MaxWithIndices)
        attrs.push_back({"storage_order", AttrKind::Int, std::int64_t{0}});
      add({.name = fmt::format("nn.{}_pool{}d{}", is_max(pool) ? "max" : "avg", rank,
                               pool == Pool::MaxWithIndices ? "_with_indices" : ""),
           .min_inputs = 1,
           .max_inputs = 1,
           .attrs = std::move(attrs),
           .infer = [pool, rank](const std::vector<Type>& inputs,
                                 const AttrMap& a) { return infer_pool(pool, rank, inputs, a); },
           .kernel =
               [pool](const std::vector<TensorPtr>& inputs, const AttrMap& a,
                      const std::vector<Type>& types) {
                 return pool_kernel(pool, inputs, a, types);
               },
           .fusion = FusionCategory::kAnchor});
    }
  }
  for (Pool pool : {Pool::Max, Pool::Avg}) {
    add({.name = fmt::format("nn.global_{}_pool", pool == Pool::Max ? "max" : "avg"),
         .min_inputs = 1,
         .max_inputs = 1,
         .infer = [pool](const std::vector<Type>& inputs,
                         const AttrMap& a) { return infer_global_pool(pool, inputs, a); },
         .kernel =
             [pool](const std::vector<TensorPtr>& inputs, const AttrMap&,
                    const std::vector<Type>& types) {
               return global_pool_kernel(pool, inputs, types);
             },
         .fusion = FusionCategory::kAnchor});
  }
}

}  // namespace uma
