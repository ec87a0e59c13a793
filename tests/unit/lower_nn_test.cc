// Lowered convolutions, matrix products and pools, compiled and compared with the reference
// interpreter over strides, padding, dilation, groups and ceil mode.
#include "lower_test_util.h"
#include "tensor_util.h"

namespace uma::testing_lower {
namespace {

using Ints = std::vector<std::int64_t>;
using test::make_attrs;

AttrMap conv_attrs(Ints strides, Ints padding, Ints dilation, std::int64_t groups = 1) {
  return make_attrs(
      {{"strides", strides}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}});
}

TEST(LowerNn, Conv2d) {
  check_cases({
      op_case("3x3 pad 1 with bias", "nn.conv2d", {f32({1, 3, 8, 8}), f32({4, 3, 3, 3}), f32({4})},
              conv_attrs({1, 1}, {1, 1, 1, 1}, {1, 1})),
      op_case("stride 2, uneven padding", "nn.conv2d", {f32({2, 3, 9, 7}), f32({5, 3, 3, 3})},
              conv_attrs({2, 2}, {1, 0, 2, 1}, {1, 1})),
      op_case("dilation 2", "nn.conv2d", {f32({1, 2, 9, 9}), f32({3, 2, 3, 3}), f32({3})},
              conv_attrs({1, 1}, {2, 2, 2, 2}, {2, 2})),
      op_case("groups 2", "nn.conv2d", {f32({1, 4, 6, 6}), f32({6, 2, 3, 3})},
              conv_attrs({1, 1}, {1, 1, 1, 1}, {1, 1}, 2)),
      op_case("depthwise, multiplier 2, stride 2", "nn.conv2d",
              {f32({1, 4, 7, 7}), f32({8, 1, 3, 3}), f32({8})},
              conv_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}, 4)),
      op_case("1x1, batch 2", "nn.conv2d", {f32({2, 5, 4, 3}), f32({3, 5, 1, 1})},
              conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1})),
      op_case("2x3 kernel, mixed strides", "nn.conv2d", {f32({1, 3, 7, 8}), f32({2, 3, 2, 3})},
              conv_attrs({1, 2}, {0, 1, 1, 0}, {2, 1})),
  });
}

TEST(LowerNn, Conv1dAnd3d) {
  check_cases({
      op_case("conv1d stride 2 dilation 2", "nn.conv1d",
              {f32({2, 3, 10}), f32({5, 3, 3}), f32({5})}, conv_attrs({2}, {1, 1}, {2})),
      op_case("conv1d depthwise", "nn.conv1d", {f32({1, 3, 8}), f32({6, 1, 3})},
              conv_attrs({1}, {0, 2}, {1}, 3)),
      op_case("conv3d", "nn.conv3d", {f32({1, 2, 4, 5, 5}), f32({3, 2, 2, 3, 3}), f32({3})},
              conv_attrs({1, 2, 1}, {1, 0, 1, 0, 1, 1}, {1, 1, 1})),
      op_case("conv3d groups 2", "nn.conv3d", {f32({1, 2, 3, 4, 4}), f32({4, 1, 3, 3, 3})},
              conv_attrs({1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, 2)),
  });
}

AttrMap transpose_attrs(Ints strides, Ints padding, Ints dilation, Ints output_padding,
                        std::int64_t groups = 1) {
  AttrMap attrs = conv_attrs(std::move(strides), std::move(padding), std::move(dilation), groups);
  attrs.set("output_padding", output_padding);
  return attrs;
}

TEST(LowerNn, ConvTranspose) {
  check_cases({
      op_case("2d stride 2 output padding 1", "nn.conv2d_transpose",
              {f32({1, 4, 5, 5}), f32({4, 3, 3, 3}), f32({3})},
              transpose_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 1})),
      op_case("2d groups 2 dilation 2", "nn.conv2d_transpose",
              {f32({2, 4, 4, 3}), f32({4, 2, 3, 2})},
              transpose_attrs({1, 2}, {0, 1, 2, 0}, {2, 1}, {0, 1}, 2)),
      op_case("1d stride 3", "nn.conv1d_transpose", {f32({2, 3, 6}), f32({3, 2, 4})},
              transpose_attrs({3}, {1, 2}, {1}, {0})),
      op_case("3d stride 2", "nn.conv3d_transpose", {f32({1, 2, 3, 3, 2}), f32({2, 2, 2, 2, 3})},
              transpose_attrs({2, 2, 1}, {0, 1, 0, 1, 0, 1}, {1, 1, 1}, {1, 0, 0})),
  });
}

TEST(LowerNn, DenseAndMatmul) {
  check_cases({
      op_case("dense with bias", "nn.dense", {f32({4, 10}), f32({6, 10}), f32({6})}),
      op_case("dense rank 3", "nn.dense", {f32({2, 3, 5}), f32({4, 5})}),
      op_case("dense rank 1", "nn.dense", {f32({7}), f32({3, 7})}),
      op_case("matmul", "nn.matmul", {f32({3, 4}), f32({4, 5})}),
      op_case("matmul batch x matrix", "nn.matmul", {f32({2, 3, 4}), f32({4, 5})}),
      op_case("matmul broadcast batches", "nn.matmul", {f32({2, 1, 3, 4}), f32({3, 4, 2})}),
      op_case("matmul row vector", "nn.matmul", {f32({4}), f32({2, 4, 5})}),
      op_case("matmul column vector", "nn.matmul", {f32({3, 4}), f32({4})}),
      op_case("matmul vectors (rank 0)", "nn.matmul", {f32({6}), f32({6})}),
  });
}

