// Unit tests of the data-movement ops beyond split, reshape, concatenate and transpose
// (those are in ops_test.cc): squeeze, expand_dims, reshape's allowzero, strided_slice,
// take, gather_elements, gather_nd, scatter_elements, scatter_nd, broadcast_to, tile, nn.pad,
// shape_of, full, arange and layout_transform. Expected values are hand-computed (or numpy's,
// written out); every inference error is asserted exactly.
#include <cmath>
#include <limits>

#include "op_test_fixture.h"

namespace uma {
namespace {

using test::f32;
using test::make_attrs;
using test::make_tensor;
using test::values_of;
using Ints = std::vector<std::int64_t>;
using Values = std::vector<double>;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Type tensor(Shape shape, DType dtype = DType::f32) { return test::tensor_type(shape, dtype); }

// 0, 1, ..., n-1 in `shape`.
std::shared_ptr<Tensor> iota(Shape shape, DType dtype = DType::f32) {
  std::int64_t n = TensorType{dtype, shape}.num_elements();
  Values values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(static_cast<double>(i));
  return make_tensor(dtype, std::move(shape), values);
}

class TransformOpsTest : public test::OpTest {};

// ---- reshape's allowzero ----

TEST_F(TransformOpsTest, ReshapeAllowZero) {
  AttrMap zero_is_zero = make_attrs({{"newshape", Ints{3, 4, 0}}, {"allowzero", std::int64_t{1}}});
  EXPECT_EQ(infer1("reshape", {tensor({0, 3, 4})}, zero_is_zero), tensor({3, 4, 0}));
  // Without allowzero the 0 copies the input's dimension 2.
  EXPECT_EQ(infer1("reshape", {tensor({2, 3, 4})}, make_attrs({{"newshape", Ints{1, 0, 8}}})),
            tensor({1, 3, 8}));
  EXPECT_EQ(error("reshape", {tensor({0, 3})},
                  make_attrs({{"newshape", Ints{0, -1}}, {"allowzero", std::int64_t{1}}})),
            "attribute 'newshape' [0, -1] has a -1 beside a dimension of size 0, so its size is "
            "ambiguous");
  EXPECT_EQ(error("reshape", {tensor({2, 3})},
                  make_attrs({{"newshape", Ints{6}}, {"allowzero", std::int64_t{2}}})),
            "attribute 'allowzero' must be 0 or 1, got 2");
}

// ---- squeeze and expand_dims ----

TEST_F(TransformOpsTest, Squeeze) {
  EXPECT_EQ(infer1("squeeze", {tensor({1, 3, 1, 2})}), tensor({3, 2}));
  EXPECT_EQ(infer1("squeeze", {tensor({1, 3, 1, 2})}, make_attrs({{"axes", Ints{-2}}})),
            tensor({1, 3, 2}));
  EXPECT_EQ(infer1("squeeze", {tensor({1, 1})}, make_attrs({{"axes", Ints{1, 0}}})), tensor({}));
  EXPECT_EQ(infer1("squeeze", {tensor({2, 0})}), tensor({2, 0}));
  auto x = make_tensor(DType::boolean, {1, 3, 1}, {1, 0, 1});
  TensorPtr y = run1("squeeze", {x});
  EXPECT_EQ(y->type(), (TensorType{DType::boolean, {3}}));
  EXPECT_EQ(values_of(*y), (Values{1, 0, 1}));
}

TEST_F(TransformOpsTest, SqueezeInferenceErrors) {
  Type x = tensor({1, 3, 1});
  EXPECT_EQ(error("squeeze", {x}, make_attrs({{"axes", Ints{1}}})),
            "attribute 'axes' names axis 1 of size 3, but only axes of size 1 can be squeezed");
  EXPECT_EQ(error("squeeze", {x}, make_attrs({{"axes", Ints{3}}})),
            "attribute 'axes' has 3 at index 0, but the valid range for rank 3 is [-3, 2]");
  EXPECT_EQ(error("squeeze", {x}, make_attrs({{"axes", Ints{0, -3}}})),
            "attribute 'axes' [0, -3] names axis 0 twice");
}

TEST_F(TransformOpsTest, ExpandDims) {
  auto axes = [](Ints a) { return make_attrs({{"axes", a}}); };
  EXPECT_EQ(infer1("expand_dims", {tensor({3, 4})}, axes({0})), tensor({1, 3, 4}));
  EXPECT_EQ(infer1("expand_dims", {tensor({3, 4})}, axes({2})), tensor({3, 4, 1}));
  EXPECT_EQ(infer1("expand_dims", {tensor({3, 4})}, axes({-1})), tensor({3, 4, 1}));
  // Axes index the result, in any order.
  EXPECT_EQ(infer1("expand_dims", {tensor({3, 4, 5})}, axes({5, 1, 3})),
            tensor({3, 1, 4, 1, 5, 1}));
  EXPECT_EQ(infer1("expand_dims", {tensor({})}, axes({0, 1})), tensor({1, 1}));
  auto x = make_tensor(DType::i64, {2}, {7, 8});
  TensorPtr y = run1("expand_dims", {x}, axes({1}));
  EXPECT_EQ(y->type(), (TensorType{DType::i64, {2, 1}}));
  EXPECT_EQ(values_of(*y), (Values{7, 8}));
}

TEST_F(TransformOpsTest, ExpandDimsInferenceErrors) {
  Type x = tensor({3, 4});
  EXPECT_EQ(error("expand_dims", {x}), "op expand_dims requires attribute 'axes'");
  EXPECT_EQ(error("expand_dims", {x}, make_attrs({{"axes", Ints{}}})),
            "attribute 'axes' is empty; name the axes to insert");
  EXPECT_EQ(error("expand_dims", {x}, make_attrs({{"axes", Ints{3}}})),
            "the result has rank 3: attribute 'axes' has 3 at index 0, but the valid range for "
            "rank 3 is [-3, 2]");
  EXPECT_EQ(error("expand_dims", {x}, make_attrs({{"axes", Ints{0, -4}}})),
            "the result has rank 4: attribute 'axes' [0, -4] names axis 0 twice");
}

// ---- strided_slice ----

AttrMap slice(Ints begin, Ints end, Ints strides = {}, Ints axes = {}) {
  return make_attrs({{"begin", begin}, {"end", end}, {"strides", strides}, {"axes", axes}});
}

TEST_F(TransformOpsTest, StridedSlice1d) {
  auto x = iota({10});
  auto sliced = [&](AttrMap attrs) { return values_of(*run1("strided_slice", {x}, attrs)); };
  // Expected values are numpy's x[begin:end:step].
  EXPECT_EQ(sliced(slice({1}, {8}, {3})), (Values{1, 4, 7}));
  EXPECT_EQ(sliced(slice({8}, {1}, {-3})), (Values{8, 5, 2}));
  EXPECT_EQ(sliced(slice({-1}, {kMin}, {-1})), (Values{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(sliced(slice({9}, {-11}, {-1})), (Values{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(sliced(slice({20}, {-100}, {-4})), (Values{9, 5, 1}));
  EXPECT_EQ(sliced(slice({-100}, {3})), (Values{0, 1, 2}));
  EXPECT_EQ(sliced(slice({-3}, {kMax})), (Values{7, 8, 9}));
  EXPECT_EQ(sliced(slice({100}, {200})), Values{});
  EXPECT_EQ(sliced(slice({5}, {5})), Values{});
  EXPECT_EQ(sliced(slice({2}, {7}, {-1})), Values{});
  // Steps beyond the axis take one element and cannot overflow.
  EXPECT_EQ(sliced(slice({2}, {10}, {kMax})), (Values{2}));
  EXPECT_EQ(sliced(slice({7}, {kMin}, {kMin})), (Values{7}));
  EXPECT_EQ(infer1("strided_slice", {tensor({0})}, slice({-1}, {kMin}, {-1})), tensor({0}));
  EXPECT_EQ(infer1("strided_slice", {tensor({0})}, slice({0}, {kMax})), tensor({0}));
}

TEST_F(TransformOpsTest, StridedSlice2d) {
  auto x = iota({3, 4});
  TensorPtr columns = run1("strided_slice", {x}, slice({1}, {3}, {}, {-1}));
  EXPECT_EQ(columns->shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(*columns), (Values{1, 2, 5, 6, 9, 10}));
  TensorPtr flipped = run1("strided_slice", {x}, slice({kMax, 0}, {kMin, kMax}, {-1, 2}));
  EXPECT_EQ(flipped->shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(*flipped), (Values{8, 10, 4, 6, 0, 2}));
  // Axes in any order pair with begin, end and strides by position.
  TensorPtr both = run1("strided_slice", {x}, slice({-1, 2}, {-5, 0}, {-2, -1}, {1, 0}));
  EXPECT_EQ(values_of(*both), (Values{11, 9, 7, 5}));
  // Without axes, begin covers the leading axes.
  EXPECT_EQ(infer1("strided_slice", {tensor({3, 4}, DType::i8)}, slice({1}, {2})),
            tensor({1, 4}, DType::i8));
}

TEST_F(TransformOpsTest, StridedSliceInferenceErrors) {
  Type x = tensor({3, 4});
  EXPECT_EQ(error("strided_slice", {x}, make_attrs({{"end", Ints{1}}})),
            "op strided_slice requires attribute 'begin'");
  EXPECT_EQ(error("strided_slice", {x}, slice({0, 0}, {1})),
            "attributes 'begin' and 'end' have 2 and 1 values; they need one per sliced axis");
  EXPECT_EQ(error("strided_slice", {x}, slice({0, 0}, {1, 1}, {1})),
            "attribute 'strides' has 1 values, but 'begin' has 2");
  EXPECT_EQ(error("strided_slice", {x}, slice({0, 0}, {1, 1}, {}, {1})),
            "attribute 'axes' has 1 values, but 'begin' has 2");
  EXPECT_EQ(error("strided_slice", {x}, slice({0, 0, 0}, {1, 1, 1})),
            "attribute 'begin' has 3 values, but the operand has rank 2");
  EXPECT_EQ(error("strided_slice", {x}, slice({0}, {1}, {}, {2})),
            "attribute 'axes' has 2 at index 0, but the valid range for rank 2 is [-2, 1]");
  EXPECT_EQ(error("strided_slice", {x}, slice({0, 0}, {1, 1}, {}, {1, -1})),
            "attribute 'axes' [1, -1] names axis 1 twice");
  EXPECT_EQ(error("strided_slice", {x}, slice({0, 0}, {1, 1}, {1, 0})),
            "attribute 'strides' has 0 at index 1");
}

// ---- take ----

TEST_F(TransformOpsTest, Take) {
  auto x = iota({3, 4});
  auto rows = make_tensor(DType::i64, {2}, {2, -3});
  TensorPtr picked = run1("take", {x, rows});
  EXPECT_EQ(picked->shape(), (Shape{2, 4}));
  EXPECT_EQ(values_of(*picked), (Values{8, 9, 10, 11, 0, 1, 2, 3}));
  auto columns = make_tensor(DType::i32, {2, 2}, {3, 0, -1, 1});
  TensorPtr by_column = run1("take", {x, columns}, make_attrs({{"axis", std::int64_t{-1}}}));
  EXPECT_EQ(by_column->shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(values_of(*by_column), (Values{3, 0, 3, 1, 7, 4, 7, 5, 11, 8, 11, 9}));
  // A scalar index removes the axis.
  TensorPtr one =
      run1("take", {x, make_tensor(DType::i8, {}, {1})}, make_attrs({{"axis", std::int64_t{1}}}));
  EXPECT_EQ(one->shape(), (Shape{3}));
  EXPECT_EQ(values_of(*one), (Values{1, 5, 9}));
  EXPECT_EQ(infer1("take", {tensor({5}, DType::boolean), tensor({0}, DType::i64)}),
            tensor({0}, DType::boolean));
}

TEST_F(TransformOpsTest, TakeErrors) {
  EXPECT_EQ(error("take", {tensor({3}), tensor({2})}), "indices are f32, but must be integers");
  EXPECT_EQ(error("take", {tensor({3}), tensor({2}, DType::i64)},
                  make_attrs({{"axis", std::int64_t{1}}})),
            "attribute 'axis' is 1, but the valid range for rank 1 is [-1, 0]");
  auto x = iota({2, 3});
  EXPECT_EQ(run_error("take", {x, make_tensor(DType::i64, {3}, {0, 2, 3})},
                      make_attrs({{"axis", std::int64_t{1}}})),
            "index 3 (element 2 of indices) is out of range for axis 1 of size 3");
  EXPECT_EQ(run_error("take", {x, make_tensor(DType::i32, {1}, {-3})}),
            "index -3 (element 0 of indices) is out of range for axis 0 of size 2");
}

// ---- gather_elements ----

TEST_F(TransformOpsTest, GatherElements) {
  auto x = iota({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  auto indices = make_tensor(DType::i64, {2, 2}, {2, -3, 1, 0});
  EXPECT_EQ(
      values_of(*run1("gather_elements", {x, indices}, make_attrs({{"axis", std::int64_t{1}}}))),
      (Values{2, 0, 4, 3}));
  EXPECT_EQ(values_of(*run1("gather_elements", {x, make_tensor(DType::i32, {1, 3}, {1, 0, 1})})),
            (Values{3, 1, 5}));
  EXPECT_EQ(error("gather_elements", {tensor({3}), tensor({2})}),
            "indices are f32, but must be integers");
  EXPECT_EQ(error("gather_elements", {tensor({3, 2}), tensor({2}, DType::i64)}),
            "indices have rank 1, but data has rank 2");
  EXPECT_EQ(error("gather_elements", {tensor({3, 2}), tensor({2, 3}, DType::i64)}),
            "indices have 3 elements along axis 1, but data only 2");
  EXPECT_EQ(run_error("gather_elements", {x, make_tensor(DType::i64, {1, 1}, {2})}),
            "index 2 (element 0 of indices) is out of range for axis 0 of size 2");
}

// ---- gather_nd ----

TEST_F(TransformOpsTest, GatherNd) {
  auto x = iota({2, 2, 2});  // [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
  // Rows of two indices pick rows; rows of three pick elements; -1 counts from the end.
  auto rows = run1("gather_nd", {x, make_tensor(DType::i64, {2, 2}, {0, 1, -1, 0})});
  EXPECT_EQ(rows->type(), (TensorType{DType::f32, {2, 2}}));
  EXPECT_EQ(values_of(*rows), (Values{2, 3, 4, 5}));
  EXPECT_EQ(values_of(*run1("gather_nd", {x, make_tensor(DType::i32, {1, 3}, {1, 1, 0})})),
            (Values{6}));
  // With one batch dimension, batch b's rows index x[b].
  auto batched = run1("gather_nd", {x, make_tensor(DType::i64, {2, 1}, {1, 0})},
                      make_attrs({{"batch_dims", std::int64_t{1}}}));
  EXPECT_EQ(batched->type(), (TensorType{DType::f32, {2, 2}}));
  EXPECT_EQ(values_of(*batched), (Values{2, 3, 4, 5}));
  EXPECT_EQ(error("gather_nd", {tensor({2, 2}), tensor({2})}),
            "indices are f32, but must be integers");
  EXPECT_EQ(error("gather_nd", {tensor({2, 2}), tensor({}, DType::i64)}),
            "indices are a scalar, but must have rank 1 or more");
  EXPECT_EQ(error("gather_nd", {tensor({2, 2}), tensor({1, 3}, DType::i64)}),
            "indices have rows of 3 indices, but data takes 1 to 2 after 0 batch dimension(s)");
  EXPECT_EQ(error("gather_nd", {tensor({2, 2}), tensor({3, 1}, DType::i64)},
                  make_attrs({{"batch_dims", std::int64_t{1}}})),
            "indices have 3 elements along batch axis 0, but data 2");
  EXPECT_EQ(error("gather_nd", {tensor({2, 2}), tensor({2, 1}, DType::i64)},
                  make_attrs({{"batch_dims", std::int64_t{2}}})),
            "attribute 'batch_dims' is 2, but must be in [0, 2) for data of rank 2 and indices "
            "of rank 2");
  EXPECT_EQ(run_error("gather_nd", {x, make_tensor(DType::i64, {1, 2}, {0, 2})}),
            "index 2 (element 1 of indices) is out of range for axis 1 of size 2");
}

// ---- scatter_elements, scatter_nd ----

TEST_F(TransformOpsTest, ScatterElements) {
  auto x = iota({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  auto indices = make_tensor(DType::i64, {2, 2}, {2, -3, 0, 0});
  auto updates = f32({2, 2}, {10, 20, 30, 40});
  auto axis1 = [](const char* reduction) {
    return make_attrs({{"axis", std::int64_t{1}}, {"reduction", std::string(reduction)}});
  };
  // Row 1 sends both updates to column 0: the last one stays, or both combine.
  EXPECT_EQ(values_of(*run1("scatter_elements", {x, indices, updates}, axis1("none"))),
            (Values{20, 1, 10, 40, 4, 5}));
  EXPECT_EQ(values_of(*run1("scatter_elements", {x, indices, updates}, axis1("add"))),
            (Values{20, 1, 12, 73, 4, 5}));
  EXPECT_EQ(values_of(*run1("scatter_elements", {x, indices, updates}, axis1("mul"))),
            (Values{0, 1, 20, 3600, 4, 5}));
  EXPECT_EQ(values_of(*run1("scatter_elements", {x, indices, updates}, axis1("max"))),
            (Values{20, 1, 10, 40, 4, 5}));
  EXPECT_EQ(values_of(*run1("scatter_elements", {x, indices, updates}, axis1("min"))),
            (Values{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(
      values_of(*run1("scatter_elements",
                      {make_tensor(DType::u8, {3}, {1, 2, 3}), make_tensor(DType::i32, {2}, {1, 1}),
                       make_tensor(DType::u8, {2}, {200, 100})},
                      make_attrs({{"reduction", std::string("add")}}))),
      (Values{1, 46, 3}));
  EXPECT_EQ(error("scatter_elements", {tensor({2, 3}), tensor({2, 2}, DType::i64), tensor({2, 3})}),
            "updates have shape 2x3, but must have shape 2x2");
  EXPECT_EQ(error("scatter_elements",
                  {tensor({2, 3}), tensor({2, 2}, DType::i64), tensor({2, 2}, DType::i32)}),
            "updates are i32, but data is f32");
  EXPECT_EQ(error("scatter_elements", {tensor({2, 3}), tensor({2, 2}, DType::i64), tensor({2, 2})},
                  make_attrs({{"reduction", std::string("sum")}})),
            "attribute 'reduction' is 'sum'; expected 'none', 'add', 'mul', 'max' or 'min'");
  EXPECT_EQ(
      error("scatter_elements",
            {tensor({2}, DType::boolean), tensor({2}, DType::i64), tensor({2}, DType::boolean)},
            make_attrs({{"reduction", std::string("add")}})),
      "attribute 'reduction' is 'add', which bool data does not support");
  EXPECT_EQ(error("scatter_elements", {tensor({2, 3}), tensor({1, 4}, DType::i64), tensor({1, 4})}),
            "indices have 4 elements along axis 1, but data only 3");
  EXPECT_EQ(run_error("scatter_elements",
                      {x, make_tensor(DType::i64, {1, 1}, {-4}), f32({1, 1}, {1})}, axis1("none")),
            "index -4 (element 0 of indices) is out of range for axis 1 of size 3");
}

TEST_F(TransformOpsTest, ScatterNd) {
  auto x = iota({2, 2, 2});
  // Whole rows: x[1, 0] and x[0, 1] replaced.
  auto rows = run1("scatter_nd", {x, make_tensor(DType::i64, {2, 2}, {1, 0, 0, 1}),
                                  f32({2, 2}, {10, 11, 20, 21})});
  EXPECT_EQ(values_of(*rows), (Values{0, 1, 20, 21, 10, 11, 6, 7}));
  // Elements, one of them twice: the last stays, or both combine.
  auto twice = make_tensor(DType::i64, {2, 3}, {1, 1, 1, 1, 1, -1});
  auto updates = f32({2}, {10, 20});
  EXPECT_EQ(values_of(*run1("scatter_nd", {x, twice, updates})), (Values{0, 1, 2, 3, 4, 5, 6, 20}));
  EXPECT_EQ(values_of(*run1("scatter_nd", {x, twice, updates},
                            make_attrs({{"reduction", std::string("add")}}))),
            (Values{0, 1, 2, 3, 4, 5, 6, 37}));
  EXPECT_EQ(values_of(*run1("scatter_nd", {x, twice, updates},
                            make_attrs({{"reduction", std::string("min")}}))),
            (Values{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(error("scatter_nd", {tensor({2, 2, 2}), tensor({2, 2}, DType::i64), tensor({2, 3})}),
            "updates have shape 2x3, but must have shape 2x2");
  EXPECT_EQ(error("scatter_nd", {tensor({2, 2}), tensor({2, 3}, DType::i64), tensor({2})}),
            "indices have rows of 3 indices, but data takes 1 to 2 after 0 batch dimension(s)");
  EXPECT_EQ(run_error("scatter_nd",
                      {x, make_tensor(DType::i64, {1, 1}, {2}), f32({1, 2, 2}, {1, 2, 3, 4})}),
            "index 2 (element 0 of indices) is out of range for axis 0 of size 2");
}

// ---- broadcast_to ----

TEST_F(TransformOpsTest, BroadcastTo) {
  auto column = f32({3, 1}, {1, 2, 3});
  TensorPtr y = run1("broadcast_to", {column}, make_attrs({{"shape", Ints{2, 3, 2}}}));
  EXPECT_EQ(y->shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values_of(*y), (Values{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  TensorPtr filled =
      run1("broadcast_to", {make_tensor(DType::i32, {}, {7})}, make_attrs({{"shape", Ints{2}}}));
  EXPECT_EQ(values_of(*filled), (Values{7, 7}));
  EXPECT_EQ(infer1("broadcast_to", {tensor({1, 4})}, make_attrs({{"shape", Ints{0, 4}}})),
            tensor({0, 4}));
}

TEST_F(TransformOpsTest, BroadcastToInferenceErrors) {
  Type x = tensor({2, 3});
  auto shape = [](Ints s) { return make_attrs({{"shape", s}}); };
  EXPECT_EQ(error("broadcast_to", {x}, shape({3})),
            "cannot broadcast tensor<2x3xf32> to [3]: the target has fewer dimensions");
  EXPECT_EQ(error("broadcast_to", {x}, shape({2, 2, 4})),
            "cannot broadcast tensor<2x3xf32> to [2, 2, 4]: operand dimension 1 has size 3, which "
            "is neither 1 nor 4");
  EXPECT_EQ(error("broadcast_to", {x}, shape({-1, 3})),
            "attribute 'shape' has -1 at index 0; a dimension must not be negative");
  EXPECT_EQ(error("broadcast_to", {tensor({1, 1})}, shape({1LL << 32, 1LL << 32})),
            "result: shape 4294967296x4294967296 has more elements than fit in 64 bits");
}

// ---- tile ----

TEST_F(TransformOpsTest, Tile) {
  auto x = f32({2, 2}, {1, 2, 3, 4});
  TensorPtr y = run1("tile", {x}, make_attrs({{"reps", Ints{2, 3}}}));
  EXPECT_EQ(y->shape(), (Shape{4, 6}));
  EXPECT_EQ(values_of(*y), (Values{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                                   1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  // More reps than axes: the operand gains leading axes of size 1 (numpy.tile).
  TensorPtr z = run1("tile", {f32({3}, {1, 2, 3})}, make_attrs({{"reps", Ints{2, 1, 2}}}));
  EXPECT_EQ(z->shape(), (Shape{2, 1, 6}));
  EXPECT_EQ(values_of(*z), (Values{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  // Fewer: the reps gain leading 1s.
  EXPECT_EQ(infer1("tile", {tensor({2, 3})}, make_attrs({{"reps", Ints{2}}})), tensor({2, 6}));
  EXPECT_EQ(infer1("tile", {tensor({2, 3})}, make_attrs({{"reps", Ints{0, 1}}})), tensor({0, 3}));
}

TEST_F(TransformOpsTest, TileInferenceErrors) {
  EXPECT_EQ(error("tile", {tensor({2})}, make_attrs({{"reps", Ints{-1}}})),
            "attribute 'reps' has -1 at index 0; a repetition count must not be negative");
  EXPECT_EQ(error("tile", {tensor({1LL << 40})}, make_attrs({{"reps", Ints{1LL << 40}}})),
            "tiling dimension 0 (size 1099511627776) 1099511627776 times overflows int64");
  EXPECT_EQ(error("tile", {tensor({1LL << 32, 1})}, make_attrs({{"reps", Ints{1, 1LL << 32}}})),
            "result: shape 4294967296x4294967296 has more elements than fit in 64 bits");
}

// ---- nn.pad ----

AttrMap pad(Ints widths, std::string mode = "constant", double value = 0) {
  return make_attrs({{"pad_width", widths}, {"mode", mode}, {"pad_value", value}});
}

TEST_F(TransformOpsTest, Pad) {
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  // Expected values are numpy.pad's.
  TensorPtr constant = run1("nn.pad", {x}, pad({1, 2, 0, 1}, "constant", 9));
  EXPECT_EQ(constant->shape(), (Shape{3, 6}));
  EXPECT_EQ(values_of(*constant), (Values{9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9}));
  TensorPtr reflect = run1("nn.pad", {x}, pad({1, 2, 1, 2}, "reflect"));
  EXPECT_EQ(reflect->shape(), (Shape{4, 7}));
  EXPECT_EQ(values_of(*reflect), (Values{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                                         6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1}));
  TensorPtr edge = run1("nn.pad", {x}, pad({0, 2, 1, 1}, "edge"));
  EXPECT_EQ(values_of(*edge), (Values{1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6}));
  // Negative widths crop.
  TensorPtr cropped = run1("nn.pad", {x}, pad({0, -1, 0, 0}));
  EXPECT_EQ(cropped->shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of(*cropped), (Values{2, 3, 5, 6}));
  TensorPtr shifted = run1("nn.pad", {x}, pad({0, -2, 0, 1}, "reflect"));
  EXPECT_EQ(values_of(*shifted), (Values{3, 2, 6, 5}));
  TensorPtr ints =
      run1("nn.pad", {make_tensor(DType::i32, {2}, {1, 2})}, pad({1, 0}, "constant", -7));
  EXPECT_EQ(values_of(*ints), (Values{-7, 1, 2}));
  EXPECT_EQ(infer1("nn.pad", {tensor({}, DType::u8)}, pad({})), tensor({}, DType::u8));
  EXPECT_EQ(infer1("nn.pad", {tensor({0})}, pad({2, 1})), tensor({3}));
}

TEST_F(TransformOpsTest, PadInferenceErrors) {
  Type x = tensor({2, 3});
  EXPECT_EQ(error("nn.pad", {x}, pad({1, 1})),
            "attribute 'pad_width' has 2 values, but the operand has rank 2, so it needs 4 (the "
            "padding before every axis, then after every axis)");
  EXPECT_EQ(error("nn.pad", {x}, pad({0, 0, 0, 0}, "wrap")),
            "attribute 'mode' is 'wrap'; expected 'constant', 'reflect' or 'edge'");
  EXPECT_EQ(error("nn.pad", {x}, pad({0, -2, 0, -2})),
            "padding dimension 1 (size 3) by -2 and -2 would leave -1 elements");
  EXPECT_EQ(error("nn.pad", {x}, pad({0, 0, 0, kMax})),
            fmt::format("padding dimension 1 (size 3) by 0 and {} overflows int64", kMax));
  EXPECT_EQ(
      error("nn.pad", {x}, pad({0, 0, 0, 3}, "reflect")),
      "mode 'reflect' pads dimension 1 (size 3) by 3, but can add at most 2 on each side (one "
      "less than the size)");
  EXPECT_EQ(error("nn.pad", {tensor({0, 3})}, pad({0, 0, 1, 0}, "edge")),
            "mode 'edge' cannot pad dimension 0, which has no elements");
  EXPECT_EQ(error("nn.pad", {tensor({2}, DType::i8)}, pad({1, 1}, "constant", 0.5)),
            "attribute 'pad_value' is 0.5, which is not a value of i8");
  EXPECT_EQ(error("nn.pad", {tensor({2}, DType::u8)}, pad({1, 1}, "constant", -1)),
            "attribute 'pad_value' is -1, which is not a value of u8");
  EXPECT_EQ(error("nn.pad", {tensor({1LL << 61})}, pad({1LL << 60, 0})),
            "result: shape 3458764513820540928 is too large");
}

// ---- shape_of, full, arange ----

TEST_F(TransformOpsTest, ShapeOf) {
  TensorPtr shape = run1("shape_of", {make_tensor(DType::boolean, {2, 0, 3}, {})});
  EXPECT_EQ(shape->type(), (TensorType{DType::i64, {3}}));
  EXPECT_EQ(values_of(*shape), (Values{2, 0, 3}));
  EXPECT_EQ(infer1("shape_of", {tensor({})}), tensor({0}, DType::i64));
  EXPECT_EQ(error("shape_of", {TupleType{}}), "operand 0 is tuple<>, not a tensor");
}

TEST_F(TransformOpsTest, Full) {
  TensorPtr ones = run1("full", {}, make_attrs({{"shape", Ints{2, 2}}, {"value", 1.5}}));
  EXPECT_EQ(ones->type(), (TensorType{DType::f32, {2, 2}}));
  EXPECT_EQ(values_of(*ones), (Values{1.5, 1.5, 1.5, 1.5}));
  TensorPtr ints =
      run1("full", {}, make_attrs({{"shape", Ints{3}}, {"value", -3.0}, {"dtype", "i64"}}));
  EXPECT_EQ(ints->dtype(), DType::i64);
  EXPECT_EQ(values_of(*ints), (Values{-3, -3, -3}));
  EXPECT_EQ(infer1("full", {}, make_attrs({{"shape", Ints{}}, {"dtype", "bool"}})),
            tensor({}, DType::boolean));
}

TEST_F(TransformOpsTest, FullInferenceErrors) {
  EXPECT_EQ(error("full", {}), "op full requires attribute 'shape'");
  EXPECT_EQ(error("full", {tensor({1})}, make_attrs({{"shape", Ints{1}}})),
            "op full takes 0 operand(s), got 1");
  EXPECT_EQ(error("full", {}, make_attrs({{"shape", Ints{2, -2}}})),
            "attribute 'shape' has -2 at index 1; a dimension must not be negative");
  EXPECT_EQ(error("full", {}, make_attrs({{"shape", Ints{2}}, {"dtype", "c64"}})),
            "attribute 'dtype' is 'c64', which is not a dtype (f32, f16, bf16, f64, i8, i16, i32, "
            "i64, u8, u16, u32, u64, bool)");
  EXPECT_EQ(error("full", {}, make_attrs({{"shape", Ints{2}}, {"dtype", "i8"}, {"value", 128.0}})),
            "attribute 'value' is 128, which is not a value of i8");
  EXPECT_EQ(error("full", {}, make_attrs({{"shape", Ints{1LL << 62, 4}}})),
            "result: shape 4611686018427387904x4 has more elements than fit in 64 bits");
}

AttrMap range(double start, double stop, double step, std::string dtype = "f32") {
  return make_attrs({{"start", start}, {"stop", stop}, {"step", step}, {"dtype", dtype}});
}

TEST_F(TransformOpsTest, Arange) {
  EXPECT_EQ(values_of(*run1("arange", {}, range(0, 5, 1))), (Values{0, 1, 2, 3, 4}));
  // ceil((2 - 1) / 0.25) = 4 elements.
  EXPECT_EQ(values_of(*run1("arange", {}, range(1, 2, 0.25))), (Values{1, 1.25, 1.5, 1.75}));
  TensorPtr down = run1("arange", {}, range(10, 4, -3, "i32"));
  EXPECT_EQ(down->type(), (TensorType{DType::i32, {2}}));
  EXPECT_EQ(values_of(*down), (Values{10, 7}));
  EXPECT_EQ(infer1("arange", {}, range(5, 1, 1)), tensor({0}));
  EXPECT_EQ(infer1("arange", {}, range(0, 1, -1, "i64")), tensor({0}, DType::i64));
  EXPECT_EQ(infer1("arange", {}, make_attrs({{"stop", 3.0}})), tensor({3}));
  // The count of (0.1, 0.7, 0.2) is ceil(2.9999999999999996) = 3: computed in double.
  EXPECT_EQ(infer1("arange", {}, range(0.1, 0.7, 0.2)), tensor({3}));
}

TEST_F(TransformOpsTest, ArangeInferenceErrors) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error("arange", {}), "op arange requires attribute 'stop'");
  EXPECT_EQ(error("arange", {}, range(0, 5, 0)), "attribute 'step' must not be zero");
  EXPECT_EQ(error("arange", {}, range(0, inf, inf)),
            "arange from 0 to inf by inf has no defined element count");
  EXPECT_EQ(error("arange", {}, range(0, 1e30, 1)),
            "arange from 0 to 1e+30 by 1 has more elements than fit in 64 bits");
  EXPECT_EQ(error("arange", {}, range(0, 0x1p61, 1)),
            "result: shape 2305843009213693952 is too large");
  EXPECT_EQ(error("arange", {}, range(0, 2, 1, "bool")),
            "attribute 'dtype' is bool, which cannot count");
  EXPECT_EQ(error("arange", {}, range(0.5, 2, 1, "i32")),
            "attribute 'start' is 0.5, which is not a value of i32");
  EXPECT_EQ(error("arange", {}, range(0, 2, 0.5, "i32")),
            "attribute 'step' is 0.5, which is not a value of i32");
  EXPECT_EQ(error("arange", {}, range(120, 130, 1, "i8")),
            "the last element is 129, which is not a value of i8");
}

// ---- layout_transform ----

AttrMap layouts(const char* from, const char* to) {
  return make_attrs({{"src_layout", std::string(from)}, {"dst_layout", std::string(to)}});
}

TEST_F(TransformOpsTest, LayoutTransformBlocksAndUnblocks) {
  // (n, c / 2, h, w, c % 2) holds (n, c, h, w): element (c, w) of iota is c * 3 + w.
  auto x = iota({1, 4, 1, 3});
  TensorPtr blocked = run1("layout_transform", {x}, layouts("NCHW", "NCHW2c"));
  EXPECT_EQ(blocked->shape(), (Shape{1, 2, 1, 3, 2}));
  EXPECT_EQ(values_of(*blocked), (Values{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
  TensorPtr back = run1("layout_transform", {blocked}, layouts("NCHW2c", "NCHW"));
  EXPECT_EQ(values_of(*back), values_of(*x));
  // A block moved between primal axes, and the primal axes permuted.
  TensorPtr reblocked = run1("layout_transform", {blocked}, layouts("NCHW2c", "NCHW4c"));
  EXPECT_EQ(values_of(*reblocked), (Values{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  // Elements of every size move whole.
  for (DType dtype : {DType::u8, DType::f16, DType::i32, DType::i64}) {
    auto y = iota({1, 2, 2, 2}, dtype);
    EXPECT_EQ(values_of(*run1("layout_transform", {y}, layouts("NCHW", "NHWC"))),
              (Values{0, 4, 1, 5, 2, 6, 3, 7}))
        << dtype_name(dtype);
  }
}

TEST_F(TransformOpsTest, LayoutTransformErrors) {
  Type x = tensor({1, 4, 3, 3});
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHW", "NCHW3c")),
            "axis C of size 4 does not split into blocks of 3 (layout NCHW3c)");
  EXPECT_EQ(error("layout_transform", {tensor({1, 2, 3, 3, 8})}, layouts("NCHW16c", "NCHW")),
            "dimension 4 of 1x2x3x3x8 is 8, but layout NCHW16c blocks it by 16");
  EXPECT_EQ(error("layout_transform", {tensor({4, 3, 3})}, layouts("NCHW", "NHWC")),
            "a tensor of layout NCHW has rank 4, not 3 (4x3x3)");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHW", "NCH")),
            "layouts NCHW and NCH do not have the same axes");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHW", "NCHW0c")),
            "layout 'NCHW0c' has block 'c' without a positive size");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHW", "NCHWc")),
            "layout 'NCHWc' has block 'c' without a positive size");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHW", "NCHW16x")),
            "layout 'NCHW16x' blocks axis 'x' but has no axis 'X'");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHH", "NCHW")),
            "layout 'NCHH' names axis 'H' twice");
  EXPECT_EQ(error("layout_transform", {x}, layouts("N4CHW", "NCHW")),
            "layout 'N4CHW' gives a size to a primal (upper-case) axis");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NCHW16", "NCHW")),
            "layout 'NCHW16' ends with a number, not an axis letter");
  EXPECT_EQ(error("layout_transform", {x}, layouts("NC-W", "NCHW")),
            "layout 'NC-W' has '-', which is not an axis letter");
  EXPECT_EQ(error("layout_transform", {x}, layouts("", "NCHW")), "layout '' is empty");
}

}  // namespace
}  // namespace uma
