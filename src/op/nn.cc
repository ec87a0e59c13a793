// Matrix products: nn.dense (Relay's dense: data times a transposed weight, plus an optional
// bias) and nn.matmul (numpy's matmul). Operands share one floating-point dtype (see
// nn_util.h for the arithmetic).
//
// nn.dense_packed is nn.dense with its weight (units, input features) packed in blocks of b
// units, (units / b, input features, b) ("NK<b>n", uma/op/layout.h): what the host backend
// makes of a dense layer with a constant weight, so that b units are one vector.
#include <fmt/format.h>

#include "nn_util.h"
#include "uma/op/layout.h"
#include "uma/op/op_registry.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

// ---- nn.dense ----

Expected<std::vector<Type>> infer_dense(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& data = inputs[0].tensor();
  const TensorType& weight = inputs[1].tensor();
  if (data.rank() < 1)
    return make_error("data must have rank 1 or more ([..., input features]), got {}",
                      to_string(Type(data)));
  if (weight.rank() != 2)
    return make_error("weight must have rank 2 ([units, input features]), got {}",
                      to_string(Type(weight)));
  UMA_TRY(nn::check_float_dtypes(inputs, {"data", "weight", "bias"}));
  if (weight.shape[1] != data.shape.back())
    return make_error(
        "weight has {} input features (dimension 1), data has {} (its last dimension)",
        weight.shape[1], data.shape.back());
  UMA_TRY(nn::check_bias(inputs, weight.shape[0], "unit"));
  TensorType result = data;
  result.shape.back() = weight.shape[0];
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// out[m][u] = bias[u] + sum over k of data[m][k] * weight[u][k], where m runs over all
// leading dimensions of data flattened.
Expected<std::vector<TensorPtr>> dense_kernel(const std::vector<TensorPtr>& inputs, const AttrMap&,
                                              const std::vector<Type>& result_types) {
  const TensorType& out_type = result_types[0].tensor();
  std::vector<float> data = nn::to_floats(*inputs[0]);
  std::vector<float> weight = nn::to_floats(*inputs[1]);
  std::vector<float> bias = inputs.size() > 2 ? nn::to_floats(*inputs[2]) : std::vector<float>();
  const std::int64_t units = inputs[1]->shape()[0], features = inputs[1]->shape()[1];
  const Shape& data_shape = inputs[0]->shape();
  const std::int64_t rows = product(data_shape, 0, data_shape.size() - 1);

  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  for (std::int64_t m = 0; m < rows; ++m) {
    for (std::int64_t u = 0; u < units; ++u) {
      double sum = bias.empty() ? 0.0 : bias[u];
      for (std::int64_t k = 0; k < features; ++k)
        sum += double{data[m * features + k]} * weight[u * features + k];
      out[m * units + u] = sum;
    }
  }
  return std::vector<TensorPtr>{nn::from_doubles(out, out_type)};
}

// ---- nn.dense_packed ----

Expected<LayoutTransform> unpacking(const TensorType& packed) {
  if (packed.rank() != 3)
    return make_error(
        "weight must have rank 3 (NK<b>n: unit blocks, input features, b units), got {}",
        to_string(Type(packed)));
  return LayoutTransform::make(fmt::format("NK{}n", packed.shape[2]), "NK");
}

Expected<std::vector<Type>> infer_dense_packed(const std::vector<Type>& inputs,
                                               const AttrMap& attrs) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& packed = inputs[1].tensor();
  UMA_TRY_ASSIGN(LayoutTransform unpack, unpacking(packed));
  UMA_TRY_ASSIGN(Shape shape, unpack.result_shape(packed.shape));
  std::vector<Type> unpacked = inputs;
  unpacked[1] = Type(TensorType{packed.dtype, shape});
  return infer_dense(unpacked, attrs);
}

Expected<std::vector<TensorPtr>> dense_packed_kernel(const std::vector<TensorPtr>& inputs,
                                                     const AttrMap& attrs,
                                                     const std::vector<Type>& result_types) {
  UMA_TRY_ASSIGN(LayoutTransform unpack, unpacking(inputs[1]->type()));
  std::vector<TensorPtr> unpacked = inputs;
  UMA_TRY_ASSIGN(unpacked[1], relayout(*inputs[1], unpack));
  return dense_kernel(unpacked, attrs, result_types);
}

// ---- nn.matmul ----

// numpy's rules: a 1-D `a` is a row (a 1 is prepended to its shape, and removed from the
// result), a 1-D `b` a column (a 1 appended, and removed); the last two dimensions multiply
// as matrices and the ones before them are batch dimensions, broadcast together.
struct MatmulShapes {
  Shape a, b;  // as matrices: rank 2 or more
  Shape batch;
  std::int64_t rows, inner, columns;
};

