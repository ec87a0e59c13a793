// Unit tests of the ONNX converters of src/frontend/onnx/rnn.cc: what ONNX's node tests leave
// out (both directions at once, sequence lengths that end early, chosen activations and their
// parameters) checked by hand, and the errors. The node tests check the default cells.
#include <gtest/gtest.h>

#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OnnxModel;
using test::values_of;
using Values = std::vector<double>;

class OnnxRnnTest : public test::OnnxConverterTest {
 protected:
  // A bidirectional RNN of one unit over one input feature: W is 1 forward and 2 backward,
  // R is 1, no bias; X (sequence 2, batch 2) is then given to run.
  OnnxModel bidirectional(const std::vector<std::string>& activations) {
    OnnxModel model("RNN", 14);
    model.input("x", DType::f32, {2, 2, 1})
        .constant("w", *f32({2, 1, 1}, {1, 2}))
        .constant("r", *f32({2, 1, 1}, {1, 1}))
        .skip()
        .constant("lengths", *make_tensor(DType::i32, {2}, {2, 1}))
        .output("y")
        .output("y_h")
        .string_attr("direction", "bidirectional")
        .int_attr("hidden_size", 1);
    if (!activations.empty()) model.strings_attr("activations", activations);
    return model;
  }
};

TEST_F(OnnxRnnTest, BidirectionalWithSequenceLengths) {
  // Batch entry 0 runs 2 steps, entry 1 one. Forward: relu(1) = 1, relu(2 + 1) = 3; entry 1:
  // relu(3) = 3, then it has ended (output 0, state kept). Backward, from each entry's last
  // step: relu(2 * 2) = 4, relu(2 * 1 + 4) = 6; entry 1: relu(2 * 3) = 6.
  std::vector<TensorPtr> out = run(bidirectional({"Relu", "Relu"}), {f32({2, 2, 1}, {1, 3, 2, 5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]->shape(), (Shape{2, 2, 2, 1}));
  EXPECT_EQ(values_of(*out[0]), (Values{1, 3, 6, 6, 3, 0, 4, 0}));
  EXPECT_EQ(values_of(*out[1]), (Values{3, 3, 6, 6}));
}

TEST_F(OnnxRnnTest, ActivationsTakeTheirAlphaAndBetaInOrder) {
  // Affine takes alpha 2 and beta 1, LeakyRelu the next alpha, 0.5. Entry 0 forward:
  // 2 * 1 + 1 = 3, then 2 * (2 + 3) + 1 = 11; backward: 2 * 2 = 4, then 2 * 1 + 4 = 6.
  OnnxModel model = bidirectional({"Affine", "LeakyRelu"});
  model.floats_attr("activation_alpha", {2, 0.5}).floats_attr("activation_beta", {1});
  std::vector<TensorPtr> out = run(model, {f32({2, 2, 1}, {1, -3, 2, 5})});
  ASSERT_EQ(out.size(), 2u);
  // Entry 1 (one step) forward: 2 * -3 + 1 = -5; backward: leaky(2 * -3) = -3.
  EXPECT_EQ(values_of(*out[0]), (Values{3, -5, 6, -3, 11, 0, 4, 0}));
}

TEST_F(OnnxRnnTest, Errors) {
  EXPECT_EQ(import_error(bidirectional({"Relu"})),
            "m.onnx: node 'n' (RNN): attribute 'activations' has 1 names, but RNN takes 1 per "
            "direction (2)");
  EXPECT_EQ(import_error(bidirectional({"Relu", "Swish"})),
            "m.onnx: node 'n' (RNN): attribute 'activations' names 'Swish', which is not one of "
            "Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, "
            "Elu, Softsign, Softplus");
  OnnxModel direction("GRU", 14);
  direction.input("x", DType::f32, {2, 1, 1})
      .constant("w", *f32({1, 3, 1}, {1, 1, 1}))
      .constant("r", *f32({1, 3, 1}, {1, 1, 1}))
      .output("y")
      .string_attr("direction", "sideways");
  EXPECT_EQ(import_error(direction),
            "m.onnx: node 'n' (GRU): attribute 'direction' is 'sideways', but must be forward, "
            "reverse or bidirectional");
  OnnxModel gates("LSTM", 14);
  gates.input("x", DType::f32, {2, 1, 1})
      .constant("w", *f32({1, 3, 1}, {1, 1, 1}))
      .constant("r", *f32({1, 3, 1}, {1, 1, 1}))
      .output("y");
  EXPECT_EQ(import_error(gates),
            "m.onnx: node 'n' (LSTM): input 1 ('W') has shape 1x3x1, but must have shape 1x4x1");
  OnnxModel hidden("RNN", 14);
  hidden.input("x", DType::f32, {2, 1, 1})
      .constant("w", *f32({1, 1, 1}, {1}))
      .constant("r", *f32({1, 1, 1}, {1}))
      .output("y")
      .int_attr("hidden_size", 4);
  EXPECT_EQ(import_error(hidden),
            "m.onnx: node 'n' (RNN): attribute 'hidden_size' is 4, but input 2 ('R') is "
            "tensor<1x1x1xf32>");
}

}  // namespace
}  // namespace uma
