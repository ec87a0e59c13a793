// ConvInteger and QLinearConv compiled for the host against the reference interpreter, over
// random shapes, groups, strides, dilations, padding, u8/i8 operands and per-channel weight
// scales and zero points: both sum in i32 and requantize in f32, so they agree bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "c_test_util.h"
#include "onnx_model_builder.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/uma/build.h"

namespace uma {
namespace {

using test::OnnxModel;
using Ints = std::vector<std::int64_t>;

class QuantizedConvBuildTest : public ::testing::Test {
 protected:
  int uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); }

  // A tensor of `dtype` with values uniform over [low, high].
  TensorPtr integers(DType dtype, Shape shape, int low, int high) {
    auto t = std::make_shared<Tensor>(TensorType{dtype, std::move(shape)});
    for (std::int64_t i = 0; i < t->num_elements(); ++i) t->set(i, uniform(low, high));
    return t;
  }
  // The full range of u8 or i8.
  TensorPtr quantized(DType dtype, Shape shape) {
    return dtype == DType::u8 ? integers(dtype, std::move(shape), 0, 255)
                              : integers(dtype, std::move(shape), -128, 127);
  }
  // Scales of 2^(shift - 10) to 2^(shift - 4) times an odd integer below 16: exact in f32,
  // and varied enough for products to land on halves.
  TensorPtr scales(Shape shape, int shift = 0) {
    auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
    for (std::int64_t i = 0; i < t->num_elements(); ++i)
      t->set(i, std::ldexp(2 * uniform(0, 7) + 1, shift - uniform(4, 10)));
    return t;
  }
  DType quantized_dtype() { return uniform(0, 1) == 0 ? DType::u8 : DType::i8; }

  // Sets the node's Conv attributes to a random 2-D window over an H x W input that fits.
  void window(OnnxModel& model, std::int64_t groups) {
    const Ints strides = {uniform(1, 2), uniform(1, 2)};
    const Ints dilations = {uniform(1, 2), uniform(1, 2)};
    const Ints pads = {uniform(0, 2), uniform(0, 2), uniform(0, 2), uniform(0, 2)};
    model.ints_attr("strides", strides).ints_attr("dilations", dilations).ints_attr("pads", pads);
    model.int_attr("group", groups);
  }

  // Imports the model, interprets it on `inputs`, builds it for the host, runs it there and
  // expects the same output bit for bit.
  void check(const OnnxModel& model, const std::vector<TensorPtr>& inputs) {
    auto module = model.import(ctx);
    ASSERT_TRUE(module.ok()) << module.error().message();
    auto reference = interpret(**module, inputs);
    ASSERT_TRUE(reference.ok()) << reference.error().message();
    build::BuildOptions options;
    options.compiler.cache_dir = testing_c::run_cache_dir();
    options.passes.verify_each = true;
    auto built = build::build(**module, std::vector<std::string>{"c"}, options);
    ASSERT_TRUE(built.ok()) << built.error().message();
    auto outputs = runtime::Executor(built->program).run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().message();
    ASSERT_EQ(outputs->size(), 1u);
    TensorComparison result = compare_tensors(*(*outputs)[0], *(*reference)[0], 0, 0);
    EXPECT_TRUE(result.ok()) << result.mismatches << " mismatch(es), max abs error "
                             << result.max_abs_error;
  }

  Context ctx;
  std::mt19937 rng{15};
};

TEST_F(QuantizedConvBuildTest, QLinearConvMatchesTheInterpreter) {
  for (int trial = 0; trial < 6; ++trial) {
    SCOPED_TRACE(trial);
    const std::int64_t groups = uniform(1, 3), channels = groups * uniform(1, 3);
    const std::int64_t out_channels = groups * uniform(1, 3);
    const Shape data = {uniform(1, 2), channels, uniform(5, 9), uniform(5, 9)};
    const Shape weight = {out_channels, channels / groups, uniform(1, 3), uniform(1, 3)};
    const DType x_dtype = quantized_dtype(), w_dtype = quantized_dtype();
    const DType y_dtype = quantized_dtype();
    OnnxModel model("QLinearConv", 10);
    model.input("x", x_dtype, data)
        .constant("xs", *scales({}))
        .constant("xz", *quantized(x_dtype, {}))
        .constant("w", *quantized(w_dtype, weight))
        .constant("ws", *scales({out_channels}))
        .constant("wz", *quantized(w_dtype, {out_channels}))
        // Large enough that most results fall inside y's range rather than saturate.
        .constant("ys", *scales({}, 8))
        .constant("yz", *quantized(y_dtype, {}))
        .constant("b", *integers(DType::i32, {out_channels}, -5000, 5000))
        .output("y");
    window(model, groups);
    check(model, {quantized(x_dtype, data)});
  }
}

TEST_F(QuantizedConvBuildTest, ConvIntegerMatchesTheInterpreter) {
  for (int trial = 0; trial < 4; ++trial) {
    SCOPED_TRACE(trial);
    const std::int64_t groups = uniform(1, 2), channels = groups * uniform(1, 4);
    const Shape data = {1, channels, uniform(5, 9), uniform(5, 9)};
    const Shape weight = {groups * uniform(1, 3), channels / groups, uniform(1, 3), uniform(1, 3)};
    const DType x_dtype = quantized_dtype(), w_dtype = quantized_dtype();
    OnnxModel model("ConvInteger", 10);
    model.input("x", x_dtype, data)
        .constant("w", *quantized(w_dtype, weight))
        .constant("xz", *quantized(x_dtype, {}))
        .constant("wz", *quantized(w_dtype, {weight[0]}))
        .output("y");
    window(model, groups);
    check(model, {quantized(x_dtype, data)});
  }
}

}  // namespace
}  // namespace uma
