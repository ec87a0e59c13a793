// Unit tests of the importer's QDQ fusion (src/frontend/onnx/fuse_qdq.cc): which
// DequantizeLinear -> Conv -> QuantizeLinear chains become integer convolutions, which stay
// float, and that both compute the QDQ graph's values.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "tensor_util.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::values_of;

enum class Bias { None, Float, Quantized, WrongScale };

// x (u8 1x1x3x3) -> Q -> DQ -> Conv(DQ(w i8 2x1x2x2, per channel), bias) -> Q -> DQ -> y,
// x_scale 0.5, w_scale 0.25 and 0.5, y_scale 0.25; the conv's result is also a graph output
// when `conv_is_output`.
onnx::ModelProto qdq_conv(Bias bias, bool conv_is_output = false) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("g");
  auto init = [&](const std::string& name, const TensorPtr& t) {
    *g.add_initializer() = tensor_to_onnx(*t, name);
  };
  auto node = [&](const char* op, std::vector<std::string> in, const std::string& out,
                  std::int64_t axis = 1) {
    onnx::NodeProto& n = *g.add_node();
    n.set_op_type(op);
    n.set_name(out);
    for (const std::string& i : in) n.add_input(i);
    n.add_output(out);
    if (axis != 1) {
      onnx::AttributeProto& a = *n.add_attribute();
      a.set_name("axis");
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(axis);
    }
  };
  auto io = [](onnx::ValueInfoProto& v, const std::string& name, Shape shape) {
    v.set_name(name);
    auto* t = v.mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  io(*g.add_input(), "x", {1, 1, 3, 3});
  init("xs", f32({}, {0.5}));
  init("xz", make_tensor(DType::u8, {}, {2}));
  init("w", make_tensor(DType::i8, {2, 1, 2, 2}, {1, -2, 3, 4, 2, 2, -1, 0}));
  init("ws", f32({2}, {0.25, 0.5}));
  init("wz", make_tensor(DType::i8, {2}, {0, 0}));
  init("ys", f32({}, {0.25}));
  init("yz", make_tensor(DType::u8, {}, {10}));
  node("QuantizeLinear", {"x", "xs", "xz"}, "xq");
  node("DequantizeLinear", {"xq", "xs", "xz"}, "xd");
  node("DequantizeLinear", {"w", "ws", "wz"}, "wd", 0);
  std::vector<std::string> conv_in = {"xd", "wd"};
  if (bias == Bias::Float) {
    init("b", f32({2}, {1, -1}));
    conv_in.push_back("b");
  } else if (bias != Bias::None) {
    // Scale x_scale * w_scale, or twice that.
    double k = bias == Bias::WrongScale ? 2 : 1;
    init("b", make_tensor(DType::i32, {2}, {8, -4}));
    init("bs", f32({2}, {0.125 * k, 0.25 * k}));
    node("DequantizeLinear", {"b", "bs"}, "bd", 0);
    conv_in.push_back("bd");
  }
  node("Conv", conv_in, "c");
  node("QuantizeLinear", {"c", "ys", "yz"}, "yq");
  node("DequantizeLinear", {"yq", "ys", "yz"}, "y");
  io(*g.add_output(), "y", {1, 2, 2, 2});
  if (conv_is_output) io(*g.add_output(), "c", {1, 2, 2, 2});
  return model;
}

class OnnxQdqFusionTest : public ::testing::Test {
 protected:
  // Whether the imported convolution sums integers, and the value of y on x.
  std::pair<bool, std::vector<double>> run(const onnx::ModelProto& model) {
    auto module = import_onnx_bytes(ctx, model.SerializeAsString(), "m.onnx", "");
    EXPECT_TRUE(module.ok()) << module.error().message();
    if (!module) return {};
    bool integer = false;
    for (const auto& node : (*module)->find_function("main")->nodes())
      if (node->is_op("nn.conv2d")) integer = node->result()->tensor_type().dtype == DType::i32;
    auto out = interpret(**module, {f32({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})});
    EXPECT_TRUE(out.ok()) << out.error().message();
    if (!out) return {};
    return {integer, values_of(*(*out)[0])};
  }
  Context ctx;
};

TEST_F(OnnxQdqFusionTest, FusesWhatQLinearConvCanSay) {
  auto [plain, plain_y] = run(qdq_conv(Bias::None));
  EXPECT_TRUE(plain);
  auto [biased, biased_y] = run(qdq_conv(Bias::Quantized));
  EXPECT_TRUE(biased);
  // The float form of the same graph computes the same values: a float bias of the values
  // the quantized one dequantizes to (8 * 0.125, -4 * 0.25).
  auto [floating, floating_y] = run(qdq_conv(Bias::Float));
  EXPECT_FALSE(floating);
  EXPECT_EQ(biased_y, floating_y);
  EXPECT_EQ(plain_y.size(), 8u);
}

TEST_F(OnnxQdqFusionTest, LeavesOtherChainsFloat) {
  EXPECT_FALSE(run(qdq_conv(Bias::WrongScale)).first);
  EXPECT_FALSE(run(qdq_conv(Bias::None, /*conv_is_output=*/true)).first);
}

}  // namespace
}  // namespace uma