AttrMap pool_attrs(Ints pool_size, Ints strides, Ints padding, std::int64_t ceil_mode) {
  return make_attrs({{"pool_size", pool_size},
                     {"strides", strides},
                     {"padding", padding},
                     {"ceil_mode", ceil_mode}});
}

AttrMap with(AttrMap attrs, const std::string& name, Attribute value) {
  attrs.set(name, std::move(value));
  return attrs;
}

TEST(LowerNn, MaxPools) {
  check_cases({
      op_case("3x3 stride 2 pad 1", "nn.max_pool2d", {f32({1, 3, 7, 7})},
              pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 0)),
      op_case("ceil mode", "nn.max_pool2d", {f32({2, 2, 8, 8})},
              pool_attrs({3, 3}, {2, 2}, {0, 0, 0, 0}, 1)),
      op_case("ceil mode with padding", "nn.max_pool2d", {f32({1, 2, 6, 7})},
              pool_attrs({3, 2}, {2, 2}, {1, 0, 1, 1}, 1)),
      op_case("dilation 2", "nn.max_pool2d", {f32({1, 2, 9, 9})},
              with(pool_attrs({2, 3}, {2, 1}, {1, 0, 0, 1}, 0), "dilation", Ints{2, 2})),
      op_case("i8", "nn.max_pool2d", {TensorType{DType::i8, {1, 2, 5, 5}}},
              pool_attrs({2, 2}, {1, 1}, {1, 1, 0, 0}, 0), 0),
      op_case("1d", "nn.max_pool1d", {f32({2, 3, 11})}, pool_attrs({4}, {3}, {1, 2}, 1)),
      op_case("3d", "nn.max_pool3d", {f32({1, 2, 5, 4, 5})},
              pool_attrs({2, 2, 3}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}, 0)),
  });
}

TEST(LowerNn, AvgPools) {
  AttrMap pad1 = pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 0);
  AttrMap ceil = pool_attrs({3, 3}, {2, 2}, {1, 0, 1, 1}, 1);
  check_cases({
      op_case("pad 1, padding not counted", "nn.avg_pool2d", {f32({1, 3, 7, 7})}, pad1),
      op_case("pad 1, padding counted", "nn.avg_pool2d", {f32({1, 3, 7, 7})},
              with(pad1, "count_include_pad", std::int64_t{1})),
      op_case("ceil mode", "nn.avg_pool2d", {f32({2, 2, 8, 7})}, ceil),
      op_case("ceil mode, padding counted", "nn.avg_pool2d", {f32({2, 2, 8, 7})},
              with(ceil, "count_include_pad", std::int64_t{1})),
      op_case("1d", "nn.avg_pool1d", {f32({1, 2, 10})}, pool_attrs({3}, {3}, {1, 1}, 1)),
      op_case("3d", "nn.avg_pool3d", {f32({1, 2, 4, 5, 4})},
              with(pool_attrs({2, 3, 2}, {2, 2, 1}, {0, 1, 1, 1, 1, 0}, 1), "count_include_pad",
                   std::int64_t{1})),
  });
}

TEST(LowerNn, GlobalPools) {
  check_cases({
      op_case("global max 2d", "nn.global_max_pool", {f32({2, 3, 5, 4})}),
      op_case("global avg 2d", "nn.global_avg_pool", {f32({2, 3, 5, 4})}),
      op_case("global avg 1d", "nn.global_avg_pool", {f32({1, 2, 7})}),
      op_case("global max 3d", "nn.global_max_pool", {f32({1, 2, 2, 3, 2})}),
  });
}

TEST(LowerNn, MaxPoolWithIndices) {
  check_cases({
      op_case("row-major", "nn.max_pool2d_with_indices", {f32({2, 2, 6, 5})},
              pool_attrs({3, 2}, {2, 2}, {1, 0, 1, 1}, 1), 0),
      op_case("column-major", "nn.max_pool2d_with_indices", {f32({1, 3, 5, 6})},
              with(pool_attrs({2, 3}, {1, 2}, {1, 1, 0, 1}, 0), "storage_order", std::int64_t{1}),
              0),
      op_case("1d dilation", "nn.max_pool1d_with_indices", {f32({1, 2, 9})},
              with(pool_attrs({3}, {2}, {1, 1}, 0), "dilation", Ints{2}), 0),
      op_case("3d column-major", "nn.max_pool3d_with_indices", {f32({1, 1, 3, 4, 5})},
              with(pool_attrs({2, 2, 2}, {1, 2, 2}, {0, 1, 0, 1, 0, 1}, 1), "storage_order",
                   std::int64_t{1}),
              0),
  });
}

// 16-bit floats accumulate in f32 and round once when stored, as the reference rounds its
// double sums: results agree within one unit in the last place of the 16-bit type.
TEST(LowerNn, HalfPrecision) {
  std::vector<Case> cases;
  for (auto [dtype, tolerance] : {std::pair{DType::f16, 1e-3}, std::pair{DType::bf16, 8e-3}}) {
    auto t = [dtype](Shape shape) { return TensorType{dtype, std::move(shape)}; };
    std::string name(dtype_name(dtype));
    cases.push_back(op_case(name + " conv2d", "nn.conv2d",
                            {t({1, 3, 6, 6}), t({4, 3, 3, 3}), t({4})},
                            conv_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}), tolerance));
    cases.push_back(op_case(name + " dense", "nn.dense", {t({3, 9}), t({4, 9})}, {}, tolerance));
    cases.push_back(op_case(name + " max_pool2d", "nn.max_pool2d", {t({1, 2, 5, 5})},
                            pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 1), tolerance));
    cases.push_back(op_case(name + " avg_pool2d", "nn.avg_pool2d", {t({1, 2, 5, 5})},
                            pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 0), tolerance));
  }
  check_cases(cases);
}

}  // namespace
}  // namespace uma::testing_lower
