// The import canonicalizations compute what the subgraphs they replace computed.
#include <gtest/gtest.h>

#include <cmath>

#include "uma/graph/parser.h"
#include "uma/graph/pass.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

// Runs @main of `text` on seeded random inputs before and after `pass`, and returns the
// largest difference relative to the largest output magnitude; `fused_op` must appear.
double relative_change(const std::string& text, std::unique_ptr<Pass> pass,
                       std::string_view fused_op) {
  Context context;
  auto module = parse_module(context, text, "test");
  EXPECT_TRUE(module.ok()) << (module.ok() ? "" : module.error().message());
  if (!module.ok()) return INFINITY;
  const Function& main = *(*module)->find_function("main");
  std::vector<TensorPtr> inputs = random_inputs(main, 7);
  auto before = interpret(**module, inputs);
  EXPECT_TRUE(before.ok());

  auto changed = pass->run(**module);
  EXPECT_TRUE(changed.ok() && *changed);
  EXPECT_TRUE(verify(**module).ok());
  EXPECT_NE(to_string(**module).find(std::string(fused_op) + "("), std::string::npos)
      << to_string(**module);
  auto after = interpret(**module, inputs);
  EXPECT_TRUE(after.ok());
  if (!before.ok() || !after.ok()) return INFINITY;

  double scale = 0, error = 0;
  const Tensor& expected = *(*before)[0];
  const Tensor& actual = *(*after)[0];
  for (std::int64_t i = 0; i < expected.num_elements(); ++i) {
    scale = std::max(scale, std::abs(expected.get(i)));
    error = std::max(error, std::abs(expected.get(i) - actual.get(i)));
  }
  EXPECT_GT(scale, 0.1);  // a meaningful output, not all zeros
  return error / scale;
}

TEST(Canonicalize, FoldedBatchNormMatchesTheUnfoldedOne) {
  const char* text = R"(
func @main(%x: tensor<1x2x5x5xf32>) -> (tensor<1x3x3x3xf32>) {
  %w = constant {value = dense<[0.5, -1.0, 0.25, 2.0, 1.5, -0.75]> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32>
  %b = constant {value = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>} : tensor<3xf32>
  %gamma = constant {value = dense<[1.5, 0.5, 2.0]> : tensor<3xf32>} : tensor<3xf32>
  %beta = constant {value = dense<[0.25, -0.5, 1.0]> : tensor<3xf32>} : tensor<3xf32>
  %mean = constant {value = dense<[0.2, -0.1, 0.05]> : tensor<3xf32>} : tensor<3xf32>
  %var = constant {value = dense<[0.8, 1.3, 2.5]> : tensor<3xf32>} : tensor<3xf32>
  %c = nn.conv2d(%x, %w, %b) {strides = [2, 2]} : tensor<1x3x3x3xf32>
  %y = nn.batch_norm(%c, %gamma, %beta, %mean, %var) {epsilon = 0.001} : tensor<1x3x3x3xf32>
  return %y
}
)";
  EXPECT_LT(relative_change(text, create_fold_batch_norm_pass(), "nn.conv2d"), 1e-6);
}

TEST(Canonicalize, FusedLayerNormMatchesTheDecomposedOne) {
  const char* text = R"(
func @main(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>) {
  %two = constant {value = dense<[2.0]> : tensor<f32>} : tensor<f32>
  %eps = constant {value = dense<[1e-05]> : tensor<f32>} : tensor<f32>
  %gamma = constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %beta = constant {value = dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>} : tensor<4xf32>
  %m = mean(%x) {axes = [-1]} : tensor<2x3x1xf32>
  %d = subtract(%x, %m) : tensor<2x3x4xf32>
  %p = power(%d, %two) : tensor<2x3x4xf32>
  %v = mean(%p) {axes = [-1]} : tensor<2x3x1xf32>
  %e = add(%v, %eps) : tensor<2x3x1xf32>
  %s = sqrt(%e) : tensor<2x3x1xf32>
  %n = divide(%d, %s) : tensor<2x3x4xf32>
  %g = multiply(%gamma, %n) : tensor<2x3x4xf32>
  %y = add(%beta, %g) : tensor<2x3x4xf32>
  return %y
}
)";
  EXPECT_LT(relative_change(text, create_fuse_layer_norm_pass(), "nn.layer_norm"), 1e-6);
}

TEST(Canonicalize, FusedGeluMatchesTheErfForm) {
  const char* text = R"(
func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %sqrt2 = constant {value = dense<[1.4142135]> : tensor<f32>} : tensor<f32>
  %one = constant {value = dense<[1.0]> : tensor<f32>} : tensor<f32>
  %half = constant {value = dense<[0.5]> : tensor<f32>} : tensor<f32>
  %0 = divide(%x, %sqrt2) : tensor<4x8xf32>
  %1 = erf(%0) : tensor<4x8xf32>
  %2 = add(%1, %one) : tensor<4x8xf32>
  %3 = multiply(%x, %2) : tensor<4x8xf32>
  %y = multiply(%3, %half) : tensor<4x8xf32>
  return %y
}
)";
  EXPECT_LT(relative_change(text, create_fuse_gelu_pass(), "nn.gelu"), 1e-6);
}

}  // namespace
}  // namespace uma
