// Unit tests of the convolution and matrix-product ops beyond nn.conv2d and nn.dense (whose
// original tests stay in ops_test.cc and guard their schemas and messages): nn.conv1d/3d, the
// transposed convolutions and nn.matmul. Kernels are checked against hand-computed values,
// against their definitions evaluated one output element at a time (the kernels loop tap by
// tap over whole planes), and transposed convolutions also as the adjoint of convolutions.
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

std::shared_ptr<Tensor> random_f32(Shape shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
  for (std::int64_t i = 0; i < t->num_elements(); ++i) t->set(i, uniform(rng));
  return t;
}

// Row-major multi-index of a linear position, and back.
Shape unravel(std::int64_t linear, const Shape& shape) {
  Shape index(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    index[i] = linear % shape[i];
    linear /= shape[i];
  }
  return index;
}

std::int64_t ravel(const Shape& index, const Shape& shape) {
  std::int64_t linear = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) linear = linear * shape[i] + index[i];
  return linear;
}

class ConvOpsTest : public test::OpTest {};

// ---- schemas ----

TEST_F(ConvOpsTest, Schemas) {
  for (std::size_t rank = 1; rank <= 3; ++rank) {
    for (const char* suffix : {"", "_transpose"}) {
      std::string name = fmt::format("nn.conv{}d{}", rank, suffix);
      SCOPED_TRACE(name);
      const OpDef& conv = op(name);
      EXPECT_EQ(conv.min_inputs, 2);
      EXPECT_EQ(conv.max_inputs, 3);
      EXPECT_EQ(conv.fusion, FusionCategory::kAnchor);
      AttrMap attrs;
      ASSERT_TRUE(conv.normalize_attrs(attrs).ok());
      EXPECT_EQ(attrs.get_ints("strides"), Ints(rank, 1));
      EXPECT_EQ(attrs.get_ints("padding"), Ints(2 * rank, 0));
      EXPECT_EQ(attrs.get_ints("dilation"), Ints(rank, 1));
      EXPECT_EQ(attrs.get_int("groups"), 1);
      bool transpose = *suffix != 0;
      if (transpose) {
        EXPECT_EQ(attrs.get_ints("output_padding"), Ints(rank, 0));
      }
      EXPECT_EQ(attrs.size(), transpose ? 5u : 4u);
    }
  }
  EXPECT_EQ(op("nn.matmul").min_inputs, 2);
  EXPECT_EQ(op("nn.matmul").max_inputs, 2);
  EXPECT_TRUE(op("nn.matmul").attrs.empty());
}

// ---- nn.conv1d, nn.conv3d ----

TEST_F(ConvOpsTest, ConvShapes) {
  EXPECT_EQ(infer1("nn.conv1d", {tensor({2, 4, 10}), tensor({6, 2, 3}), tensor({6})},
                   make_attrs({{"strides", Ints{2}},
                               {"padding", Ints{1, 2}},
                               {"dilation", Ints{2}},
                               {"groups", std::int64_t{2}}})),
            // (10 + 1 + 2 - 5) / 2 + 1 = 5
            tensor({2, 6, 5}));
  EXPECT_EQ(infer1("nn.conv3d",
                   {tensor({1, 3, 5, 6, 7}, DType::f16), tensor({8, 3, 3, 2, 1}, DType::f16)},
                   make_attrs({{"strides", Ints{1, 2, 3}}, {"padding", Ints{1, 0, 0, 1, 0, 2}}})),
            // depth 5 + 2 - 3 + 1 = 5, height (6 - 2) / 2 + 1 = 3, width (7 + 2 - 1) / 3 + 1 = 3
            tensor({1, 8, 5, 3, 3}, DType::f16));
  // Depthwise: one input channel per group.
  EXPECT_EQ(infer1("nn.conv1d", {tensor({1, 4, 8}), tensor({8, 1, 3})},
                   make_attrs({{"groups", std::int64_t{4}}})),
            tensor({1, 8, 6}));
}

