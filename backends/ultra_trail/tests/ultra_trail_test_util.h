// What the ultra_trail tests share: a context with the backend, the conv1d model of the
// original UltraTrail example (two conv1d layers, relu, a bias, and an add the host keeps),
// and the build options of a test.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/register.h"
#include "uma/graph/builder.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma::backends::ultra_trail::test {

inline Type tensor(Shape shape, DType dtype = DType::f32) {
  return TensorType{dtype, std::move(shape)};
}

// A tensor of values in [-scale, scale) from `seed`.
inline TensorPtr random_tensor(Shape shape, unsigned seed, DType dtype = DType::f32,
                               double scale = 1.0) {
  auto t = std::make_shared<Tensor>(TensorType{dtype, std::move(shape)});
  std::mt19937 rng(seed);
  for (std::int64_t i = 0; i < t->num_elements(); ++i)
    t->set(i, (static_cast<double>(rng() % 2000) / 1000.0 - 1.0) * scale);
  return t;
}

inline AttrMap conv_attrs(std::vector<std::int64_t> strides, std::vector<std::int64_t> padding,
                          std::int64_t groups = 1, std::int64_t dilation = 1) {
  AttrMap attrs;
  attrs.set("strides", std::move(strides));
  attrs.set("padding", std::move(padding));
  attrs.set("dilation", std::vector<std::int64_t>{dilation});
  attrs.set("groups", groups);
  return attrs;
}

// conv1d of `x` with `out_channels` filters of `kernel` (random weights from `seed`, scaled
// by 1/sqrt(fan-in) as torch initialises them, so that values stay near 1 through layers),
// then, when asked, a bias (conv1d's third operand) and a relu.
inline Value* conv1d_layer(Builder& b, Value* x, std::int64_t out_channels, std::int64_t kernel,
                           AttrMap attrs, unsigned seed, bool bias_and_relu = true) {
  std::int64_t in_channels = x->tensor_type().shape[1];
  TensorPtr weights = random_tensor({out_channels, in_channels, kernel}, seed, DType::f32,
                                    1.0 / std::sqrt(static_cast<double>(in_channels * kernel)));
  std::vector<Value*> operands = {x, b.constant(weights)};
  if (bias_and_relu) operands.push_back(b.constant(random_tensor({out_channels}, seed + 1)));
  Value* y = b.create("nn.conv1d", operands, std::move(attrs))->result();
  return bias_and_relu ? b.value("nn.relu", {y}) : y;
}

class UltraTrailTest : public ::testing::Test {
 protected:
  UltraTrailTest() : module(ctx), main(*module.add_function("main").value()), b(main) {
    Status registered = register_ultra_trail(ctx);
    EXPECT_TRUE(registered.ok()) << registered.error().message();
  }

  // x [N, 3, 16] → conv1 (8 channels, kernel 3, padding 1, bias operand) → relu →
  // conv2 (4 channels, kernel 5, stride 2, padding 2/1) + a [4, 1] bias → add 42 (host).
  // Returns the first layer's result (relu1).
  Value* conv1d_model(std::int64_t batch = 1) {
    Value* x = main.add_param(tensor({batch, 3, 16}), "x");
    Value* w1 = b.constant(random_tensor({8, 3, 3}, 1));
    w1->set_name("w1");
    Value* b1 = b.constant(random_tensor({8}, 2));
    b1->set_name("b1");
    Value* c1 = b.create("nn.conv1d", {x, w1, b1}, conv_attrs({1}, {1, 1}), "conv1")->result();
    Value* r1 = b.create("nn.relu", {c1}, {}, "relu1")->result();
    Value* w2 = b.constant(random_tensor({4, 8, 5}, 3));
    w2->set_name("w2");
    Value* c2 = b.create("nn.conv1d", {r1, w2}, conv_attrs({2}, {2, 1}), "conv2")->result();
    Value* b2 = b.constant(random_tensor({4, 1}, 4));
    b2->set_name("b2");
    Value* biased = b.create("add", {c2, b2}, {}, "bias2")->result();
    auto forty_two = std::make_shared<Tensor>(TensorType{DType::f32, {}});
    forty_two->set(0, 42.0);
    Value* plus = b.create("add", {biased, b.constant(forty_two)}, {}, "plus42")->result();
    main.set_outputs({plus});
    return r1;
  }

  // Verification after every pass, and the C compiler's cache under the test temp folder.
  build::BuildOptions options() const {
    build::BuildOptions o;
    o.passes.verify_each = true;
    o.compiler.cache_dir =
        (std::filesystem::path(::testing::TempDir()) / "uma-c-run-cache").string();
    return o;
  }

  // The text `passes` print (after each of them) while `targets` build the module.
  std::string printed_after(std::vector<std::string> passes,
                            const std::vector<std::string>& targets = {"ultra_trail"}) {
    std::ostringstream out;
    build::BuildOptions o = options();
    o.passes.print_after = std::move(passes);
    o.passes.print_stream = &out;
    auto built = build::build(module, targets, o);
    EXPECT_TRUE(built.ok()) << built.error().message();
    return out.str();
  }

  Context ctx;
  Module module;
  Function& main;
  Builder b;
};

// The lines of `text` from the first that starts with `first` to the first after it that
// starts with `last`, both included; empty when there is none.
inline std::string lines_between(const std::string& text, const std::string& first,
                                 const std::string& last) {
  std::istringstream in(text);
  std::string line, result;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.rfind(first, 0) == 0) inside = true;
    if (!inside) continue;
    result += line + "\n";
    if (line.rfind(last, 0) == 0 && result.size() > line.size() + 1) return result;
  }
  return {};
}

}  // namespace uma::backends::ultra_trail::test
