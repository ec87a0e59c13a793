// Unit tests of the ONNX converters of src/frontend/onnx/conv.cc: the padding that auto_pad
// and ConvTranspose's output_shape resolve to, the fewest ops Gemm becomes, the opset
// differences of Gemm and the pools, and the errors. ONNX's node tests check the numbers of
// the common cases; these check what the node tests leave out (constant weights, opsets
// before 11, SAME_LOWER on odd paddings, errors, MaxUnpool's indices across planes and its
// host build against the interpreter).
#include <gtest/gtest.h>

#include "build_check.h"
#include "onnx_model_builder.h"
#include "tensor_util.h"
#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"

namespace uma {
namespace {

using test::f32;
using test::OnnxModel;
using test::values_of;
using Ints = std::vector<std::int64_t>;
using Values = std::vector<double>;
using Names = std::vector<std::string>;

class OnnxConvTest : public test::OnnxConverterTest {
 protected:
  // The imported @main's nodes, one line each, without constants and the return.
  std::string nodes(const OnnxModel& model) {
    auto module = model.import(ctx);
    if (!module) return "error: " + module.error().message();
    std::string printed = to_string(**module), lines;
    std::size_t begin = printed.find("{\n") + 2;
    for (std::size_t end; (end = printed.find('\n', begin)) != std::string::npos; begin = end + 1) {
      std::string line = printed.substr(begin, end - begin);
      if (line.rfind("  return", 0) == 0) break;
      if (line.find(" = constant ") == std::string::npos) lines += line.substr(2) + "\n";
    }
    return lines;
  }

