// Reading the inputs that ONNX ops take as tensors but uma needs at import time: shapes,
// axes, pads, slice bounds; and the small helpers the converters of this folder share.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "converter.h"

namespace uma::onnx_import {

// The integers of constant input `i`, exactly (i64 beyond 2^53 too): a 1-D i64 or i32
// tensor. Errors name the input: "input 1 ('shape') must be a constant".
Expected<std::vector<std::int64_t>> constant_ints(const NodeContext& ctx, std::size_t i,
                                                  std::string_view what);

// The same for an optional input: nullopt when the model leaves it out.
Expected<std::optional<std::vector<std::int64_t>>> optional_constant_ints(const NodeContext& ctx,
                                                                          std::size_t i,
                                                                          std::string_view what);

// Input `i`, which must be present.
Expected<Value*> required_input(const NodeContext& ctx, std::size_t i, std::string_view what);

// The static shape of a tensor value.
inline const Shape& shape_of(const Value* value) { return value->tensor_type().shape; }

// Attributes from name-value pairs.
AttrMap attrs_of(std::initializer_list<std::pair<const char*, Attribute>> entries);

// A constant scalar of `dtype`.
Value* scalar(NodeContext& ctx, DType dtype, double value);

// An i64 tensor of `shape` holding `values` in row-major order.
TensorPtr i64_tensor(Shape shape, const std::vector<std::int64_t>& values);

// `value` as `dtype`: itself when it is of that dtype already, else a cast.
Expected<Value*> cast_to(NodeContext& ctx, Value* value, DType dtype);

// v[i] along `axis`, that axis dropped.
Expected<Value*> element_at(NodeContext& ctx, Value* v, std::int64_t axis, std::int64_t i);

// Values of one type stacked along a new axis `axis` (a sequence's steps into one tensor).
Expected<Value*> stack(NodeContext& ctx, const std::vector<Value*>& values, std::int64_t axis);

// `value` reshaped; a 0 in `shape` is an empty dimension.
Expected<Value*> reshaped(NodeContext& ctx, Value* value, std::vector<std::int64_t> shape);

// Every constant a converter builds from a model's sizes has at most this many elements (64
// MB of f32): the matrix of a 2048-point complex DFT, windows, mel matrices and n-gram tables
// far larger than models use. A model asking for more is refused by name before anything is
// allocated.
constexpr std::int64_t kMaxConstant = std::int64_t{1} << 24;

// An error naming `what` when a constant of `shape` would exceed kMaxConstant elements.
Status check_constant(std::string_view what, const Shape& shape);

// A converter's single result.
Expected<std::vector<Value*>> single(Expected<Value*> value);

}  // namespace uma::onnx_import
