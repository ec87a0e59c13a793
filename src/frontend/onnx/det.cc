// The converter of ONNX Det (opset 11 on): the determinant of each matrix of the last two
// dimensions, by Gaussian elimination with partial pivoting unrolled over the columns into
// ordinary ops (the matrices' size is static), so every backend runs it as it runs the rest.
//
// Step j works on the (M - j)-square matrix left by the step before: the pivot is the
// element of largest magnitude in its first column (the first of equal ones, as LAPACK
// picks), its row is swapped with the first (which negates the determinant when they
// differ), the determinant is multiplied by the pivot, and multiples of the pivot's row are
// subtracted from the other rows, leaving the matrix of one size less for the next step. A
// zero pivot means the whole column is zero, so the determinant is 0, as numpy gives for a
// singular matrix: the step then divides by 1, so that no NaN reaches the later steps.
// f16 and bf16 compute in f32, rounded once at the end.
#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// The largest matrices whose determinant is imported: each column is a step of some twenty
// nodes, so that a hostile order fails at once rather than importing millions of them.
constexpr std::int64_t kMaxOrder = 256;

// Elements [begin, end) of `value` along `axis`.
Expected<Value*> slice(NodeContext& ctx, Value* value, std::int64_t axis, std::int64_t begin,
                       std::int64_t end) {
  return ctx.emit_value(
      "strided_slice", {value},
      attrs_of({{"begin", Ints{begin}}, {"end", Ints{end}}, {"axes", Ints{axis}}}));
}

// 1, 2, ..., n - 1 as i64, shaped [1, n - 1, 1]: the rows below the first of an n-square
// matrix.
Value* rows_below_first(NodeContext& ctx, std::int64_t n) {
  auto rows = std::make_shared<Tensor>(TensorType{DType::i64, {1, n - 1, 1}});
  for (std::int64_t r = 1; r < n; ++r) rows->data<std::int64_t>()[r - 1] = r;
  return ctx.constant(std::move(rows));
}

struct Elimination {
  Value* pivot;  // [K, 1, 1], negated when its row was swapped with the first
  Value* rest;   // [K, n - 1, n - 1], what is left to eliminate
};

// One step on `matrices` ([K, n, n], n > 1).
Expected<Elimination> eliminate_first_column(NodeContext& ctx, Value* matrices) {
  const Shape& shape = shape_of(matrices);
  const std::int64_t k = shape[0], n = shape[1];
  const DType dtype = matrices->tensor_type().dtype;
  UMA_TRY_ASSIGN(Value * column, slice(ctx, matrices, 2, 0, 1));
  UMA_TRY_ASSIGN(Value * magnitude, ctx.emit_value("abs", {column}));
  UMA_TRY_ASSIGN(
      Value * at,
      ctx.emit_value("argmax", {magnitude},
                     attrs_of({{"axis", std::int64_t{1}}, {"keepdims", std::int64_t{1}}})));
  UMA_TRY_ASSIGN(Value * row_index,
                 ctx.emit_value("broadcast_to", {at}, attrs_of({{"shape", Ints{k, 1, n}}})));
  UMA_TRY_ASSIGN(Value * pivot_row, ctx.emit_value("gather_elements", {matrices, row_index},
                                                   attrs_of({{"axis", std::int64_t{1}}})));
  // The rows after the swap, less the pivot's: the first row takes the pivot's place.
  UMA_TRY_ASSIGN(Value * first, slice(ctx, matrices, 1, 0, 1));
  UMA_TRY_ASSIGN(Value * below, slice(ctx, matrices, 1, 1, n));
  UMA_TRY_ASSIGN(Value * replaced, ctx.emit_value("equal", {at, rows_below_first(ctx, n)}));
  UMA_TRY_ASSIGN(Value * others, ctx.emit_value("where", {replaced, first, below}));

  UMA_TRY_ASSIGN(Value * pivot, slice(ctx, pivot_row, 2, 0, 1));
  UMA_TRY_ASSIGN(Value * kept, ctx.emit_value("equal", {at, scalar(ctx, DType::i64, 0)}));
  UMA_TRY_ASSIGN(Value * negated, ctx.emit_value("negative", {pivot}));
  UMA_TRY_ASSIGN(Value * signed_pivot, ctx.emit_value("where", {kept, pivot, negated}));
  UMA_TRY_ASSIGN(Value * zero, ctx.emit_value("equal", {pivot, scalar(ctx, dtype, 0)}));
  UMA_TRY_ASSIGN(Value * divisor, ctx.emit_value("where", {zero, scalar(ctx, dtype, 1), pivot}));

  UMA_TRY_ASSIGN(Value * leading, slice(ctx, others, 2, 0, 1));
  UMA_TRY_ASSIGN(Value * factors, ctx.emit_value("divide", {leading, divisor}));
  UMA_TRY_ASSIGN(Value * trailing, slice(ctx, others, 2, 1, n));
  UMA_TRY_ASSIGN(Value * pivot_tail, slice(ctx, pivot_row, 2, 1, n));
  UMA_TRY_ASSIGN(Value * removed, ctx.emit_value("multiply", {factors, pivot_tail}));
  UMA_TRY_ASSIGN(Value * rest, ctx.emit_value("subtract", {trailing, removed}));
  return Elimination{signed_pivot, rest};
}

