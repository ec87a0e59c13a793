// What the npu_sim tests share: a context with the backend, small networks of every layer it
// takes, and a build run once with its simulation (estimates and counted events).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/register.h"
#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/partition/report.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/sim/simulation.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma::backends::npu_sim::test {

// A tensor of values in [-scale, scale) from `seed`.
inline TensorPtr random_tensor(Shape shape, unsigned seed, double scale = 1.0) {
  auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
  std::mt19937 rng(seed);
  for (std::int64_t i = 0; i < t->num_elements(); ++i)
    t->set(i, (static_cast<double>(rng() % 2000) / 1000.0 - 1.0) * scale);
  return t;
}

struct Conv {
  std::int64_t out_channels = 1, kernel = 1, stride = 1, pad = 0, groups = 1;
  std::int64_t pad_after = -1;  // -1: as `pad`
  bool bias_operand = false;
};

// Builds layers into a function, weights random (scaled by 1/sqrt(fan-in), so that values stay
// near 1 through the layers).
class Layers {
 public:
  explicit Layers(Function& f) : b_(f) {}

  Value* conv(Value* x, const Conv& c) {
    const Shape& in = x->tensor_type().shape;
    bool one_d = in.size() == 3;
    std::int64_t group_channels = in[1] / c.groups;
    Shape weight = {c.out_channels, group_channels, c.kernel};
    if (!one_d) weight.push_back(c.kernel);
    double fan_in = static_cast<double>(group_channels * c.kernel * (one_d ? 1 : c.kernel));
    std::vector<Value*> operands = {x, b_.constant(random_tensor(weight, seed_++, 1 / std::sqrt(fan_in)))};
    if (c.bias_operand) operands.push_back(b_.constant(random_tensor({c.out_channels}, seed_++)));
    AttrMap attrs;
    std::size_t rank = one_d ? 1 : 2;
    attrs.set("strides", std::vector<std::int64_t>(rank, c.stride));
    std::vector<std::int64_t> padding(2 * rank, c.pad);
    for (std::size_t i = rank; i < 2 * rank; ++i) padding[i] = c.pad_after < 0 ? c.pad : c.pad_after;
    attrs.set("padding", std::move(padding));
    attrs.set("dilation", std::vector<std::int64_t>(rank, 1));
    attrs.set("groups", c.groups);
    return b_.create(one_d ? "nn.conv1d" : "nn.conv2d", operands, std::move(attrs))->result();
  }
  // An add of a bias of shape [C, 1, ...] (one value per channel), as exporters write it.
  Value* add_bias(Value* x) {
    Shape shape(x->tensor_type().rank() - 1, 1);
    shape[0] = x->tensor_type().shape[1];
    return b_.value("add", {x, b_.constant(random_tensor(shape, seed_++))});
  }
  Value* relu(Value* x) { return b_.value("nn.relu", {x}); }
  Value* clip(Value* x, double lo, double hi) {
    AttrMap attrs;
    attrs.set("a_min", lo);
    attrs.set("a_max", hi);
    return b_.create("clip", {x}, std::move(attrs))->result();
  }
  Value* pool(std::string op, Value* x, std::int64_t size, std::int64_t stride, std::int64_t pad) {
    AttrMap attrs;
    attrs.set("pool_size", std::vector<std::int64_t>{size, size});
    attrs.set("strides", std::vector<std::int64_t>{stride, stride});
    attrs.set("padding", std::vector<std::int64_t>{pad, pad, pad, pad});
    return b_.create(op, {x}, std::move(attrs))->result();
  }
  Value* dense(Value* x, std::int64_t units, bool bias) {
    std::int64_t inputs = x->tensor_type().shape[1];
    std::vector<Value*> operands = {
        x, b_.constant(random_tensor({units, inputs}, seed_++, 1 / std::sqrt(double(inputs))))};
    if (bias) operands.push_back(b_.constant(random_tensor({units}, seed_++)));
    return b_.value("nn.dense", operands);
  }
  Value* matmul(Value* x, std::int64_t columns) {
    std::int64_t rows = x->tensor_type().shape[1];
    return b_.value("nn.matmul",
                    {x, b_.constant(random_tensor({rows, columns}, seed_++, 1 / std::sqrt(double(rows))))});
  }
  Value* reshape(Value* x, std::vector<std::int64_t> shape) {
    AttrMap attrs;
    attrs.set("newshape", std::move(shape));
    return b_.create("reshape", {x}, std::move(attrs))->result();
  }
  Builder& builder() { return b_; }

 private:
  Builder b_;
  unsigned seed_ = 1;
};

