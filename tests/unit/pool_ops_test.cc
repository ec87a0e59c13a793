// Unit tests of the pooling ops: nn.max_pool1d/2d/3d, their _with_indices forms,
// nn.avg_pool1d/2d/3d and the global pools. Kernels are checked against hand-computed values
// (ONNX's examples among them) and against the definition evaluated per output element over an
// explicitly padded copy of the input (the kernel instead clips each window to the input); every
// inference error exactly.
#include <cmath>
#include <limits>
#include <random>

#include "op_test_fixture.h"
#include "uma/op/shape_util.h"

namespace uma {
namespace {

using test::expect_near;
using test::f32;
using test::make_attrs;
using test::make_tensor;
using test::values_of;
using Ints = std::vector<std::int64_t>;
using Values = std::vector<double>;

Type tensor(Shape shape, DType dtype = DType::f32) { return test::tensor_type(shape, dtype); }

class PoolOpsTest : public test::OpTest {};

// ---- schemas ----

TEST_F(PoolOpsTest, Schemas) {
  for (std::size_t rank = 1; rank <= 3; ++rank) {
    for (const char* kind : {"max", "avg"}) {
      std::string name = fmt::format("nn.{}_pool{}d", kind, rank);
      SCOPED_TRACE(name);
      EXPECT_EQ(op(name).min_inputs, 1);
      EXPECT_EQ(op(name).max_inputs, 1);
      AttrMap attrs;
      Status missing = op(name).normalize_attrs(attrs);
      ASSERT_FALSE(missing.ok());
      EXPECT_EQ(missing.error().message(),
                fmt::format("op {} requires attribute 'pool_size'", name));
      attrs = make_attrs({{"pool_size", Ints(rank, 2)}});
      ASSERT_TRUE(op(name).normalize_attrs(attrs).ok());
      EXPECT_EQ(attrs.get_ints("strides"), Ints(rank, 1));
      EXPECT_EQ(attrs.get_ints("padding"), Ints(2 * rank, 0));
      EXPECT_EQ(attrs.get_int("ceil_mode"), 0);
      bool max = std::string_view(kind) == "max";
      EXPECT_EQ(attrs.has("dilation"), max);
      EXPECT_EQ(attrs.has("count_include_pad"), !max);
      if (max) {
        EXPECT_EQ(attrs.get_ints("dilation"), Ints(rank, 1));
      } else {
        EXPECT_EQ(attrs.get_int("count_include_pad"), 0);
      }
    }
  }
  for (const char* name : {"nn.global_max_pool", "nn.global_avg_pool"}) {
    EXPECT_TRUE(op(name).attrs.empty()) << name;
    EXPECT_EQ(op(name).max_inputs, 1) << name;
  }
}

// ---- inference ----

TEST_F(PoolOpsTest, Shapes) {
  auto pool2d = [&](const char* name, Shape data, AttrMap attrs) {
    return infer1(name, {tensor(data)}, attrs);
  };
  EXPECT_EQ(pool2d("nn.max_pool2d", {1, 3, 32, 32},
                   make_attrs({{"pool_size", Ints{5, 5}}, {"strides", Ints{3, 3}}})),
            tensor({1, 3, 10, 10}));
  EXPECT_EQ(pool2d("nn.avg_pool2d", {1, 3, 28, 28},
                   make_attrs({{"pool_size", Ints{3, 3}}, {"padding", Ints{2, 2, 2, 2}}})),
            tensor({1, 3, 30, 30}));
  // ONNX's ceil example: (4 - 3) / 2 rounds up to 1, so two windows.
  EXPECT_EQ(pool2d("nn.max_pool2d", {1, 1, 4, 4},
                   make_attrs({{"pool_size", Ints{3, 3}},
                               {"strides", Ints{2, 2}},
                               {"ceil_mode", std::int64_t{1}}})),
            tensor({1, 1, 2, 2}));
  // Ceil mode would add a third window at 2 * 2 - 1 = 3, past the input 0..2: it is dropped.
  AttrMap ceil = make_attrs({{"pool_size", Ints{2}},
                             {"strides", Ints{2}},
                             {"padding", Ints{1, 1}},
                             {"ceil_mode", std::int64_t{1}}});
  EXPECT_EQ(infer1("nn.avg_pool1d", {tensor({1, 1, 3})}, ceil), tensor({1, 1, 2}));
  // ... but one that starts on the last element stays: (4 + 2 - 2) / 2 = 2, and 2 * 2 - 1 = 3.
  EXPECT_EQ(infer1("nn.avg_pool1d", {tensor({1, 1, 4})}, ceil), tensor({1, 1, 3}));
  EXPECT_EQ(infer1("nn.max_pool1d", {tensor({1, 1, 5}, DType::u8)},
                   make_attrs({{"pool_size", Ints{2}}, {"dilation", Ints{3}}})),
            tensor({1, 1, 2}, DType::u8));
  EXPECT_EQ(infer1("nn.max_pool3d", {tensor({2, 3, 4, 5, 6}, DType::bf16)},
                   make_attrs({{"pool_size", Ints{2, 2, 2}}, {"strides", Ints{2, 1, 3}}})),
            tensor({2, 3, 2, 4, 2}, DType::bf16));
  EXPECT_EQ(infer1("nn.global_avg_pool", {tensor({2, 3, 4, 5, 6, 7})}), tensor({2, 3, 1, 1, 1, 1}));
  EXPECT_EQ(infer1("nn.global_max_pool", {tensor({2, 3, 4}, DType::i8)}),
            tensor({2, 3, 1}, DType::i8));
}

TEST_F(PoolOpsTest, InferenceErrors) {
  Type data = tensor({1, 2, 5, 5});
  auto pool_error = [&](const char* name, AttrMap attrs) {
    if (!attrs.has("pool_size")) attrs.set("pool_size", Ints{3, 3});
    return error(name, {data}, attrs);
  };
  EXPECT_EQ(error("nn.max_pool2d", {tensor({2, 5, 5})}, make_attrs({{"pool_size", Ints{3, 3}}})),
            "data must have rank 4 (NCHW), got tensor<2x5x5xf32>");
  EXPECT_EQ(error("nn.avg_pool3d", {data}, make_attrs({{"pool_size", Ints{3, 3, 3}}})),
            "data must have rank 5 (NCDHW), got tensor<1x2x5x5xf32>");
  EXPECT_EQ(
      error("nn.avg_pool1d", {tensor({1, 2, 5}, DType::u8)}, make_attrs({{"pool_size", Ints{3}}})),
      "data is u8, but only floating-point types (f32, f16, bf16) are supported");
  EXPECT_EQ(
      error("nn.max_pool1d", {tensor({1, 2, 5}, DType::i32)}, make_attrs({{"pool_size", Ints{3}}})),
      "data is i32, but only f32, f16, bf16, i8 and u8 are supported");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"pool_size", Ints{3}}})),
            "attribute 'pool_size' must have 2 values, got 1");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"pool_size", Ints{3, 0}}})),
            "attribute 'pool_size' must be positive, got [3, 0]");
  EXPECT_EQ(pool_error("nn.avg_pool2d", make_attrs({{"strides", Ints{0, 1}}})),
            "attribute 'strides' must be positive, got [0, 1]");
  EXPECT_EQ(pool_error("nn.avg_pool2d", make_attrs({{"padding", Ints{1, 1}}})),
            "attribute 'padding' must have 4 values (top, left, bottom, right), got 2");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"padding", Ints{0, 0, -1, 0}}})),
            "attribute 'padding' must be non-negative, got [0, 0, -1, 0]");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"dilation", Ints{1, 1, 1}}})),
            "attribute 'dilation' must have 2 values, got 3");
  EXPECT_EQ(pool_error("nn.avg_pool2d", make_attrs({{"dilation", Ints{1, 1}}})),
            "unknown attribute 'dilation' for op nn.avg_pool2d");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"count_include_pad", std::int64_t{1}}})),
            "unknown attribute 'count_include_pad' for op nn.max_pool2d");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"ceil_mode", std::int64_t{2}}})),
            "attribute 'ceil_mode' must be 0 or 1, got 2");
  EXPECT_EQ(pool_error("nn.avg_pool2d", make_attrs({{"count_include_pad", std::int64_t{-1}}})),
            "attribute 'count_include_pad' must be 0 or 1, got -1");
  EXPECT_EQ(pool_error("nn.avg_pool2d", make_attrs({{"padding", Ints{0, 3, 0, 0}}})),
            "attribute 'padding' is [0, 3, 0, 0], but the width padding 3+0 is not smaller than "
            "the pool size 3");
  EXPECT_EQ(pool_error("nn.max_pool2d",
                       make_attrs({{"padding", Ints{0, 0, 1, 0}}, {"pool_size", Ints{1, 1}}})),
            "attribute 'padding' is [0, 0, 1, 0], but the height padding 0+1 is not smaller than "
            "the pool size 1");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"pool_size", Ints{6, 1}}})),
            "output height would be 0 (input 5, padding 0+0, kernel 6, dilation 1, stride 1)");
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"dilation", Ints{1, 3}}})),
            "output width would be -1 (input 5, padding 0+0, kernel 3, dilation 3, stride 1)");
  std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(pool_error("nn.max_pool2d", make_attrs({{"pool_size", Ints{huge, 3}},
                                                    {"padding", Ints{huge - 1, 0, 1, 0}}})),
            fmt::format("output height overflows int64 (input 5, padding {}+1, kernel {}, "
                        "dilation 1, stride 1)",
                        huge - 1, huge));
  EXPECT_EQ(error("nn.global_avg_pool", {tensor({2, 3})}),
            "data must have rank 3 or more (N, C, spatial...), got tensor<2x3xf32>");
  EXPECT_EQ(error("nn.global_avg_pool", {tensor({2, 3, 4}, DType::i8)}),
            "data is i8, but only floating-point types (f32, f16, bf16) are supported");
  EXPECT_EQ(error("nn.global_max_pool", {tensor({2, 3, 4}, DType::boolean)}),
            "data is bool, but only f32, f16, bf16, i8 and u8 are supported");
}