TEST_F(ConvOpsTest, ConvInferenceErrors) {
  Type data1 = tensor({1, 4, 5});
  Type weight1 = tensor({2, 4, 3});
  auto conv1d_error = [&](AttrMap attrs) { return error("nn.conv1d", {data1, weight1}, attrs); };
  EXPECT_EQ(error("nn.conv1d", {tensor({4, 5}), weight1}),
            "data must have rank 3 (NCW), got tensor<4x5xf32>");
  EXPECT_EQ(error("nn.conv1d", {data1, tensor({2, 4, 3, 1})}),
            "weight must have rank 3 (OIW), got tensor<2x4x3x1xf32>");
  EXPECT_EQ(error("nn.conv3d", {tensor({1, 4, 5, 5}), tensor({2, 4, 3, 3, 3})}),
            "data must have rank 5 (NCDHW), got tensor<1x4x5x5xf32>");
  EXPECT_EQ(error("nn.conv3d", {tensor({1, 4, 5, 5, 5}), tensor({2, 4, 3, 3})}),
            "weight must have rank 5 (OIDHW), got tensor<2x4x3x3xf32>");
  EXPECT_EQ(conv1d_error(make_attrs({{"padding", Ints{1, 1, 1, 1}}})),
            "attribute 'padding' must have 2 values (left, right), got 4");
  EXPECT_EQ(error("nn.conv3d", {tensor({1, 4, 5, 5, 5}), tensor({2, 4, 3, 3, 3})},
                  make_attrs({{"padding", Ints{1, 1, 1, 1}}})),
            "attribute 'padding' must have 6 values (front, top, left, back, bottom, right), "
            "got 4");
  EXPECT_EQ(conv1d_error(make_attrs({{"strides", Ints{1, 1}}})),
            "attribute 'strides' must have 1 values, got 2");
  EXPECT_EQ(conv1d_error(make_attrs({{"dilation", Ints{0}}})),
            "attribute 'dilation' must be positive, got [0]");
  EXPECT_EQ(conv1d_error(make_attrs({{"groups", std::int64_t{3}}})),
            "attribute 'groups' is 3 but input channels 4 are not divisible by it");
  EXPECT_EQ(error("nn.conv1d", {data1, tensor({2, 4, 0})}), "weight has an empty kernel 0");
  EXPECT_EQ(error("nn.conv3d", {tensor({1, 4, 5, 5, 5}), tensor({2, 4, 3, 0, 3})}),
            "weight has an empty kernel 3x0x3");
  EXPECT_EQ(error("nn.conv1d", {data1, weight1, tensor({4})}),
            "bias has shape 4, but must have shape 2 (one value per output channel)");
  EXPECT_EQ(error("nn.conv1d", {data1, tensor({2, 4, 3}, DType::bf16)}),
            "weight is bf16, but data is f32");
  EXPECT_EQ(conv1d_error(make_attrs({{"dilation", Ints{3}}})),
            "output width would be -1 (input 5, padding 0+0, kernel 3, dilation 3, stride 1)");
  EXPECT_EQ(error("nn.conv3d", {tensor({1, 4, 2, 5, 5}), tensor({2, 4, 3, 3, 3})}),
            "output depth would be 0 (input 2, padding 0+0, kernel 3, dilation 1, stride 1)");
  EXPECT_EQ(error("nn.conv3d", {tensor({1, 4, 3, 5, 5}), tensor({2, 4, 3, 3, 3})},
                  make_attrs({{"strides", Ints{1, 1, 0}}})),
            "attribute 'strides' must be positive, got [1, 1, 0]");
}