  // The ops of the imported @main in order, constants left out.
  Names ops(const OnnxModel& model) {
    auto module = model.import(ctx);
    EXPECT_TRUE(module.ok()) << module.error().message();
    Names names;
    if (!module) return names;
    for (const auto& node : (*module)->find_function("main")->nodes())
      if (!node->is_op("constant")) names.push_back(node->op().name);
    return names;
  }
};

// ---- Conv ----

OnnxModel conv(const Shape& x, const Shape& w, int opset = 11) {
  OnnxModel model("Conv", opset);
  model.input("x", DType::f32, x).input("w", DType::f32, w);
  return model;
}

TEST_F(OnnxConvTest, ConvAutoPad) {
  // Input 6, kernel 3, stride 2: output 3 needs 1 padding, at the end (upper) or begin (lower).
  auto same = [&](const char* mode) {
    OnnxModel model = conv({1, 2, 6, 6}, {4, 1, 3, 3});
    model.output("y")
        .string_attr("auto_pad", mode)
        .ints_attr("strides", {2, 2})
        .int_attr("group", 2);
    return nodes(model);
  };
  EXPECT_EQ(same("SAME_UPPER"),
            "%y = nn.conv2d(%x, %w) {groups = 2, padding = [0, 0, 1, 1], strides = [2, 2]} : "
            "tensor<1x4x3x3xf32> loc(\"n\")\n");
  EXPECT_EQ(same("SAME_LOWER"),
            "%y = nn.conv2d(%x, %w) {groups = 2, padding = [1, 1, 0, 0], strides = [2, 2]} : "
            "tensor<1x4x3x3xf32> loc(\"n\")\n");
  EXPECT_EQ(same("VALID"),
            "%y = nn.conv2d(%x, %w) {groups = 2, strides = [2, 2]} : tensor<1x4x2x2xf32> "
            "loc(\"n\")\n");
  EXPECT_EQ(same("NOTSET"),
            "%y = nn.conv2d(%x, %w) {groups = 2, strides = [2, 2]} : tensor<1x4x2x2xf32> "
            "loc(\"n\")\n");
  // Dilation widens the window: kernel 2 dilated by 3 spans 4, so input 5 needs 3.
  OnnxModel dilated = conv({1, 1, 5}, {1, 1, 2});
  dilated.output("y").string_attr("auto_pad", "SAME_LOWER").ints_attr("dilations", {3});
  EXPECT_EQ(nodes(dilated),
            "%y = nn.conv1d(%x, %w) {dilation = [3], padding = [2, 1]} : tensor<1x1x5xf32> "
            "loc(\"n\")\n");
  // pads that agree with auto_pad are harmless.
  OnnxModel both = conv({1, 1, 4, 4, 4}, {2, 1, 2, 2, 2}, 17);
  both.output("y").string_attr("auto_pad", "SAME_UPPER").ints_attr("pads", {0, 0, 0, 1, 1, 1});
  EXPECT_EQ(nodes(both),
            "%y = nn.conv3d(%x, %w) {padding = [0, 0, 0, 1, 1, 1]} : tensor<1x2x4x4x4xf32> "
            "loc(\"n\")\n");
}

TEST_F(OnnxConvTest, ConvAttributes) {
  OnnxModel model = conv({1, 2, 7}, {3, 2, 2}, 7);
  model.input("b", DType::f32, {3})
      .output("y")
      .ints_attr("dilations", {2})
      .ints_attr("pads", {1, 0})
      .ints_attr("kernel_shape", {2});
  EXPECT_EQ(nodes(model),
            "%y = nn.conv1d(%x, %w, %b) {dilation = [2], padding = [1, 0]} : tensor<1x3x6xf32> "
            "loc(\"n\")\n");
  // Depthwise 3-D with a constant weight: numbers through the interpreter.
  OnnxModel depthwise("Conv", 13);
  depthwise.input("x", DType::f32, {1, 2, 1, 1, 3})
      .constant("w", *f32({2, 1, 1, 1, 2}, {1, 1, 1, -1}))
      .output("y")
      .int_attr("group", 2);
  EXPECT_EQ(run1(depthwise, {f32({1, 2, 1, 1, 3}, {1, 2, 3, 4, 5, 7})}), (Values{3, 5, -1, -2}));
}

TEST_F(OnnxConvTest, ConvErrors) {
  auto conv_error = [&](OnnxModel model) { return import_error(model.output("y")); };
  EXPECT_EQ(conv_error(conv({1, 1, 5, 5}, {1, 1, 3, 3}).ints_attr("kernel_shape", {3, 2})),
            "m.onnx: node 'n' (Conv): attribute 'kernel_shape' is [3, 2], but the weight's kernel "
            "is [3, 3]");
  EXPECT_EQ(conv_error(conv({1, 1, 6, 6}, {1, 1, 3, 3})
                           .string_attr("auto_pad", "SAME_UPPER")
                           .ints_attr("strides", {2, 2})
                           .ints_attr("pads", {1, 1, 1, 1})),
            "m.onnx: node 'n' (Conv): attribute 'pads' is [1, 1, 1, 1], but auto_pad gives [0, 0, "
            "1, 1]; use one or the other");
  EXPECT_EQ(conv_error(conv({1, 1, 5, 5}, {1, 1, 3, 3}).string_attr("auto_pad", "SAME")),
            "m.onnx: node 'n' (Conv): attribute 'auto_pad' is 'SAME', but must be NOTSET, "
            "SAME_UPPER, SAME_LOWER or VALID");
  EXPECT_EQ(conv_error(conv({1, 1, 5, 5}, {1, 1, 3, 3}).ints_attr("strides", {2})),
            "m.onnx: node 'n' (Conv): attribute 'strides' has 1 values, but must have 2");
  EXPECT_EQ(conv_error(conv({1, 1, 5, 5}, {1, 1, 3, 3}).ints_attr("pads", {1, 1})),
            "m.onnx: node 'n' (Conv): attribute 'pads' has 2 values, but must have 4");
  EXPECT_EQ(conv_error(conv({1, 1, 5, 5}, {1, 1, 3, 3})
                           .string_attr("auto_pad", "SAME_LOWER")
                           .ints_attr("strides", {0, 1})),
            "m.onnx: node 'n' (Conv): auto_pad needs positive strides, dilations and kernel "
            "sizes, got [0, 1], [1, 1] and [3, 3]");
  EXPECT_EQ(conv_error(conv({2, 5}, {1, 2})),
            "m.onnx: node 'n' (Conv): input 0 ('X') is tensor<2x5xf32>, but Conv takes (N, C, "
            "spatial...) with 1 to 3 spatial dimensions");
  EXPECT_EQ(conv_error(conv({1, 1, 5, 5}, {1, 1, 3})),
            "m.onnx: node 'n' (Conv): input 1 ('W') is tensor<1x1x3xf32>, but must have the rank "
            "of input 0 ('X'), tensor<1x1x5x5xf32>");
  // The op's own checks come through with its name.
  EXPECT_EQ(conv_error(conv({1, 2, 5, 5}, {1, 1, 3, 3})),
            "m.onnx: node 'n' (Conv): nn.conv2d: weight has 1 input channels per group, data has "
            "2 / groups 1 = 2");
}

// ---- ConvTranspose ----

OnnxModel conv_transpose(const Shape& x, const Shape& w, int opset = 11) {
  OnnxModel model("ConvTranspose", opset);
  model.input("x", DType::f32, x).input("w", DType::f32, w);
  return model;
}

TEST_F(OnnxConvTest, ConvTransposeOutputShape) {
  // 3x3 input, 3x3 kernel, strides 3 and 2: the full output is 9x7.
  auto with_shape = [&](Ints output_shape, const char* auto_pad) {
    OnnxModel model = conv_transpose({1, 1, 3, 3}, {1, 2, 3, 3});
    model.output("y").ints_attr("strides", {3, 2}).ints_attr("output_shape", output_shape);
    if (*auto_pad != 0) model.string_attr("auto_pad", auto_pad);
    return nodes(model);
  };
  // Larger than the full output: the extra goes to the end, as output padding.
  EXPECT_EQ(with_shape({10, 8}, ""),
            "%y = nn.conv2d_transpose(%x, %w) {output_padding = [1, 1], strides = [3, 2]} : "
            "tensor<1x2x10x8xf32> loc(\"n\")\n");
  // Early versions of the spec gave N and C too.
  EXPECT_EQ(with_shape({1, 2, 10, 8}, ""), with_shape({10, 8}, ""));
  // Smaller: cropped by padding 2 and 3, the odd one at the begin, or under SAME_UPPER at
  // the end.
  EXPECT_EQ(with_shape({7, 4}, ""),
            "%y = nn.conv2d_transpose(%x, %w) {padding = [1, 2, 1, 1], strides = [3, 2]} : "
            "tensor<1x2x7x4xf32> loc(\"n\")\n");
  EXPECT_EQ(with_shape({7, 4}, "SAME_UPPER"),
            "%y = nn.conv2d_transpose(%x, %w) {padding = [1, 1, 1, 2], strides = [3, 2]} : "
            "tensor<1x2x7x4xf32> loc(\"n\")\n");
}

TEST_F(OnnxConvTest, ConvTransposeAutoPad) {
  // SAME_* asks for input * stride = 6 of the full 7.
  auto same = [&](const char* mode) {
    OnnxModel model = conv_transpose({1, 1, 3}, {1, 1, 3}, 17);
    model.output("y").ints_attr("strides", {2}).string_attr("auto_pad", mode);
    return nodes(model);
  };
  EXPECT_EQ(same("SAME_UPPER"),
            "%y = nn.conv1d_transpose(%x, %w) {padding = [0, 1], strides = [2]} : "
            "tensor<1x1x6xf32> loc(\"n\")\n");
  EXPECT_EQ(same("SAME_LOWER"),
            "%y = nn.conv1d_transpose(%x, %w) {padding = [1, 0], strides = [2]} : "
            "tensor<1x1x6xf32> loc(\"n\")\n");
  EXPECT_EQ(same("VALID"),
            "%y = nn.conv1d_transpose(%x, %w) {strides = [2]} : tensor<1x1x7xf32> loc(\"n\")\n");
  // Attributes pass through, with groups and a bias; numbers through the interpreter.
  OnnxModel model("ConvTranspose", 7);
  model.input("x", DType::f32, {1, 2, 2})
      .constant("w", *f32({2, 1, 2}, {1, 10, 100, 1000}))
      .constant("b", *f32({2}, {0.5, -0.5}))
      .output("y")
      .int_attr("group", 2)
      .ints_attr("strides", {2})
      .ints_attr("pads", {1, 0})
      .ints_attr("output_padding", {1});
  // Channel 0: 1 10 2 20 and channel 1: 300 3000 400 4000, cropped by 1, then one more at
  // the end, plus the bias.
  EXPECT_EQ(run1(model, {f32({1, 2, 2}, {1, 2, 3, 4})}),
            (Values{10.5, 2.5, 20.5, 0.5, 2999.5, 399.5, 3999.5, -0.5}));
}

TEST_F(OnnxConvTest, ConvTransposeErrors) {
  OnnxModel count = conv_transpose({1, 1, 3, 3}, {1, 2, 3, 3});
  count.output("y").ints_attr("output_shape", {1, 10, 8});
  EXPECT_EQ(import_error(count),
            "m.onnx: node 'n' (ConvTranspose): attribute 'output_shape' has 3 values, but must "
            "have 2");
  OnnxModel negative = conv_transpose({1, 1, 3, 3}, {1, 2, 3, 3});
  negative.output("y").ints_attr("output_shape", {0, 8});
  EXPECT_EQ(import_error(negative),
            "m.onnx: node 'n' (ConvTranspose): attribute 'output_shape' must be positive, got [0, "
            "8]");
  OnnxModel kernel = conv_transpose({1, 1, 3}, {1, 2, 3});
  kernel.output("y").ints_attr("kernel_shape", {2});
  EXPECT_EQ(import_error(kernel),
            "m.onnx: node 'n' (ConvTranspose): attribute 'kernel_shape' is [2], but the weight's "
            "kernel is [3]");
}

// ---- Gemm, MatMul ----

// A 2x3 ramp times B, the 3x4 matrix of k + 10 j at (k, j) (given as a 4x3 transposed one
// when `transposed`).
const Values kA = {1, 2, 3, 4, 5, 6};
std::shared_ptr<Tensor> gemm_b(bool transposed) {
  Values values;
  for (int r = 0; r < (transposed ? 4 : 3); ++r)
    for (int c = 0; c < (transposed ? 3 : 4); ++c)
      values.push_back(transposed ? c + 10 * r : r + 10 * c);
  return f32(transposed ? Shape{4, 3} : Shape{3, 4}, values);
}

// alpha * A B + beta * C, computed here.
Values gemm_expected(double alpha, double beta, const Values& c, std::size_t c_columns) {
  Values y;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double sum = 0;
      for (int k = 0; k < 3; ++k) sum += kA[i * 3 + k] * (k + 10 * j);
      double bias = c.empty() ? 0 : c[c_columns == 1 ? i : (c.size() == 4 ? j : i * 4 + j)];
      y.push_back(alpha * sum + beta * bias);
    }
  return y;
}

TEST_F(OnnxConvTest, GemmBecomesOneDense) {
  // torch.nn.Linear's export: transB with a constant weight and bias.
  OnnxModel linear("Gemm", 13);
  linear.input("a", DType::f32, {2, 3})
      .constant("b", *gemm_b(true))
      .constant("c", *f32({4}, {1, 2, 3, 4}))
      .output("y")
      .int_attr("transB", 1);
  EXPECT_EQ(ops(linear), (Names{"nn.dense"}));
  EXPECT_EQ(run1(linear, {f32({2, 3}, kA)}), gemm_expected(1, 1, {1, 2, 3, 4}, 4));
  // A constant [1, N] bias is reshaped, and a constant B without transB transposed, here.
  OnnxModel plain("Gemm", 9);
  plain.input("a", DType::f32, {2, 3})
      .constant("b", *gemm_b(false))
      .constant("c", *f32({1, 4}, {1, 2, 3, 4}))
      .output("y");
  EXPECT_EQ(ops(plain), (Names{"nn.dense"}));
  EXPECT_EQ(run1(plain, {f32({2, 3}, kA)}), gemm_expected(1, 1, {1, 2, 3, 4}, 4));
  // A bias that is not one value per column, or not constant in shape [1, N], is added.
  OnnxModel column("Gemm", 11);
  column.input("a", DType::f32, {2, 3})
      .constant("b", *gemm_b(false))
      .input("c", DType::f32, {2, 1})
      .output("y");
  EXPECT_EQ(ops(column), (Names{"nn.dense", "add"}));
  EXPECT_EQ(run1(column, {f32({2, 3}, kA), f32({2, 1}, {-1, 1})}), gemm_expected(1, 1, {-1, 1}, 1));
  OnnxModel row("Gemm", 11);
  row.input("a", DType::f32, {2, 3})
      .input("b", DType::f32, {4, 3})
      .input("c", DType::f32, {1, 4})
      .output("y")
      .int_attr("transB", 1);
  EXPECT_EQ(ops(row), (Names{"nn.dense", "add"}));
}

TEST_F(OnnxConvTest, GemmScalingAndTransposes) {
  OnnxModel model("Gemm", 13);
  model.input("a", DType::f32, {3, 2})
      .input("b", DType::f32, {3, 4})
      .input("c", DType::f32, {})
      .output("y")
      .int_attr("transA", 1)
      .attr("alpha", 2)
      .attr("beta", 0.5);
  EXPECT_EQ(ops(model), (Names{"transpose", "nn.matmul", "multiply", "multiply", "add"}));
  // A given transposed: the 3x2 matrix whose transpose is the ramp.
  EXPECT_EQ(run1(model, {f32({3, 2}, {1, 4, 2, 5, 3, 6}), gemm_b(false), f32({}, {8})}),
            gemm_expected(2, 0.5, {8, 8, 8, 8}, 4));
  // beta 0 drops C; no C at all from opset 11.
  OnnxModel dropped("Gemm", 13);
  dropped.input("a", DType::f32, {2, 3})
      .input("b", DType::f32, {3, 4})
      .input("c", DType::f32, {4})
      .output("y")
      .attr("beta", 0);
  EXPECT_EQ(ops(dropped), (Names{"nn.matmul"}));
  OnnxModel none("Gemm", 11);
  none.input("a", DType::f32, {2, 3}).input("b", DType::f32, {3, 4}).output("y");
  EXPECT_EQ(ops(none), (Names{"nn.matmul"}));
  EXPECT_EQ(run1(none, {f32({2, 3}, kA), gemm_b(false)}), gemm_expected(1, 1, {}, 4));
}

TEST_F(OnnxConvTest, GemmErrors) {
  OnnxModel old("Gemm", 10);
  old.input("a", DType::f32, {2, 3}).input("b", DType::f32, {3, 4}).output("y");
  EXPECT_EQ(import_error(old),
            "m.onnx: node 'n' (Gemm): input 2 ('C') is missing (it is optional only from opset "
            "11)");
  OnnxModel batched("Gemm", 13);
  batched.input("a", DType::f32, {1, 2, 3}).input("b", DType::f32, {3, 4}).output("y");
  EXPECT_EQ(import_error(batched),
            "m.onnx: node 'n' (Gemm): input 0 ('A') must be a matrix, got tensor<1x2x3xf32>");
  OnnxModel wide("Gemm", 13);
  wide.input("a", DType::f32, {2, 3})
      .input("b", DType::f32, {3, 4})
      .input("c", DType::f32, {3, 2, 4})
      .output("y");
  EXPECT_EQ(import_error(wide),
            "m.onnx: node 'n' (Gemm): input 2 ('C') has shape tensor<3x2x4xf32>, which does not "
            "broadcast to the result's tensor<2x4xf32>");
  OnnxModel inner("Gemm", 13);
  inner.input("a", DType::f32, {2, 3}).input("b", DType::f32, {4, 4}).output("y");
  EXPECT_EQ(import_error(inner),
            "m.onnx: node 'n' (Gemm): nn.matmul: a has 3 columns (its last dimension), but b has 4 "
            "rows (its second-to-last dimension)");
}

TEST_F(OnnxConvTest, MatMul) {
  OnnxModel model("MatMul", 9);
  model.input("a", DType::f32, {2, 1, 3}).input("b", DType::f32, {3}).output("y");
  EXPECT_EQ(nodes(model), "%y = nn.matmul(%a, %b) : tensor<2x1xf32> loc(\"n\")\n");
  EXPECT_EQ(run1(model, {f32({2, 1, 3}, kA), f32({3}, {1, 0, -1})}), (Values{-2, -2}));
}

// ---- pools ----

TEST_F(OnnxConvTest, MaxPool) {
  // Opset 8 has neither ceil_mode nor dilations.
  OnnxModel old("MaxPool", 8);
  old.input("x", DType::f32, {1, 1, 4, 4})
      .output("y")
      .ints_attr("kernel_shape", {2, 2})
      .ints_attr("strides", {2, 2})
      .int_attr("storage_order", 1);
  EXPECT_EQ(nodes(old),
            "%y = nn.max_pool2d(%x) {pool_size = [2, 2], strides = [2, 2]} : tensor<1x1x2x2xf32> "
            "loc(\"n\")\n");
  OnnxModel model("MaxPool", 12);
  model.input("x", DType::u8, {1, 1, 5})
      .output("y")
      .skip_output()
      .ints_attr("kernel_shape", {2})
      .ints_attr("dilations", {2})
      .int_attr("ceil_mode", 1)
      .ints_attr("strides", {2})
      .string_attr("auto_pad", "SAME_LOWER");
  // Output 3 from 5 with a window spanning 3 at stride 2 needs 2: 1 and 1.
  EXPECT_EQ(nodes(model),
            "%y = nn.max_pool1d(%x) {ceil_mode = 1, dilation = [2], padding = [1, 1], pool_size "
            "= [2], strides = [2]} : tensor<1x1x3xu8> loc(\"n\")\n");
}

TEST_F(OnnxConvTest, MaxPoolIndices) {
  OnnxModel model("MaxPool", 8);
  model.input("x", DType::f32, {1, 1, 2, 3})
      .output("y")
      .output("i")
      .ints_attr("kernel_shape", {2, 2})
      .int_attr("storage_order", 1);
  EXPECT_EQ(nodes(model),
            "%y:2 = nn.max_pool2d_with_indices(%x) {pool_size = [2, 2], storage_order = 1} : "
            "tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64> loc(\"n\")\n");
  // Column-major in the 2x3 plane: (row, column) is row + 2 * column.
  std::vector<TensorPtr> outputs = run(model, {f32({1, 1, 2, 3}, {1, 9, 2, 3, 4, 8})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(values_of(*outputs[0]), (Values{9, 9}));
  EXPECT_EQ(values_of(*outputs[1]), (Values{2, 2}));
  // Without Indices, the plain pool.
  OnnxModel plain("MaxPool", 12);
  plain.input("x", DType::f32, {1, 1, 2, 3})
      .output("y")
      .skip_output()
      .ints_attr("kernel_shape", {2, 2});
  EXPECT_EQ(ops(plain), (Names{"nn.max_pool2d"}));
}

TEST_F(OnnxConvTest, AveragePool) {
  OnnxModel model("AveragePool", 7);
  model.input("x", DType::f32, {1, 1, 4})
      .output("y")
      .ints_attr("kernel_shape", {3})
      .ints_attr("pads", {1, 1})
      .int_attr("count_include_pad", 1);
  EXPECT_EQ(nodes(model),
            "%y = nn.avg_pool1d(%x) {count_include_pad = 1, padding = [1, 1], pool_size = [3]} : "
            "tensor<1x1x4xf32> loc(\"n\")\n");
  EXPECT_EQ(run1(model, {f32({1, 1, 4}, {3, 6, 9, 12})}), (Values{3, 6, 9, 7}));
  OnnxModel ceil("AveragePool", 10);
  ceil.input("x", DType::f32, {1, 1, 4, 4, 4})
      .output("y")
      .ints_attr("kernel_shape", {3, 3, 3})
      .ints_attr("strides", {2, 2, 2})
      .int_attr("ceil_mode", 1);
  EXPECT_EQ(nodes(ceil),
            "%y = nn.avg_pool3d(%x) {ceil_mode = 1, pool_size = [3, 3, 3], strides = [2, 2, 2]} : "
            "tensor<1x1x2x2x2xf32> loc(\"n\")\n");
}

TEST_F(OnnxConvTest, GlobalPools) {
  OnnxModel average("GlobalAveragePool", 7);
  average.input("x", DType::f32, {1, 2, 3, 4, 5}).output("y");
  EXPECT_EQ(nodes(average), "%y = nn.global_avg_pool(%x) : tensor<1x2x1x1x1xf32> loc(\"n\")\n");
  OnnxModel max("GlobalMaxPool", 17);
  max.input("x", DType::f32, {1, 2, 3}).output("y");
  EXPECT_EQ(run1(max, {f32({1, 2, 3}, {1, 5, 2, -1, -3, -2})}), (Values{5, -1}));
}

TEST_F(OnnxConvTest, PoolErrors) {
  OnnxModel indices("MaxPool", 7);
  indices.input("x", DType::f32, {1, 1, 4, 4})
      .output("y")
      .output("i")
      .ints_attr("kernel_shape", {2, 2});
  EXPECT_EQ(import_error(indices),
            "m.onnx: node 'n' (MaxPool): output 1 ('Indices') exists only from opset 8");
  OnnxModel no_kernel("AveragePool", 11);
  no_kernel.input("x", DType::f32, {1, 1, 4, 4}).output("y");
  EXPECT_EQ(import_error(no_kernel),
            "m.onnx: node 'n' (AveragePool): attribute 'kernel_shape' is required");
  OnnxModel short_kernel("AveragePool", 11);
  short_kernel.input("x", DType::f32, {1, 1, 4, 4}).output("y").ints_attr("kernel_shape", {2});
  EXPECT_EQ(import_error(short_kernel),
            "m.onnx: node 'n' (AveragePool): attribute 'kernel_shape' has 1 values, but the input "
            "has 2 spatial dimensions");
  OnnxModel flat("MaxPool", 11);
  flat.input("x", DType::f32, {4, 4}).output("y").ints_attr("kernel_shape", {2, 2});
  EXPECT_EQ(import_error(flat),
            "m.onnx: node 'n' (MaxPool): input 0 ('X') is tensor<4x4xf32>, but MaxPool takes (N, "
            "C, spatial...) with 1 to 3 spatial dimensions");
}

// ---- MaxUnpool ----

OnnxModel max_unpool(const Shape& x, const Shape& indices) {
  OnnxModel model("MaxUnpool", 11);
  model.input("x", DType::f32, x).input("i", DType::i64, indices);
  return model;
}

TensorPtr i64s(Shape shape, const Values& values) {
  return test::make_tensor(DType::i64, std::move(shape), values);
}

TEST_F(OnnxConvTest, MaxUnpoolStoresAtIndicesOfTheWholeOutput) {
  // Two planes of a 1-D pool of 2 at stride 2 with pads 1 and 0: 3 positions unpool to 5.
  // The indices count in both planes, (n * C + c) * 5 + s, as MaxPool's do; a negative one
  // counts from the end, as numpy's.
  OnnxModel model = max_unpool({1, 2, 3}, {1, 2, 3});
  model.output("y")
      .ints_attr("kernel_shape", {2})
      .ints_attr("strides", {2})
      .ints_attr("pads", {1, 0});
  // The zeros are folded into a constant.
  EXPECT_EQ(ops(model), (Names{"reshape", "reshape", "scatter_elements", "reshape"}));
  EXPECT_EQ(run1(model, {f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), i64s({1, 2, 3}, {0, 2, 3, 6, 8, -1})}),
            (Values{1, 0, 2, 3, 0, 0, 4, 0, 5, 6}));
  // A larger output_shape pads after each dimension's end; the indices keep their places.
  OnnxModel shaped = max_unpool({1, 1, 2, 2}, {1, 1, 2, 2});
  shaped.constant("shape", *i64s({4}, {2, 1, 3, 5}))
      .output("y")
      .ints_attr("kernel_shape", {2, 2})
      .ints_attr("strides", {1, 2});
  EXPECT_EQ(run1(shaped, {f32({1, 1, 2, 2}, {1, 2, 3, 4}), i64s({1, 1, 2, 2}, {0, 3, 5, 6})}),
            (Values{1, 0, 0, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0,  //
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST_F(OnnxConvTest, MaxUnpoolErrors) {
  auto unpool = [](const Shape& x, const Shape& indices) {
    OnnxModel model = max_unpool(x, indices);
    model.output("y").ints_attr("kernel_shape", {2, 2}).ints_attr("strides", {2, 2});
    return model;
  };
  EXPECT_EQ(import_error(unpool({1, 1, 2, 2}, {1, 1, 2, 1})),
            "m.onnx: node 'n' (MaxUnpool): input 1 ('I') is tensor<1x1x2x1xi64>, but must be i64 "
            "of X's shape 1x1x2x2");
  EXPECT_EQ(import_error(unpool({1, 1, 2}, {1, 1, 2})),
            "m.onnx: node 'n' (MaxUnpool): attribute 'kernel_shape' has 2 values, but the input "
            "has 1 spatial dimensions");
  OnnxModel padded = unpool({1, 1, 1, 2}, {1, 1, 1, 2});
  padded.ints_attr("pads", {1, 0, 1, 0});
  EXPECT_EQ(import_error(padded),
            "m.onnx: node 'n' (MaxUnpool): the input's spatial sizes [1, 2] unpool to no positive "
            "sizes with kernel_shape [2, 2], strides [2, 2] and pads [1, 0, 1, 0]");
  OnnxModel huge = max_unpool({1, 1, 2, 2}, {1, 1, 2, 2});
  huge.output("y")
      .ints_attr("kernel_shape", {1, 1})
      .ints_attr("strides", {std::int64_t{1} << 40, std::int64_t{1} << 40});
  EXPECT_EQ(import_error(huge),
            "m.onnx: node 'n' (MaxUnpool): the unpooled shape 1x1x1099511627777x1099511627777 has "
            "more elements than an int64 counts");
  OnnxModel given = unpool({1, 1, 2, 2}, {1, 1, 2, 2});
  given.input("shape", DType::i64, {4});
  EXPECT_EQ(import_error(given),
            "m.onnx: node 'n' (MaxUnpool): input 2 ('output_shape') must be a constant: uma needs "
            "its value at build time; it is the model's input 'shape', so give its value with "
            "--bind shape=FILE");
  OnnxModel smaller = unpool({1, 1, 2, 2}, {1, 1, 2, 2});
  smaller.constant("shape", *i64s({4}, {1, 1, 4, 3}));
  EXPECT_EQ(import_error(smaller),
            "m.onnx: node 'n' (MaxUnpool): input 2 ('output_shape') is [1, 1, 4, 3], but must be "
            "of rank 4 and at least the unpooled shape 1x1x4x4 in every dimension");
  // An index beyond the output is refused when the model runs, interpreted or compiled.
  auto module = unpool({1, 1, 1, 1}, {1, 1, 1, 1}).import(ctx);
  ASSERT_TRUE(module.ok()) << module.error().message();
  std::vector<TensorPtr> beyond = {f32({1, 1, 1, 1}, {7}), i64s({1, 1, 1, 1}, {4})};
  auto outputs = interpret(**module, beyond);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.error().message(),
            "node 'n' (scatter_elements): index 4 (element 0 of indices) is out of range for "
            "axis 0 of size 4");
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  auto built = build::build(**module, {"c"}, options);
  ASSERT_TRUE(built.ok()) << built.error().message();
  auto compiled = runtime::Executor(built->program).run(beyond);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.error().message(),
            "the compiled function of @fused_reshape_reshape_scatter_elements_reshape_0: node 'n' "
            "(scatter_elements): index 4 (element 0 of indices) is out of range for axis 0 of "
            "size 4");
}

TEST_F(OnnxConvTest, MaxUnpoolOfMaxPoolCompiledMatchesTheInterpreter) {
  // The pools' maxima and indices, unpooled by the host build and by the interpreter.
  struct Case {
    Shape x;
    Ints kernel, strides, pads;
  };
  for (const Case& c :
       std::vector<Case>{{{2, 3, 6}, {2}, {2}, {0, 0}},
                         {{1, 2, 5, 4}, {2, 2}, {1, 2}, {0, 0, 0, 0}},
                         {{2, 2, 5, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
                         {{1, 2, 4, 3, 4}, {2, 1, 2}, {2, 1, 2}, {0, 0, 0, 0, 0, 0}}}) {
    SCOPED_TRACE(to_string(c.x));
    OnnxModel pool("MaxPool", 12);
    pool.input("x", DType::f32, c.x)
        .output("y")
        .output("i")
        .ints_attr("kernel_shape", c.kernel)
        .ints_attr("strides", c.strides)
        .ints_attr("pads", c.pads);
    std::vector<TensorPtr> pooled = run(pool, {test::random_tensor(c.x, 3)});
    ASSERT_EQ(pooled.size(), 2u);
    OnnxModel unpool = max_unpool(pooled[0]->shape(), pooled[1]->shape());
    unpool.output("z")
        .ints_attr("kernel_shape", c.kernel)
        .ints_attr("strides", c.strides)
        .ints_attr("pads", c.pads);
    auto module = unpool.import(ctx);
    ASSERT_TRUE(module.ok()) << module.error().message();
    testing_build::check_host_build(**module, pooled, 0, 0);
  }
}

}  // namespace
}  // namespace uma
