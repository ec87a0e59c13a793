// Unit tests of the ONNX converter of Det (src/frontend/onnx/det.cc): determinants that need
// row swaps, singular matrices, the dtypes and sizes the node tests leave out, the errors,
// and the elimination compiled for the host against the interpreter for sizes 1 to 6.
#include <gtest/gtest.h>

#include <algorithm>

#include "build_check.h"
#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OneNode;
using test::values_of;
using Values = std::vector<double>;

void expect_near(const Values& got, const Values& expected, double tolerance) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], tolerance * (1 + std::abs(expected[i]))) << i;
}

TEST(OnnxDet, PivotsSwapRowsAndSingularMatricesGiveZero) {
  // A zero first pivot (one swap), a permutation matrix of three rows (two swaps), a
  // matrix with two equal rows, one with a zero column, and a triangular one.
  auto x = f32({5, 3, 3}, {0, 2, 1, 3, 1, 4, 5, 6, 0,  //
                           0, 1, 0, 0, 0, 1, 1, 0, 0,  //
                           1, 2, 3, 1, 2, 3, 4, 5, 6,  //
                           1, 0, 3, 2, 0, 5, 4, 0, 6,  //
                           2, 7, 1, 0, 3, 9, 0, 0, -4});
  auto y = OneNode("Det", 11).input(x).run1();
  EXPECT_EQ(y->shape(), (Shape{5}));
  expect_near(values_of(*y), {53, 1, 0, 0, -24}, 1e-6);
}

TEST(OnnxDet, ShapesAndDtypes) {
  auto one = OneNode("Det", 11).input(f32({2, 1, 1, 1}, {-3, 0.5})).run1();
  EXPECT_EQ(one->shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of(*one), (Values{-3, 0.5}));
  // The determinant of an empty matrix is 1.
  auto empty = OneNode("Det", 11).input(f32({2, 0, 0}, {})).run1();
  EXPECT_EQ(values_of(*empty), (Values{1, 1}));
  auto f64 = OneNode("Det", 11).input(make_tensor(DType::f64, {2, 2}, {1e-3, 2, 3, 4})).run1();
  EXPECT_EQ(f64->dtype(), DType::f64);
  expect_near(values_of(*f64), {1e-3 * 4 - 6}, 1e-12);
  // f16 eliminates in f32: in f16 steps, 1/3 and 1000/3 round, and the determinant
  // comes out 2004.
  auto f16 = OneNode("Det", 11).input(make_tensor(DType::f16, {2, 2}, {3, 1000, 1, 1001})).run1();
  EXPECT_EQ(f16->dtype(), DType::f16);
  EXPECT_EQ(values_of(*f16), (Values{2003}));
}

TEST(OnnxDet, Errors) {
  EXPECT_EQ(OneNode("Det", 11).input(f32({3}, {1, 2, 3})).error(),
            "m.onnx: node 'n' (Det): input 0 ('X') is tensor<3xf32>, but must be square "
            "matrices [..., M, M]");
  EXPECT_EQ(OneNode("Det", 11).input(f32({2, 3}, {1, 2, 3, 4, 5, 6})).error(),
            "m.onnx: node 'n' (Det): input 0 ('X') is tensor<2x3xf32>, but must be square "
            "matrices [..., M, M]");
  EXPECT_EQ(OneNode("Det", 11).input(make_tensor(DType::i32, {1, 1}, {2})).error(),
            "m.onnx: node 'n' (Det): input 0 ('X') is tensor<1x1xi32>, but must be "
            "floating-point");
  EXPECT_EQ(OneNode("Det", 10).input(f32({1, 1}, {2})).error(),
            "m.onnx: node 'n' (Det): Det of opset 10 is not supported: uma converts Det as "
            "defined from opset 11 on (onnx.version_converter can update the model)");
}

// What the fuzzer found a model can declare: matrices too large to unroll, and a batch of
// empty matrices whose determinants (all 1) would be too large a constant.
TEST(OnnxDet, HostileSizesAreErrors) {
  auto error = [](const Shape& shape) {
    test::OnnxModel model("Det", 11);
    model.input("x", DType::f32, shape).output("y");
    Context ctx;
    auto module = model.import(ctx);
    return module ? std::string("(no error)") : module.error().message();
  };
  EXPECT_EQ(error({257, 257}),
            "m.onnx: node 'n' (Det): input 0 ('X') holds 257x257 matrices; their determinant is "
            "imported as one elimination step per column, for matrices of at most 256 columns");
  EXPECT_EQ(error({std::int64_t{1} << 40, 0, 0}),
            "m.onnx: node 'n' (Det): the determinants of empty matrices would be a constant of "
            "1099511627776 elements here, more than the 16777216 uma builds");
}

TEST(OnnxDet, CompiledMatchesTheInterpreter) {
  // Each size batched, one batch of two dimensions, and one matrix alone.
  std::vector<std::pair<std::int64_t, Shape>> cases = {{1, {4}}, {2, {5}}, {3, {2, 3}}, {4, {6}},
                                                       {5, {3}}, {6, {4}}, {4, {}}};
  for (const auto& [m, batch] : cases) {
    Shape shape = batch;
    shape.insert(shape.end(), {m, m});
    SCOPED_TRACE(to_string(shape));
    test::OnnxModel model("Det", 11);
    model.input("x", DType::f32, shape).output("y");
    Context ctx;
    auto module = model.import(ctx);
    ASSERT_TRUE(module.ok()) << module.error().message();
    Values x = values_of(*test::random_tensor(shape, static_cast<unsigned>(m)));
    // A singular matrix among the others: the first row repeated.
    if (m > 1 && !batch.empty()) std::copy_n(x.begin(), m, x.begin() + m);
    testing_build::check_host_build(**module, {f32(shape, x)}, 1e-5, 1e-6);
  }
}

}  // namespace
}  // namespace uma
