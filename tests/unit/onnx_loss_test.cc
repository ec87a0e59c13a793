// Unit tests of the ONNX converters of losses (src/frontend/onnx/loss.cc): what ONNX's node
// tests (tests/onnx/, 104 of them) leave out: targets out of range, ignored or not, and
// every error with its message.
#include <gtest/gtest.h>

#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OneNode;
using test::values_of;
using Values = std::vector<double>;

// Log-probabilities of 2 positions over 3 classes.
TensorPtr input() { return f32({2, 3}, {-1, -2, -3, -4, -5, -6}); }
TensorPtr targets(Values values) { return make_tensor(DType::i64, {2}, std::move(values)); }

TEST(OnnxLossConverters, IgnoredTargetsMayBeAnyIndexOthersMustBeClasses) {
  // -100 (PyTorch's default ignore index) is never read: the mean is over position 1 alone.
  auto mean = OneNode("NegativeLogLikelihoodLoss", 13)
                  .input(input())
                  .input(targets({-100, 2}))
                  .attr("ignore_index", std::int64_t{-100})
                  .run1();
  EXPECT_EQ(values_of(*mean), (Values{6}));
  auto none = OneNode("NegativeLogLikelihoodLoss", 13)
                  .input(input())
                  .input(targets({-100, 2}))
                  .attr("ignore_index", std::int64_t{-100})
                  .attr("reduction", std::string("none"))
                  .run1();
  EXPECT_EQ(values_of(*none), (Values{0, 6}));
  // A target that is not ignored and no class is refused when the model runs.
  EXPECT_EQ(OneNode("NegativeLogLikelihoodLoss", 13).input(input()).input(targets({3, 0})).error(),
            "node 'n' (gather_elements): index 3 (element 0 of indices) is out of range for axis 1 "
            "of size 3");
}

TEST(OnnxLossConverters, Errors) {
  auto error = [](TensorPtr x, TensorPtr t, const char* reduction = "mean") {
    return OneNode("NegativeLogLikelihoodLoss", 13)
        .input(x)
        .input(t)
        .attr("reduction", std::string(reduction))
        .error();
  };
  EXPECT_EQ(error(f32({3}, {1, 2, 3}), targets({0, 1})),
            "m.onnx: node 'n' (NegativeLogLikelihoodLoss): the input is tensor<3xf32>, but must be "
            "[N, C] or [N, C, d1, ...]");
  EXPECT_EQ(error(input(), make_tensor(DType::i64, {2, 1}, {0, 1})),
            "m.onnx: node 'n' (NegativeLogLikelihoodLoss): the target is tensor<2x1xi64>, but the "
            "input tensor<2x3xf32> needs targets of shape 2");
  EXPECT_EQ(error(input(), f32({2}, {0, 1})),
            "m.onnx: node 'n' (NegativeLogLikelihoodLoss): the target is tensor<2xf32>, but must "
            "be i64 or i32");
  EXPECT_EQ(error(input(), targets({0, 1}), "max"),
            "m.onnx: node 'n' (NegativeLogLikelihoodLoss): attribute 'reduction' is 'max', not "
            "none, sum or mean");
  EXPECT_EQ(
      OneNode("NegativeLogLikelihoodLoss", 13)
          .input(input())
          .input(targets({0, 1}))
          .input(f32({2}, {1, 1}))
          .error(),
      "m.onnx: node 'n' (NegativeLogLikelihoodLoss): the weight is tensor<2xf32>, but must be "
      "1-D of the 3 classes");
  EXPECT_EQ(OneNode("SoftmaxCrossEntropyLoss", 13)
                .input(f32({3}, {1, 2, 3}))
                .input(targets({0, 1}))
                .error(),
            "m.onnx: node 'n' (SoftmaxCrossEntropyLoss): the scores are tensor<3xf32>, but must be "
            "[N, C] or [N, C, d1, ...]");
}

}  // namespace
}  // namespace uma