Expected<Values> convert_det(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  const TensorType& type = x->tensor_type();
  const Shape& shape = type.shape;
  if (shape.size() < 2 || shape[shape.size() - 1] != shape[shape.size() - 2])
    return make_error("input 0 ('X') is {}, but must be square matrices [..., M, M]",
                      to_string(Type(type)));
  if (!is_float(type.dtype))
    return make_error("input 0 ('X') is {}, but must be floating-point", to_string(Type(type)));
  const Ints batch(shape.begin(), shape.end() - 2);
  const std::int64_t m = shape.back();
  if (m > kMaxOrder)
    return make_error(
        "input 0 ('X') holds {}x{} matrices; their determinant is imported as one elimination "
        "step per column, for matrices of at most {} columns",
        m, m, kMaxOrder);
  if (m == 0) {
    // The determinant of an empty matrix is 1.
    UMA_TRY(check_constant("the determinants of empty matrices", batch));
    auto ones = std::make_shared<Tensor>(TensorType{type.dtype, batch});
    for (std::int64_t i = 0; i < ones->num_elements(); ++i) ones->set(i, 1);
    return Values{ctx.constant(std::move(ones))};
  }
  const bool widened = type.dtype == DType::f16 || type.dtype == DType::bf16;
  Value* matrices = x;
  if (widened) {
    UMA_TRY_ASSIGN(matrices, cast_to(ctx, x, DType::f32));
  }
  const std::int64_t k = product(shape, 0, batch.size());
  UMA_TRY_ASSIGN(matrices, reshaped(ctx, matrices, {k, m, m}));
  Value* det = nullptr;
  for (std::int64_t n = m; n > 1; --n) {
    UMA_TRY_ASSIGN(Elimination step, eliminate_first_column(ctx, matrices));
    if (det == nullptr) {
      det = step.pivot;
    } else {
      UMA_TRY_ASSIGN(det, ctx.emit_value("multiply", {det, step.pivot}));
    }
    matrices = step.rest;
  }
  if (det == nullptr) {
    det = matrices;
  } else {
    UMA_TRY_ASSIGN(det, ctx.emit_value("multiply", {det, matrices}));
  }
  UMA_TRY_ASSIGN(det, reshaped(ctx, det, batch));
  if (widened) {
    UMA_TRY_ASSIGN(det, cast_to(ctx, det, type.dtype));
  }
  return Values{det};
}

}  // namespace

void register_det_converter(ConverterTable& table) { table.add("Det", 11, convert_det); }

}  // namespace uma::onnx_import