MatmulShapes matmul_shapes(const Shape& a, const Shape& b) {
  MatmulShapes s{a, b};
  if (a.size() == 1) s.a.insert(s.a.begin(), 1);
  if (b.size() == 1) s.b.push_back(1);
  s.rows = s.a[s.a.size() - 2];
  s.inner = s.a.back();
  s.columns = s.b.back();
  return s;
}

Expected<std::vector<Type>> infer_matmul(const std::vector<Type>& inputs, const AttrMap&) {
  UMA_TRY(check_tensor_operands(inputs));
  const TensorType& a = inputs[0].tensor();
  const TensorType& b = inputs[1].tensor();
  if (a.rank() < 1) return make_error("a must have rank 1 or more, got {}", to_string(Type(a)));
  if (b.rank() < 1) return make_error("b must have rank 1 or more, got {}", to_string(Type(b)));
  UMA_TRY(nn::check_float_dtypes(inputs, {"a", "b"}));
  MatmulShapes s = matmul_shapes(a.shape, b.shape);
  std::int64_t b_inner = s.b[s.b.size() - 2];
  if (s.inner != b_inner)
    return make_error("a has {} columns (its last dimension), but b has {} rows ({})", s.inner,
                      b_inner,
                      b.rank() == 1 ? "its only dimension" : "its second-to-last dimension");
  Shape a_batch(s.a.begin(), s.a.end() - 2), b_batch(s.b.begin(), s.b.end() - 2);
  Expected<Shape> batch = broadcast_shapes(a_batch, b_batch);
  if (!batch) return batch.error().with_context("batch dimensions");
  TensorType result{a.dtype, *batch};
  if (a.rank() > 1) result.shape.push_back(s.rows);
  if (b.rank() > 1) result.shape.push_back(s.columns);
  UMA_TRY(check_result_type(result));
  return std::vector<Type>{result};
}

// out[i][j] = sum over k of a[i][k] * b[k][j] for each pair of broadcast batch matrices. The
// loops run row by row and add a[i][k] times row k of b to the row of out, the order that
// reads both operands contiguously.
Expected<std::vector<TensorPtr>> matmul_kernel(const std::vector<TensorPtr>& inputs, const AttrMap&,
                                               const std::vector<Type>& result_types) {
  const TensorType& out_type = result_types[0].tensor();
  MatmulShapes s = matmul_shapes(inputs[0]->shape(), inputs[1]->shape());
  std::vector<float> a = nn::to_floats(*inputs[0]);
  std::vector<float> b = nn::to_floats(*inputs[1]);
  const Shape a_batch(s.a.begin(), s.a.end() - 2), b_batch(s.b.begin(), s.b.end() - 2);
  const Shape batch = *broadcast_shapes(a_batch, b_batch);
  // Strides in matrices: which matrix of a and of b each batch index reads.
  const std::vector<std::int64_t> a_strides = broadcast_strides(a_batch, batch);
  const std::vector<std::int64_t> b_strides = broadcast_strides(b_batch, batch);
  const std::int64_t rows = s.rows, inner = s.inner, columns = s.columns;

  std::vector<double> out(static_cast<std::size_t>(out_type.num_elements()));
  for (std::int64_t m = 0; m < product(batch, 0, batch.size()); ++m) {
    const float* a_matrix = a.data() + strided_offset(m, batch, a_strides) * rows * inner;
    const float* b_matrix = b.data() + strided_offset(m, batch, b_strides) * inner * columns;
    double* out_matrix = out.data() + m * rows * columns;
    for (std::int64_t i = 0; i < rows; ++i) {
      double* out_row = out_matrix + i * columns;
      for (std::int64_t k = 0; k < inner; ++k) {
        double a_ik = a_matrix[i * inner + k];
        const float* b_row = b_matrix + k * columns;
        for (std::int64_t j = 0; j < columns; ++j) out_row[j] += a_ik * b_row[j];
      }
    }
  }
  return std::vector<TensorPtr>{nn::from_doubles(out, out_type)};
}

}  // namespace

void register_nn_ops(OpRegistry& registry) {
  const std::vector<OpDef> ops = {
      {.name = "nn.dense",
       .min_inputs = 2,
       .max_inputs = 3,
       .infer = infer_dense,
       .kernel = dense_kernel,
       .fusion = FusionCategory::kAnchor},
      {.name = "nn.dense_packed",
       .min_inputs = 2,
       .max_inputs = 3,
       .infer = infer_dense_packed,
       .kernel = dense_packed_kernel,
       .fusion = FusionCategory::kAnchor},
      {.name = "nn.matmul",
       .min_inputs = 2,
       .max_inputs = 2,
       .infer = infer_matmul,
       .kernel = matmul_kernel,
       .fusion = FusionCategory::kAnchor},
  };
  for (const OpDef& op : ops) UMA_CHECK(registry.add(op).ok(), "op {} registered twice", op.name);
}

}  // namespace uma