TEST_F(ConvOpsTest, ConvHandComputed) {
  auto data = f32({1, 1, 5}, {1, 2, 3, 4, 5});
  auto weight = f32({1, 1, 3}, {1, 0, -1});
  EXPECT_EQ(values_of(*run1("nn.conv1d", {data, weight})), (Values{-2, -2, -2}));
  // Zero padding: the first window reads 0, 1, 2 and the last 4, 5, 0.
  EXPECT_EQ(values_of(*run1("nn.conv1d", {data, weight}, make_attrs({{"padding", Ints{1, 1}}}))),
            (Values{-2, -2, -2, -2, 4}));
  // Stride 2 with padding 2+0: windows start at -2, 0 and 2.
  EXPECT_EQ(values_of(*run1("nn.conv1d", {data, weight, f32({1}, {10})},
                            make_attrs({{"padding", Ints{2, 0}}, {"strides", Ints{2}}}))),
            (Values{10 - 1, 10 - 2, 10 - 2}));

  Values cube = {1, 2, 3, 4, 5, 6, 7, 8};
  auto data3 = f32({1, 1, 2, 2, 2}, cube);
  auto ones = f32({2, 1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0});
  // The second filter keeps only the tap at depth 0, height 0, width 0.
  EXPECT_EQ(values_of(*run1("nn.conv3d", {data3, ones, f32({2}, {0.5, 0})})), (Values{36.5, 1}));
  // Padding 1 at the end of each axis: output positions (z, y, x) sum data[z.., y.., x..].
  TensorPtr padded =
      run1("nn.conv3d", {data3, ones}, make_attrs({{"padding", Ints{0, 0, 0, 1, 1, 1}}}));
  ASSERT_EQ(padded->shape(), (Shape{1, 2, 2, 2, 2}));
  EXPECT_EQ(values_of(*padded), (Values{36, 20, 22, 12, 26, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
}

struct ConvCase {
  Shape data, weight;
  Ints strides, padding, dilation;
  std::int64_t groups;
  bool bias;
  Ints output_padding = {};  // transposed only
};

AttrMap conv_attrs(const ConvCase& c) {
  AttrMap attrs = make_attrs({{"strides", c.strides},
                              {"padding", c.padding},
                              {"dilation", c.dilation},
                              {"groups", c.groups}});
  if (!c.output_padding.empty()) attrs.set("output_padding", c.output_padding);
  return attrs;
}

std::string conv_name(const ConvCase& c, bool transpose) {
  return fmt::format("nn.conv{}d{}", c.data.size() - 2, transpose ? "_transpose" : "");
}

// The convolution's definition, one output element at a time.
Values reference_conv(const Tensor& x, const Tensor& w, const Tensor* b, const ConvCase& c,
                      Shape& out_shape) {
  const std::size_t rank = c.data.size() - 2;
  const Shape kernel(c.weight.begin() + 2, c.weight.end());
  out_shape = {c.data[0], c.weight[0]};
  for (std::size_t j = 0; j < rank; ++j)
    out_shape.push_back(
        (c.data[2 + j] + c.padding[j] + c.padding[rank + j] - c.dilation[j] * (kernel[j] - 1) - 1) /
            c.strides[j] +
        1);
  const std::int64_t group_in = c.weight[1], group_out = c.weight[0] / c.groups;
  Values out;
  for (std::int64_t i = 0; i < product(out_shape, 0, out_shape.size()); ++i) {
    Shape at = unravel(i, out_shape);
    std::int64_t n = at[0], o = at[1];
    double sum = b ? b->get(o) : 0.0;
    for (std::int64_t ci = 0; ci < group_in; ++ci) {
      for (std::int64_t t = 0; t < product(kernel, 0, rank); ++t) {
        Shape k = unravel(t, kernel);
        Shape in = {n, o / group_out * group_in + ci};
        bool inside = true;
        for (std::size_t j = 0; j < rank; ++j) {
          in.push_back(at[2 + j] * c.strides[j] - c.padding[j] + k[j] * c.dilation[j]);
          inside = inside && in.back() >= 0 && in.back() < c.data[2 + j];
        }
        if (!inside) continue;
        Shape wi = {o, ci};
        wi.insert(wi.end(), k.begin(), k.end());
        sum += x.get(ravel(in, c.data)) * w.get(ravel(wi, c.weight));
      }
    }
    out.push_back(sum);
  }
  return out;
}

// The transposed convolution's definition gathered per output element: out[p] takes
// data[q] * weight[k] wherever p = q * stride - pad + k * dilation.
Values reference_conv_transpose(const Tensor& x, const Tensor& w, const Tensor* b,
                                const ConvCase& c, Shape& out_shape) {
  const std::size_t rank = c.data.size() - 2;
  const Shape kernel(c.weight.begin() + 2, c.weight.end());
  const std::int64_t group_in = c.data[1] / c.groups, group_out = c.weight[1];
  out_shape = {c.data[0], group_out * c.groups};
  for (std::size_t j = 0; j < rank; ++j)
    out_shape.push_back(c.strides[j] * (c.data[2 + j] - 1) + c.dilation[j] * (kernel[j] - 1) + 1 +
                        c.output_padding[j] - c.padding[j] - c.padding[rank + j]);
  Values out;
  for (std::int64_t i = 0; i < product(out_shape, 0, out_shape.size()); ++i) {
    Shape at = unravel(i, out_shape);
    std::int64_t n = at[0], o = at[1];
    double sum = b ? b->get(o) : 0.0;
    for (std::int64_t ci = 0; ci < group_in; ++ci) {
      std::int64_t channel = o / group_out * group_in + ci;
      for (std::int64_t t = 0; t < product(kernel, 0, rank); ++t) {
        Shape k = unravel(t, kernel);
        Shape in = {n, channel};
        bool hit = true;
        for (std::size_t j = 0; j < rank; ++j) {
          std::int64_t spread = at[2 + j] + c.padding[j] - k[j] * c.dilation[j];
          hit = hit && spread >= 0 && spread % c.strides[j] == 0 &&
                spread / c.strides[j] < c.data[2 + j];
          in.push_back(spread / c.strides[j]);
        }
        if (!hit) continue;
        Shape wi = {channel, o % group_out};
        wi.insert(wi.end(), k.begin(), k.end());
        sum += x.get(ravel(in, c.data)) * w.get(ravel(wi, c.weight));
      }
    }
    out.push_back(sum);
  }
  return out;
}

TEST_F(ConvOpsTest, ConvMatchesDefinition) {
  const std::vector<ConvCase> cases = {
      {{2, 3, 11}, {4, 3, 3}, {1}, {0, 0}, {1}, 1, false},
      {{1, 4, 12}, {6, 2, 3}, {2}, {2, 1}, {3}, 2, true},
      {{2, 4, 9}, {4, 1, 5}, {3}, {4, 4}, {1}, 4, true},  // depthwise, padding near the kernel
      {{1, 3, 8, 7}, {4, 3, 3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 1, true},
      {{1, 2, 5, 6, 4}, {4, 2, 3, 2, 2}, {1, 2, 1}, {1, 0, 1, 1, 1, 0}, {1, 1, 2}, 1, true},
      {{2, 4, 4, 5, 6}, {2, 2, 1, 3, 3}, {2, 1, 2}, {0, 1, 1, 0, 1, 1}, {1, 2, 1}, 2, false},
      {{1, 2, 1}, {3, 2, 1}, {1}, {3, 3}, {1}, 1, true},  // mostly padding
  };
  std::mt19937 rng(11);
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(fmt::format("data {} weight {}", to_string(c.data), to_string(c.weight)));
    auto x = random_f32(c.data, rng);
    auto w = random_f32(c.weight, rng);
    auto b = random_f32({c.weight[0]}, rng);
    std::vector<TensorPtr> inputs = {x, w};
    if (c.bias) inputs.push_back(b);
    TensorPtr out = run1(conv_name(c, false), inputs, conv_attrs(c));
    Shape expected_shape;
    Values expected = reference_conv(*x, *w, c.bias ? b.get() : nullptr, c, expected_shape);
    ASSERT_EQ(out->shape(), expected_shape);
    expect_near(values_of(*out), expected, 1e-5);
  }
}

// ---- transposed convolutions ----

TEST_F(ConvOpsTest, PackedConvIsConvWithItsWeightInBlocksOfOutputChannels) {
  // weight (O, C, kh, kw) packed as (O / b, C, kh, kw, b): the same convolution.
  std::mt19937 rng(3);
  auto data = random_f32({2, 3, 6, 5}, rng);
  auto weight = random_f32({8, 3, 3, 2}, rng);
  auto bias = random_f32({8}, rng);
  auto packed = std::make_shared<Tensor>(TensorType{DType::f32, {2, 3, 3, 2, 4}});
  for (std::int64_t o = 0; o < 8; ++o)
    for (std::int64_t i = 0; i < 18; ++i)
      packed->set(((o / 4) * 18 + i) * 4 + o % 4, weight->get(o * 18 + i));
  AttrMap attrs = make_attrs({{"strides", Ints{2, 1}}, {"padding", Ints{1, 0, 1, 1}}});
  EXPECT_EQ(infer1("nn.conv2d_packed", {data->type(), packed->type(), bias->type()}, attrs),
            tensor({2, 8, 3, 5}));  // (6 + 2 - 3) / 2 + 1 rows, 5 + 1 - 2 + 1 columns
  auto expected = run("nn.conv2d", {data, weight, bias}, attrs);
  auto got = run("nn.conv2d_packed", {data, packed, bias}, attrs);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(values_of(*got[0]), values_of(*expected[0]));
  EXPECT_EQ(error("nn.conv2d_packed", {data->type(), weight->type()}),
            "weight must have rank 5 (OIHW<b>o: output channel blocks, input channels, kernel "
            "height and width, b output channels), got tensor<8x3x3x2xf32>");
  EXPECT_EQ(error("nn.conv2d_packed", {data->type(), tensor({2, 4, 3, 2, 4})}),
            "weight has 4 input channels per group, data has 3 / groups 1 = 3");
}

TEST_F(ConvOpsTest, BlockedConvIsPackedConvWithBlockedDataAndResult) {
  // Data NCHW or NCHW2c, the result NCHW4c (the weight's block): the same convolution.
  std::mt19937 rng(5);
  auto data = random_f32({2, 4, 6, 5}, rng);
  auto packed = random_f32({2, 4, 3, 2, 4}, rng);
  auto bias = random_f32({8}, rng);
  AttrMap attrs = make_attrs({{"strides", Ints{2, 1}}, {"padding", Ints{1, 0, 1, 1}}});
  auto relayout = [&](TensorPtr t, const char* from, const char* to) {
    return run("layout_transform", {t},
               make_attrs({{"src_layout", std::string(from)}, {"dst_layout", std::string(to)}}))[0];
  };
  TensorPtr expected =
      relayout(run("nn.conv2d_packed", {data, packed, bias}, attrs)[0], "NCHW", "NCHW4c");
  EXPECT_EQ(infer1("nn.conv2d_nchwc", {data->type(), packed->type(), bias->type()}, attrs),
            tensor({2, 2, 3, 5, 4}));
  for (TensorPtr input : {TensorPtr(data), relayout(data, "NCHW", "NCHW2c")}) {
    auto got = run("nn.conv2d_nchwc", {input, packed, bias}, attrs);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(values_of(*got[0]), values_of(*expected));
  }
  EXPECT_EQ(error("nn.conv2d_nchwc", {tensor({2, 4, 6}), packed->type()}),
            "data must have rank 4 (NCHW) or 5 (NCHW<b>c), got tensor<2x4x6xf32>");
  EXPECT_EQ(error("nn.conv2d_nchwc", {tensor({2, 1, 6, 5, 3}), packed->type()}),
            "weight has 4 input channels per group, data has 3 / groups 1 = 3");
}

TEST_F(ConvOpsTest, ConvTransposeShapes) {
  // ONNX's examples: stride 3 and 2 over 3x3, with pads or output padding.
  Type data = tensor({1, 1, 3, 3});
  Type weight = tensor({1, 2, 3, 3});
  EXPECT_EQ(infer1("nn.conv2d_transpose", {data, weight}), tensor({1, 2, 5, 5}));
  EXPECT_EQ(infer1("nn.conv2d_transpose", {data, weight},
                   make_attrs({{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}})),
            tensor({1, 2, 10, 8}));
  EXPECT_EQ(infer1("nn.conv2d_transpose", {data, weight},
                   make_attrs({{"strides", Ints{3, 2}}, {"padding", Ints{1, 2, 1, 2}}})),
            tensor({1, 2, 7, 3}));
  // Groups multiply the output channels: weight (C, O / groups, k...).
  EXPECT_EQ(infer1("nn.conv1d_transpose", {tensor({2, 6, 4}), tensor({6, 2, 3}), tensor({6})},
                   make_attrs({{"groups", std::int64_t{3}}, {"dilation", Ints{2}}})),
            tensor({2, 6, 8}));
  EXPECT_EQ(infer1("nn.conv3d_transpose", {tensor({1, 1, 3, 4, 5}), tensor({1, 2, 3, 3, 3})}),
            tensor({1, 2, 5, 6, 7}));
}

TEST_F(ConvOpsTest, ConvTransposeInferenceErrors) {
  Type data = tensor({1, 4, 3, 3});
  Type weight = tensor({4, 2, 3, 3});
  auto transpose_error = [&](AttrMap attrs) {
    return error("nn.conv2d_transpose", {data, weight}, attrs);
  };
  EXPECT_EQ(error("nn.conv2d_transpose", {data, tensor({4, 2, 3})}),
            "weight must have rank 4 (IOHW), got tensor<4x2x3xf32>");
  EXPECT_EQ(error("nn.conv1d_transpose", {data, weight}),
            "data must have rank 3 (NCW), got tensor<1x4x3x3xf32>");
  EXPECT_EQ(error("nn.conv2d_transpose", {data, tensor({3, 2, 3, 3})}),
            "weight has 3 input channels (dimension 0), data has 4");
  EXPECT_EQ(transpose_error(make_attrs({{"groups", std::int64_t{3}}})),
            "attribute 'groups' is 3 but input channels 4 are not divisible by it");
  EXPECT_EQ(error("nn.conv2d_transpose", {data, weight, tensor({2})},
                  make_attrs({{"groups", std::int64_t{2}}})),
            "bias has shape 2, but must have shape 4 (one value per output channel)");
  EXPECT_EQ(error("nn.conv2d_transpose", {tensor({1, 4, 3, 3}, DType::i32), weight}),
            "data is i32, but only floating-point types (f32, f16, bf16) are supported");
  EXPECT_EQ(error("nn.conv2d_transpose", {data, tensor({4, 2, 3, 0})}),
            "weight has an empty kernel 3x0");
  EXPECT_EQ(transpose_error(make_attrs({{"output_padding", Ints{1}}})),
            "attribute 'output_padding' must have 2 values, got 1");
  EXPECT_EQ(transpose_error(make_attrs({{"output_padding", Ints{0, -1}}})),
            "attribute 'output_padding' must be non-negative, got [0, -1]");
  EXPECT_EQ(transpose_error(make_attrs({{"padding", Ints{2, 0, 3, 0}}})),
            "output height would be 0 (input 3, stride 1, kernel 3, dilation 1, padding 2+3, "
            "output padding 0)");
  std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(transpose_error(make_attrs({{"strides", Ints{1, huge}}})),
            fmt::format("output width overflows int64 (input 3, stride {}, kernel 3, dilation 1, "
                        "padding 0+0, output padding 0)",
                        huge));
  EXPECT_EQ(transpose_error(make_attrs({{"strides", Ints{1, huge / 4}}})),
            fmt::format("result: shape 1x2x5x{} has more elements than fit in 64 bits",
                        huge / 4 * 2 + 3));
}

TEST_F(ConvOpsTest, ConvTransposeHandComputed) {
  // ONNX's ConvTranspose example: a 3x3 ramp under a 3x3 kernel of ones, two output channels.
  auto data = f32({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto ones = f32({1, 2, 3, 3}, Values(18, 1.0));
  Values plane = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                  27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  Values both = plane;
  both.insert(both.end(), plane.begin(), plane.end());
  EXPECT_EQ(values_of(*run1("nn.conv2d_transpose", {data, ones})), both);
  // 1-D, stride 2 with output padding 1: the inputs spread 2 apart, one extra zero at the end.
  auto line = f32({1, 1, 3}, {1, 2, 3});
  auto taps = f32({1, 1, 2}, {1, 10});
  EXPECT_EQ(values_of(*run1("nn.conv1d_transpose", {line, taps, f32({1}, {0.5})},
                            make_attrs({{"strides", Ints{2}}, {"output_padding", Ints{1}}}))),
            (Values{1.5, 10.5, 2.5, 20.5, 3.5, 30.5, 0.5}));
  // Padding crops: 1 at the start and 2 at the end of the full output 1 10 2 20 3 30.
  EXPECT_EQ(values_of(*run1("nn.conv1d_transpose", {line, taps},
                            make_attrs({{"strides", Ints{2}}, {"padding", Ints{1, 2}}}))),
            (Values{10, 2, 20}));
}

TEST_F(ConvOpsTest, ConvTransposeMatchesDefinition) {
  const std::vector<ConvCase> cases = {
      {{2, 3, 5}, {3, 2, 3}, {1}, {0, 0}, {1}, 1, false, {0}},
      {{1, 4, 6}, {4, 3, 3}, {3}, {1, 2}, {2}, 2, true, {1}},
      {{1, 3, 4, 5}, {3, 2, 3, 2}, {2, 3}, {1, 0, 0, 2}, {1, 2}, 1, true, {1, 2}},
      {{2, 4, 3, 3}, {4, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 4, true, {0, 1}},  // depthwise
      {{1, 2, 3, 2, 4},
       {2, 2, 2, 3, 2},
       {2, 1, 2},
       {0, 1, 1, 1, 0, 0},
       {2, 1, 1},
       1,
       true,
       {1, 0, 0}},
  };
  std::mt19937 rng(5);
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(fmt::format("data {} weight {}", to_string(c.data), to_string(c.weight)));
    auto x = random_f32(c.data, rng);
    auto w = random_f32(c.weight, rng);
    auto b = random_f32({c.weight[1] * c.groups}, rng);
    std::vector<TensorPtr> inputs = {x, w};
    if (c.bias) inputs.push_back(b);
    TensorPtr out = run1(conv_name(c, true), inputs, conv_attrs(c));
    Shape expected_shape;
    Values expected =
        reference_conv_transpose(*x, *w, c.bias ? b.get() : nullptr, c, expected_shape);
    ASSERT_EQ(out->shape(), expected_shape);
    expect_near(values_of(*out), expected, 1e-5);
  }
}

// With the same weight, the transposed convolution is the adjoint of the convolution:
// <conv(x), y> = <x, conv_transpose(y)>, once the output padding restores x's shape.
TEST_F(ConvOpsTest, ConvTransposeIsTheAdjointOfConv) {
  const std::vector<ConvCase> cases = {
      {{1, 4, 10}, {6, 2, 3}, {3}, {2, 1}, {2}, 2, false},
      {{2, 3, 7, 8}, {4, 3, 3, 2}, {2, 3}, {1, 0, 2, 1}, {1, 2}, 1, false},
      {{1, 2, 5, 6, 7}, {2, 1, 2, 3, 2}, {2, 1, 3}, {1, 1, 0, 0, 2, 1}, {2, 1, 1}, 2, false},
  };
  std::mt19937 rng(3);
  for (ConvCase c : cases) {
    SCOPED_TRACE(conv_name(c, false));
    auto x = random_f32(c.data, rng);
    auto w = random_f32(c.weight, rng);
    TensorPtr forward = run1(conv_name(c, false), {x, w}, conv_attrs(c));
    auto y = random_f32(forward->shape(), rng);
    const std::size_t rank = c.data.size() - 2;
    for (std::size_t j = 0; j < rank; ++j)
      c.output_padding.push_back(c.data[2 + j] - (c.strides[j] * (forward->shape()[2 + j] - 1) +
                                                  c.dilation[j] * (c.weight[2 + j] - 1) + 1 -
                                                  c.padding[j] - c.padding[rank + j]));
    TensorPtr backward = run1(conv_name(c, true), {y, w}, conv_attrs(c));
    ASSERT_EQ(backward->shape(), c.data);
    double lhs = 0, rhs = 0;
    for (std::int64_t i = 0; i < y->num_elements(); ++i) lhs += forward->get(i) * y->get(i);
    for (std::int64_t i = 0; i < x->num_elements(); ++i) rhs += x->get(i) * backward->get(i);
    EXPECT_NEAR(lhs, rhs, 1e-4 * std::max(1.0, std::abs(lhs)));
  }
}

// ---- nn.matmul ----

TEST_F(ConvOpsTest, MatmulShapes) {
  auto shape_of = [&](Shape a, Shape b) { return infer1("nn.matmul", {tensor(a), tensor(b)}); };
  EXPECT_EQ(shape_of({3, 4}, {4, 5}), tensor({3, 5}));
  EXPECT_EQ(shape_of({4}, {4, 5}), tensor({5}));
  EXPECT_EQ(shape_of({3, 4}, {4}), tensor({3}));
  EXPECT_EQ(shape_of({4}, {4}), tensor({}));
  EXPECT_EQ(shape_of({2, 1, 3, 4}, {5, 4, 6}), tensor({2, 5, 3, 6}));
  EXPECT_EQ(shape_of({7, 3, 4}, {4}), tensor({7, 3}));
  EXPECT_EQ(shape_of({4}, {2, 4, 6}), tensor({2, 6}));
  EXPECT_EQ(shape_of({0, 3, 4}, {1, 4, 2}), tensor({0, 3, 2}));
  EXPECT_EQ(infer1("nn.matmul", {tensor({2, 3}, DType::bf16), tensor({3, 1}, DType::bf16)}),
            tensor({2, 1}, DType::bf16));
}

TEST_F(ConvOpsTest, MatmulInferenceErrors) {
  EXPECT_EQ(error("nn.matmul", {tensor({}), tensor({2})}),
            "a must have rank 1 or more, got tensor<f32>");
  EXPECT_EQ(error("nn.matmul", {tensor({2}), tensor({})}),
            "b must have rank 1 or more, got tensor<f32>");
  EXPECT_EQ(error("nn.matmul", {tensor({3, 4}), tensor({3, 4})}),
            "a has 4 columns (its last dimension), but b has 3 rows (its second-to-last "
            "dimension)");
  EXPECT_EQ(error("nn.matmul", {tensor({3, 4}), tensor({5})}),
            "a has 4 columns (its last dimension), but b has 5 rows (its only dimension)");
  EXPECT_EQ(error("nn.matmul", {tensor({2, 3, 4}), tensor({3, 4, 5})}),
            "batch dimensions: operands have incompatible shapes 2 and 3 (dimension 0: 2 vs 3)");
  EXPECT_EQ(error("nn.matmul", {tensor({3, 4}), tensor({4, 2}, DType::f16)}),
            "b is f16, but a is f32");
  EXPECT_EQ(error("nn.matmul", {tensor({3, 4}, DType::i64), tensor({4, 2}, DType::i64)}),
            "a is i64, but only floating-point types (f32, f16, bf16) are supported");
  EXPECT_EQ(error("nn.matmul", {tensor({1LL << 32, 1}), tensor({1, 1LL << 32})}),
            "result: shape 4294967296x4294967296 has more elements than fit in 64 bits");
  EXPECT_EQ(error("nn.matmul", {tensor({2, 2})}), "op nn.matmul takes 2 operand(s), got 1");
}

TEST_F(ConvOpsTest, MatmulHandComputed) {
  auto a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = f32({3, 2}, {1, 0, 0, 1, 2, -1});
  EXPECT_EQ(values_of(*run1("nn.matmul", {a, b})), (Values{7, -1, 16, -1}));
  EXPECT_EQ(values_of(*run1("nn.matmul", {f32({3}, {1, 1, 1}), b})), (Values{3, 0}));
  EXPECT_EQ(values_of(*run1("nn.matmul", {a, f32({3}, {1, 0, -1})})), (Values{-2, -2}));
  TensorPtr dot = run1("nn.matmul", {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})});
  EXPECT_EQ(dot->shape(), Shape{});
  EXPECT_EQ(values_of(*dot), (Values{32}));
  // Empty inner dimension: sums of nothing.
  EXPECT_EQ(values_of(*run1("nn.matmul", {f32({2, 0}, {}), f32({0, 2}, {})})),
            (Values{0, 0, 0, 0}));
}

TEST_F(ConvOpsTest, MatmulBroadcastsBatches) {
  std::mt19937 rng(2);
  const std::vector<std::pair<Shape, Shape>> cases = {{{2, 1, 3, 4}, {5, 4, 2}},
                                                      {{3, 4}, {2, 4, 5}},
                                                      {{2, 3, 2, 3}, {1, 3, 3, 1}},
                                                      {{4}, {3, 4, 2}}};
  for (const auto& [sa, sb] : cases) {
    SCOPED_TRACE(fmt::format("{} x {}", to_string(sa), to_string(sb)));
    auto a = random_f32(sa, rng);
    auto b = random_f32(sb, rng);
    TensorPtr out = run1("nn.matmul", {a, b});
    // The definition on numpy's promoted shapes, batch indices mapped through broadcasting.
    Shape pa = sa.size() == 1 ? Shape{1, sa[0]} : sa;
    Shape pb = sb.size() == 1 ? Shape{sb[0], 1} : sb;
    std::size_t batch_rank = std::max(pa.size(), pb.size()) - 2;
    std::int64_t rows = pa[pa.size() - 2], inner = pa.back(), columns = pb.back();
    Shape batch(batch_rank);
    for (std::size_t j = 0; j < batch_rank; ++j) {
      auto dim = [&](const Shape& s) {
        std::size_t lead = batch_rank - (s.size() - 2);
        return j < lead ? 1 : s[j - lead];
      };
      batch[j] = std::max(dim(pa), dim(pb));
    }
    auto batch_index = [&](const Shape& s, const Shape& at) {
      Shape own(s.begin(), s.end() - 2);
      std::size_t lead = batch_rank - own.size();
      Shape index;
      for (std::size_t j = 0; j < own.size(); ++j) index.push_back(own[j] == 1 ? 0 : at[lead + j]);
      return ravel(index, own);
    };
    Values expected;
    for (std::int64_t m = 0; m < product(batch, 0, batch_rank); ++m) {
      Shape at = unravel(m, batch);
      std::int64_t ma = batch_index(pa, at), mb = batch_index(pb, at);
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < columns; ++j) {
          double sum = 0;
          for (std::int64_t k = 0; k < inner; ++k)
            sum += a->get((ma * rows + i) * inner + k) * b->get((mb * inner + k) * columns + j);
          expected.push_back(sum);
        }
    }
    EXPECT_EQ(out->num_elements(), static_cast<std::int64_t>(expected.size()));
    expect_near(values_of(*out), expected, 1e-5);
  }
}

}  // namespace
}  // namespace uma