// ---- kernels ----

TEST_F(PoolOpsTest, HandComputed) {
  // ONNX's precomputed 5x5 ramp examples.
  Values ramp(25);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<double>(i + 1);
  auto x = f32({1, 1, 5, 5}, ramp);
  EXPECT_EQ(values_of(*run1("nn.max_pool2d", {x},
                            make_attrs({{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}}))),
            (Values{7, 9, 17, 19}));
  EXPECT_EQ(values_of(*run1("nn.avg_pool2d", {x},
                            make_attrs({{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}}))),
            (Values{4, 6, 14, 16}));
  // 3x3 windows, stride 2, padding 1 all round (what SAME_UPPER gives): the windows at the
  // edges hang into the padding.
  AttrMap same = make_attrs(
      {{"pool_size", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", Ints{1, 1, 1, 1}}});
  EXPECT_EQ(values_of(*run1("nn.max_pool2d", {x}, same)),
            (Values{7, 9, 10, 17, 19, 20, 22, 24, 25}));
  EXPECT_EQ(values_of(*run1("nn.avg_pool2d", {x}, same)),
            (Values{4, 5.5, 7, 11.5, 13, 14.5, 19, 20.5, 22}));
  // count_include_pad divides by all 9 taps, padding included.
  same.set("count_include_pad", std::int64_t{1});
  EXPECT_EQ(values_of(*run1("nn.avg_pool2d", {x}, same))[8],
            static_cast<double>(static_cast<float>((19 + 20 + 24 + 25) / 9.0)));

  // 1-D: padding 1+1 around 1 2 3 4, windows of 3 with stride 2 in ceil mode. Windows start
  // at -1, 1 and 3; the last covers 4, the padding, and one position past the padding.
  auto line = f32({1, 1, 4}, {1, 2, 3, 4});
  AttrMap ceil = make_attrs({{"pool_size", Ints{3}},
                             {"strides", Ints{2}},
                             {"padding", Ints{1, 1}},
                             {"ceil_mode", std::int64_t{1}}});
  EXPECT_EQ(values_of(*run1("nn.avg_pool1d", {line}, ceil)), (Values{1.5, 3, 4}));
  ceil.set("count_include_pad", std::int64_t{1});
  EXPECT_EQ(values_of(*run1("nn.avg_pool1d", {line}, ceil)), (Values{1, 3, 2}));
  // Without padding, the ceil-mode window at 2 runs past the end of 1 2 3 4: it averages
  // what it covers, with or without count_include_pad (there is no padding to count).
  AttrMap overhang =
      make_attrs({{"pool_size", Ints{3}}, {"strides", Ints{2}}, {"ceil_mode", std::int64_t{1}}});
  EXPECT_EQ(values_of(*run1("nn.avg_pool1d", {line}, overhang)), (Values{2, 3.5}));
  overhang.set("count_include_pad", std::int64_t{1});
  EXPECT_EQ(values_of(*run1("nn.avg_pool1d", {line}, overhang)), (Values{2, 3.5}));

  // Dilation 2: each window takes every other element.
  auto grid = f32({1, 1, 4, 4}, {1, 9, 2, 0, 3, 4, 8, 7, 5, 6, 1, 2, 0, 3, 4, 8});
  EXPECT_EQ(values_of(*run1("nn.max_pool2d", {grid},
                            make_attrs({{"pool_size", Ints{2, 2}}, {"dilation", Ints{2, 2}}}))),
            (Values{5, 9, 8, 8}));

  // 3-D: one 2x2x2 window over 1..8, two channels.
  auto cube = f32({1, 2, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, -8});
  AttrMap whole = make_attrs({{"pool_size", Ints{2, 2, 2}}});
  EXPECT_EQ(values_of(*run1("nn.max_pool3d", {cube}, whole)), (Values{8, -1}));
  EXPECT_EQ(values_of(*run1("nn.avg_pool3d", {cube}, whole)), (Values{4.5, -4.5}));
}

TEST_F(PoolOpsTest, DtypesAndNaN) {
  auto bytes = make_tensor(DType::u8, {1, 1, 4}, {3, 250, 7, 255});
  TensorPtr max = run1("nn.max_pool1d", {bytes}, make_attrs({{"pool_size", Ints{2}}}));
  EXPECT_EQ(max->dtype(), DType::u8);
  EXPECT_EQ(values_of(*max), (Values{250, 250, 255}));
  auto signed_bytes = make_tensor(DType::i8, {1, 1, 3}, {-128, -5, -100});
  EXPECT_EQ(values_of(*run1("nn.max_pool1d", {signed_bytes},
                            make_attrs({{"pool_size", Ints{2}}, {"padding", Ints{1, 1}}}))),
            (Values{-128, -5, -5, -100}));
  EXPECT_EQ(values_of(*run1("nn.global_max_pool", {signed_bytes})), (Values{-5}));
  // f16 rounds the average once: (1 + 2 + 2) / 3 = 1.666... is 1.6669921875 in f16.
  auto half = make_tensor(DType::f16, {1, 1, 3}, {1, 2, 2});
  TensorPtr mean = run1("nn.avg_pool1d", {half}, make_attrs({{"pool_size", Ints{3}}}));
  EXPECT_EQ(mean->dtype(), DType::f16);
  EXPECT_EQ(values_of(*mean), (Values{1.6669921875}));
  // NaN propagates through maxima wherever it sits in the window.
  double nan = std::nan("");
  auto holes = f32({1, 1, 4}, {nan, 1, 2, nan});
  Values maxima = values_of(*run1("nn.max_pool1d", {holes}, make_attrs({{"pool_size", Ints{2}}})));
  EXPECT_TRUE(std::isnan(maxima[0]));
  EXPECT_EQ(maxima[1], 2);
  EXPECT_TRUE(std::isnan(maxima[2]));
  EXPECT_TRUE(std::isnan(values_of(*run1("nn.global_max_pool", {holes}))[0]));
}

// Indices as ONNX MaxPool's second output numbers them: flattened over N, C and the plane,
// the plane row-major (storage_order 0) or column-major (1).
TEST_F(PoolOpsTest, MaxPoolWithIndices) {
  AttrMap schema = make_attrs({{"pool_size", Ints{2, 2}}});
  ASSERT_TRUE(op("nn.max_pool2d_with_indices").normalize_attrs(schema).ok());
  EXPECT_EQ(schema.get_int("storage_order"), 0);
  EXPECT_EQ(schema.get_ints("dilation"), (Ints{1, 1}));
  EXPECT_EQ(
      infer("nn.max_pool3d_with_indices", {tensor({2, 3, 4, 5, 6}, DType::u8)},
            make_attrs({{"pool_size", Ints{2, 2, 2}}})),
      (std::vector<Type>{tensor({2, 3, 3, 4, 5}, DType::u8), tensor({2, 3, 3, 4, 5}, DType::i64)}));
  EXPECT_EQ(error("nn.max_pool1d_with_indices", {tensor({1, 1, 4})},
                  make_attrs({{"pool_size", Ints{2}}, {"storage_order", std::int64_t{2}}})),
            "attribute 'storage_order' must be 0 or 1, got 2");

  auto indices = [&](const char* name, TensorPtr data, AttrMap attrs) {
    std::vector<TensorPtr> results = run(name, {std::move(data)}, std::move(attrs));
    EXPECT_EQ(results.size(), 2u);
    if (results.size() != 2) return Values{};
    EXPECT_EQ(results[1]->dtype(), DType::i64);
    EXPECT_EQ(results[1]->shape(), results[0]->shape());
    return values_of(*results[1]);
  };
  // ONNX's examples (test_maxpool_with_argmax_2d_precomputed_pads and _strides).
  Values ramp(25);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<double>(i + 1);
  auto x = f32({1, 1, 5, 5}, ramp);
  EXPECT_EQ(indices("nn.max_pool2d_with_indices", x,
                    make_attrs({{"pool_size", Ints{5, 5}}, {"padding", Ints{2, 2, 2, 2}}})),
            (Values{12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24,
                    24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24}));
  EXPECT_EQ(indices("nn.max_pool2d_with_indices", x,
                    make_attrs({{"pool_size", Ints{2, 2}},
                                {"strides", Ints{2, 2}},
                                {"storage_order", std::int64_t{1}}})),
            (Values{6, 16, 8, 18}));
  // Each (n, c) plane starts at its offset in the flattened data, in either order.
  auto planes = f32({2, 2, 1, 2}, {1, 2, 4, 3, 5, 6, 8, 7});
  for (std::int64_t order : {0, 1})
    EXPECT_EQ(indices("nn.max_pool2d_with_indices", planes,
                      make_attrs({{"pool_size", Ints{1, 2}}, {"storage_order", order}})),
              (Values{1, 2, 5, 6}));
  // 3-D, one window over a 2x3x4 plane: column-major numbers (z, y, x) as z + 2y + 6x.
  Values cube(24, 0);
  auto at = [&](std::size_t z, std::size_t y, std::size_t x_) { return (z * 3 + y) * 4 + x_; };
  cube[at(1, 2, 0)] = 5;
  AttrMap whole = make_attrs({{"pool_size", Ints{2, 3, 4}}});
  EXPECT_EQ(indices("nn.max_pool3d_with_indices", f32({1, 1, 2, 3, 4}, cube), whole), Values{20});
  whole.set("storage_order", std::int64_t{1});
  EXPECT_EQ(indices("nn.max_pool3d_with_indices", f32({1, 1, 2, 3, 4}, cube), whole), Values{5});
  cube[at(0, 1, 3)] = 9;
  EXPECT_EQ(indices("nn.max_pool3d_with_indices", f32({1, 1, 2, 3, 4}, cube), whole), Values{20});
  // Dilation and padding: the windows take elements -1 (padding), 1, 3; then 0, 2, 4; then
  // 1, 3, 5 (padding).
  auto line = f32({1, 1, 5}, {7, 1, 0, 2, 9});
  EXPECT_EQ(
      indices("nn.max_pool1d_with_indices", line,
              make_attrs({{"pool_size", Ints{3}}, {"dilation", Ints{2}}, {"padding", Ints{1, 1}}})),
      (Values{3, 4, 3}));
  // Ties go to the first maximum, NaN to the first NaN, and a window of -inf to its first
  // element; a window with no element inside the data (taps at -1 and 1 of one element)
  // has none.
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  AttrMap pairs = make_attrs({{"pool_size", Ints{2}}});
  EXPECT_EQ(indices("nn.max_pool1d_with_indices", f32({1, 1, 3}, {5, 5, 5}), pairs),
            (Values{0, 1}));
  EXPECT_EQ(indices("nn.max_pool1d_with_indices", f32({1, 1, 4}, {1, nan, nan, 2}), pairs),
            (Values{1, 1, 2}));
  EXPECT_EQ(indices("nn.max_pool1d_with_indices", f32({1, 1, 2}, {-inf, -inf}), pairs), Values{0});
  EXPECT_EQ(
      indices("nn.max_pool1d_with_indices", f32({1, 1, 1}, {3}),
              make_attrs({{"pool_size", Ints{2}}, {"dilation", Ints{2}}, {"padding", Ints{1, 1}}})),
      Values{-1});
  auto bytes = make_tensor(DType::u8, {1, 1, 3}, {3, 250, 7});
  EXPECT_EQ(indices("nn.max_pool1d_with_indices", bytes, pairs), (Values{1, 1}));
}

TEST_F(PoolOpsTest, GlobalPools) {
  auto x = f32({2, 2, 3}, {1, 5, 3, -1, -2, -6, 0, 0, 9, 4, 4, 4});
  TensorPtr mean = run1("nn.global_avg_pool", {x});
  EXPECT_EQ(mean->shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(values_of(*mean), (Values{3, -3, 3, 4}));
  EXPECT_EQ(values_of(*run1("nn.global_max_pool", {x})), (Values{5, -1, 9, 4}));
  auto image = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values_of(*run1("nn.global_avg_pool", {image})), (Values{2.5}));
}

struct PoolCase {
  Shape data;
  Ints pool_size, strides, padding, dilation;
  bool ceil_mode, count_include_pad;
};

// The definition over an explicitly padded copy of the input, where padding holds NaN (so
// it can be told apart), and positions past the padded input (a ceil-mode overhang) are skipped.
Values reference_pool(const Tensor& x, const PoolCase& c, bool max, const Shape& out_shape) {
  const std::size_t rank = c.pool_size.size();
  Shape padded_shape = {c.data[0], c.data[1]};
  for (std::size_t j = 0; j < rank; ++j)
    padded_shape.push_back(c.data[2 + j] + c.padding[j] + c.padding[rank + j]);
  std::vector<double> padded(product(padded_shape, 0, padded_shape.size()), std::nan(""));
  std::vector<std::int64_t> strides = row_major_strides(padded_shape);
  for (std::int64_t i = 0; i < x.num_elements(); ++i) {
    std::int64_t at = 0, rest = i;
    for (std::size_t j = c.data.size(); j-- > 0;) {
      std::int64_t index = rest % c.data[j];
      rest /= c.data[j];
      at += (index + (j >= 2 ? c.padding[j - 2] : 0)) * strides[j];
    }
    padded[at] = x.get(i);
  }
  Values out;
  for (std::int64_t i = 0; i < product(out_shape, 0, out_shape.size()); ++i) {
    Shape at(out_shape.size());
    for (std::int64_t j = static_cast<std::int64_t>(at.size()) - 1, rest = i; j >= 0; --j) {
      at[j] = rest % out_shape[j];
      rest /= out_shape[j];
    }
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    std::int64_t count = 0;
    for (std::int64_t t = 0; t < product(c.pool_size, 0, rank); ++t) {
      std::int64_t offset = (at[0] * c.data[1] + at[1]) * product(padded_shape, 2, 2 + rank);
      bool inside = true;
      for (std::int64_t j = static_cast<std::int64_t>(rank) - 1, rest = t; j >= 0; --j) {
        std::int64_t k = rest % c.pool_size[j];
        rest /= c.pool_size[j];
        std::int64_t p = at[2 + j] * c.strides[j] + k * (max ? c.dilation[j] : 1);
        inside = inside && p < padded_shape[2 + j];
        offset += p * strides[2 + j];
      }
      if (!inside) continue;
      double v = padded[offset];
      if (std::isnan(v) && !(c.count_include_pad && !max)) continue;
      ++count;
      sum += std::isnan(v) ? 0 : v;
      best = std::max(best, v);
    }
    out.push_back(max ? best : sum / count);
  }
  return out;
}

TEST_F(PoolOpsTest, MatchesDefinition) {
  const std::vector<PoolCase> cases = {
      {{2, 3, 9}, {3}, {2}, {1, 2}, {1}, false, false},
      {{1, 2, 10}, {4}, {3}, {3, 0}, {2}, true, true},
      {{1, 2, 7, 8}, {3, 2}, {2, 3}, {1, 0, 2, 1}, {1, 2}, true, false},
      {{2, 1, 6, 6}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, true},
      {{1, 2, 5, 6, 4}, {2, 3, 2}, {2, 2, 1}, {1, 0, 1, 1, 2, 0}, {2, 1, 1}, true, true},
      {{1, 1, 4, 5, 6}, {2, 2, 3}, {1, 2, 2}, {0, 1, 2, 1, 1, 0}, {1, 1, 2}, false, false},
  };
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (const PoolCase& c : cases) {
    for (bool max : {true, false}) {
      std::string name = fmt::format("nn.{}_pool{}d", max ? "max" : "avg", c.pool_size.size());
      SCOPED_TRACE(fmt::format("{} over {}", name, to_string(c.data)));
      auto x = std::make_shared<Tensor>(TensorType{DType::f32, c.data});
      for (std::int64_t i = 0; i < x->num_elements(); ++i) x->set(i, uniform(rng));
      AttrMap attrs = make_attrs({{"pool_size", c.pool_size},
                                  {"strides", c.strides},
                                  {"padding", c.padding},
                                  {"ceil_mode", std::int64_t{c.ceil_mode}}});
      if (max)
        attrs.set("dilation", c.dilation);
      else
        attrs.set("count_include_pad", std::int64_t{c.count_include_pad});
      // PyTorch's formulation of the output size: ceil mode adds stride - 1 before dividing.
      Shape out_shape = {c.data[0], c.data[1]};
      for (std::size_t j = 0; j < c.pool_size.size(); ++j) {
        std::int64_t pad = c.padding[j] + c.padding[c.pool_size.size() + j];
        std::int64_t extent = (max ? c.dilation[j] : 1) * (c.pool_size[j] - 1) + 1;
        std::int64_t size =
            (c.data[2 + j] + pad - extent + (c.ceil_mode ? c.strides[j] - 1 : 0)) / c.strides[j] +
            1;
        if (c.ceil_mode && (size - 1) * c.strides[j] >= c.data[2 + j] + c.padding[j]) --size;
        out_shape.push_back(size);
      }
      TensorPtr out = run1(name, {x}, attrs);
      ASSERT_EQ(out->shape(), out_shape);
      expect_near(values_of(*out), reference_pool(*x, c, max, out_shape));
    }
  }
}

}  // namespace
}  // namespace uma