// A build for `target` run once, with its report and simulation.
struct SimRun {
  std::vector<TensorPtr> outputs;
  PartitionReport report;
  sim::Simulation simulation;
  build::HostBuild built;
};

class NpuSimTest : public ::testing::Test {
 public:
  NpuSimTest() {
    Status registered = register_npu_sim(ctx);
    EXPECT_TRUE(registered.ok()) << registered.error().message();
  }

  std::unique_ptr<Module> model(const std::function<void(Function&, Layers&)>& make) {
    auto module = std::make_unique<Module>(ctx);
    Function& main = *module->add_function("main").value();
    Layers layers(main);
    make(main, layers);
    return module;
  }

  // Every layer npu_sim takes: x [1, 3, 12, 12] → conv 3x3 (bias operand) → relu →
  // depthwise 3x3 stride 2 + added bias → clip(0, 6) → max pool 2x2 → conv 1x1 → average
  // pool 3x3 (padding 1) → global average pool → reshape → dense + bias → relu.
  std::unique_ptr<Module> small_cnn() {
    return model([](Function& main, Layers& l) {
      Value* x = main.add_param(TensorType{DType::f32, {1, 3, 12, 12}}, "x");
      Value* y = l.relu(l.conv(x, {.out_channels = 8, .kernel = 3, .pad = 1, .bias_operand = true}));
      y = l.clip(l.add_bias(l.conv(y, {.out_channels = 8, .kernel = 3, .stride = 2, .pad = 1,
                                       .groups = 8})),
                 0, 6);
      y = l.pool("nn.max_pool2d", y, 2, 2, 0);
      y = l.conv(y, {.out_channels = 24, .kernel = 1});
      y = l.pool("nn.avg_pool2d", y, 3, 1, 1);
      y = l.builder().value("nn.global_avg_pool", {y});
      y = l.relu(l.dense(l.reshape(y, {1, 24}), 10, true));
      main.set_outputs({y});
    });
  }

  // A 1-D layer and a matmul: x [2, 96, 40] → conv1d k5 pad 2 → relu; m [5, 300] · W [300, 7]:
  // a window of all the channels or a row of m is more than 1 KiB.
  std::unique_ptr<Module> one_d_and_matmul() {
    return model([](Function& main, Layers& l) {
      Value* x = main.add_param(TensorType{DType::f32, {2, 96, 40}}, "x");
      Value* m = main.add_param(TensorType{DType::f32, {5, 300}}, "m");
      main.set_outputs({l.relu(l.conv(x, {.out_channels = 12, .kernel = 5, .pad = 2})),
                        l.matmul(m, 7)});
    });
  }

  std::unique_ptr<Module> copy(const Module& module) {
    auto parsed = parse_module(ctx, to_string(module));
    EXPECT_TRUE(parsed.ok()) << parsed.error().message();
    return parsed.ok() ? std::move(*parsed) : nullptr;
  }

  static build::BuildOptions options() {
    build::BuildOptions o;
    o.compiler.cache_dir =
        (std::filesystem::path(::testing::TempDir()) / "uma-c-run-cache").string();
    o.passes.verify_each = true;
    return o;
  }

  // `module` (a copy) built for `target`, run once on `inputs`, and simulated. With `run`
  // false, built up to the C compiler: the estimates alone.
  SimRun simulate(const Module& module, const std::string& target,
                  const std::vector<TensorPtr>& inputs, bool run = true) {
    SimRun result;
    std::unique_ptr<Module> m = copy(module);
    result.report.begin(*m, {target});
    build::BuildOptions o = options();
    o.report = &result.report;
    o.compile = run;
    auto built = build::build(*m, {target}, o);
    EXPECT_TRUE(built.ok()) << target << ": " << built.error().message();
    if (!built.ok()) return result;
    std::unique_ptr<runtime::Executor> executor;
    if (run) {
      executor = std::make_unique<runtime::Executor>(built->program);
      auto outputs = executor->run(inputs);
      EXPECT_TRUE(outputs.ok()) << target << ": " << outputs.error().message();
      if (outputs.ok()) result.outputs = std::move(*outputs);
    }
    std::map<std::string, std::vector<std::string>> events = {
        {"npu_sim", ctx.backends().find("npu_sim")->spec().events}};
    auto simulation = sim::simulate(result.report, events, executor.get());
    EXPECT_TRUE(simulation.ok()) << simulation.error().message();
    if (simulation.ok()) result.simulation = std::move(*simulation);
    result.built = std::move(*built);
    return result;
  }

  Context ctx;
};

}  // namespace uma::backends::npu_sim::test
