// What the vanilla backend's tests share: a context with the backend registered, small
// convolution models, and building and running them against the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backends/register.h"
#include "backends/vanilla/vanilla.h"
#include "tests/unit/tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/interpreter.h"
#include "uma/tir/printer.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma::backends::vanilla::testing {

using Ints = std::vector<std::int64_t>;

using test::random_tensor;

// A convolution and its epilogue, as a model writes them.
struct ConvSpec {
  std::int64_t out_channels = 4;
  std::int64_t kernel = 3;
  std::int64_t kernel_w = 0;  // 0: `kernel`, a square kernel
  Ints strides = {1, 1};
  Ints padding = {0, 0, 0, 0};  // top, left, bottom, right
  std::int64_t groups = 1;
  Ints dilation = {1, 1};
  bool bias_operand = false;  // nn.conv2d's third operand
  bool bias_add = false;      // add(conv, constant of shape (1, O, 1, 1))
  std::string activation;     // "", "nn.relu" or "clip" (relu6)
};

// Builds models into @main with weights from a running seed.
class ModelBuilder {
 public:
  explicit ModelBuilder(Function& main) : b_(main) {}

  Value* conv(Value* x, const ConvSpec& spec) {
    const TensorType& data = x->tensor_type();
    std::vector<Value*> operands = {
        x, b_.constant(random_tensor({spec.out_channels, data.shape[1] / spec.groups, spec.kernel,
                                      spec.kernel_w > 0 ? spec.kernel_w : spec.kernel},
                                     seed_++, data.dtype))};
    if (spec.bias_operand)
      operands.push_back(b_.constant(random_tensor({spec.out_channels}, seed_++, data.dtype)));
    Value* y = b_.value("nn.conv2d", operands,
                        test::make_attrs({{"strides", spec.strides},
                                          {"padding", spec.padding},
                                          {"dilation", spec.dilation},
                                          {"groups", spec.groups}}));
    if (spec.bias_add)
      y = b_.value(
          "add",
          {y, b_.constant(random_tensor({1, spec.out_channels, 1, 1}, seed_++, data.dtype))});
    if (spec.activation == "nn.relu") y = b_.value("nn.relu", {y});
    if (spec.activation == "clip")
      y = b_.value("clip", {y}, test::make_attrs({{"a_min", 0.0}, {"a_max", 6.0}}));
    return y;
  }

  // MobileNetV2's shape in small: a stem (3x3, stride 2) and an inverted residual block
  // (1x1 expand, 3x3 depthwise, 1x1 project, residual add), biases added, relu6 between.
  // The depthwise convolution is grouped, which vanilla rejects.
  Value* mobilenet(Value* x) {
    Value* stem = conv(x, {.out_channels = 16,
                           .strides = {2, 2},
                           .padding = {1, 1, 1, 1},
                           .bias_add = true,
                           .activation = "clip"});
    Value* expand =
        conv(stem, {.out_channels = 48, .kernel = 1, .bias_add = true, .activation = "clip"});
    Value* depthwise = conv(expand, {.out_channels = 48,
                                     .padding = {1, 1, 1, 1},
                                     .groups = 48,
                                     .bias_add = true,
                                     .activation = "clip"});
    Value* project = conv(depthwise, {.out_channels = 16, .kernel = 1, .bias_add = true});
    return b_.value("nn.global_avg_pool", {b_.value("add", {project, stem})});
  }

  // ResNet-18's shape in small: a stem, a basic block (two 3x3 convolutions, residual add,
  // relu) and a downsampling one (stride 2, with a 1x1 stride-2 convolution on the skip),
  // biases as nn.conv2d's third operand as the ONNX importer writes them.
  Value* resnet(Value* x) {
    auto conv_bias = [&](Value* in, std::int64_t channels, std::int64_t kernel, std::int64_t stride,
                         bool relu) {
      std::int64_t pad = kernel / 2;
      return conv(in, {.out_channels = channels,
                       .kernel = kernel,
                       .strides = {stride, stride},
                       .padding = {pad, pad, pad, pad},
                       .bias_operand = true,
                       .activation = relu ? "nn.relu" : ""});
    };
    Value* stem = conv_bias(x, 16, 3, 1, true);
    Value* a = conv_bias(conv_bias(stem, 16, 3, 1, true), 16, 3, 1, false);
    Value* block1 = b_.value("nn.relu", {b_.value("add", {a, stem})});
    Value* c = conv_bias(conv_bias(block1, 32, 3, 2, true), 32, 3, 1, false);
    Value* skip = conv_bias(block1, 32, 1, 2, false);
    Value* block2 = b_.value("nn.relu", {b_.value("add", {c, skip})});
    return b_.value("nn.global_avg_pool", {block2});
  }

  Builder& builder() { return b_; }

 private:
  Builder b_;
  unsigned seed_ = 1;
};

class VanillaTest : public ::testing::Test {
 protected:
  VanillaTest() { EXPECT_TRUE(register_vanilla(ctx).ok()); }

  // A module whose @main `make` fills in (parameters, nodes, outputs).
  std::unique_ptr<Module> model(const std::function<void(Function&, ModelBuilder&)>& make) {
    auto module = std::make_unique<Module>(ctx);
    Function& main = *module->add_function("main").value();
    ModelBuilder builder(main);
    make(main, builder);
    return module;
  }

  // The same module, fresh (a build changes a module in place).
  std::unique_ptr<Module> copy(const Module& module) {
    auto parsed = parse_module(ctx, to_string(module));
    EXPECT_TRUE(parsed.ok()) << parsed.error().message();
    return parsed.ok() ? std::move(*parsed) : nullptr;
  }

  // The compiler's cache is the unit tests' (a fixed folder under the test temp folder), so
  // reruns compile nothing.
  static build::BuildOptions options() {
    build::BuildOptions o;
    o.compiler.cache_dir =
        (std::filesystem::path(::testing::TempDir()) / "uma-c-run-cache").string();
    o.passes.verify_each = true;
    return o;
  }

  // Builds for `targets` and runs on `inputs`.
  Expected<std::vector<TensorPtr>> build_and_run(Module& module,
                                                 const std::vector<std::string>& targets,
                                                 const std::vector<TensorPtr>& inputs,
                                                 build::HostBuild* built = nullptr,
                                                 build::BuildOptions o = options()) {
    UMA_TRY_ASSIGN(build::HostBuild result, build::build(module, targets, o));
    runtime::Executor executor(result.program);
    UMA_TRY_ASSIGN(std::vector<TensorPtr> outputs, executor.run(inputs));
    if (built != nullptr) *built = std::move(result);
    return outputs;
  }

  // The module built for `targets` against the interpreter and against the module built for
  // the host alone; returns the build for `targets`. With `ir`, the loop IR of the backend
  // functions as lowering makes them (lowered_ir, for targets[0]) is printed there.
  build::HostBuild check_against_host(const Module& module, const std::vector<std::string>& targets,
                                      std::ostream* ir = nullptr, std::uint64_t seed = 1) {
    std::vector<TensorPtr> inputs = random_inputs(*module.find_function("main"), seed);
    auto reference = interpret(module, inputs);
    EXPECT_TRUE(reference.ok()) << reference.error().message();
    build::HostBuild built;
    std::unique_ptr<Module> offloaded = copy(module), host = copy(module);
    if (ir != nullptr) *ir << lowered_ir(*copy(module), targets[0]);
    auto ours = build_and_run(*offloaded, targets, inputs, &built);
    EXPECT_TRUE(ours.ok()) << ours.error().message();
    auto loops = build_and_run(*host, {}, inputs);
    EXPECT_TRUE(loops.ok()) << loops.error().message();
    if (!reference.ok() || !ours.ok() || !loops.ok()) return built;
    EXPECT_EQ(ours->size(), reference->size());
    for (std::size_t i = 0; i < ours->size() && i < reference->size(); ++i) {
      TensorComparison vs_reference = compare_tensors(*(*ours)[i], *(*reference)[i], 1e-5, 1e-6);
      EXPECT_TRUE(vs_reference.ok())
          << "output " << i << " against the interpreter: " << vs_reference.mismatches
          << " mismatch(es), max abs error " << vs_reference.max_abs_error;
      TensorComparison vs_loops = compare_tensors(*(*ours)[i], *(*loops)[i], 1e-5, 1e-6);
      EXPECT_TRUE(vs_loops.ok()) << "output " << i
                                 << " against the host's loops: " << vs_loops.mismatches
                                 << " mismatch(es), max abs error " << vs_loops.max_abs_error;
    }
    return built;
  }

  // How many times `text` occurs in `s`.
  static std::size_t count(std::string_view s, std::string_view text) {
    std::size_t n = 0;
    for (std::size_t at = s.find(text); at != std::string_view::npos; at = s.find(text, at + 1))
      ++n;
    return n;
  }

  // How many generated functions run on `target`.
  static std::size_t functions_on(const build::HostBuild& built, std::string_view target) {
    std::size_t count = 0;
    for (const build::BuiltFunction& f : built.built) count += f.target == target;
    return count;
  }

  // The loop IR of the functions partitioned for `target` as lowering makes them, which
  // TIR_PHASE_0 sees: the build's steps up to lowering, on `module` (changed in place).
  std::string lowered_ir(Module& module, const std::string& target) {
    auto targets = build::parse_targets(ctx, {target});
    EXPECT_TRUE(targets.ok()) << targets.error().message();
    if (!targets.ok()) return "";
    Status partitioned = build::partition_for_targets(module, *targets, options());
    EXPECT_TRUE(partitioned.ok()) << partitioned.error().message();
    EXPECT_TRUE(build::fuse_host_functions(module).ok());
    const BackendSpec& spec = ctx.backends().find(kTargetName)->spec();
    build::TargetPipeline pipeline;
    pipeline.target = spec.target_name;
    pipeline.composite_lowerings = composite_lowerings(spec, targets->backends[0]);
    pipeline.max_immediate_elements = spec.max_immediate_elements;
    auto lowered = build::lower_calls(*module.find_function("main"), {pipeline});
    EXPECT_TRUE(lowered.ok()) << lowered.error().message();
    std::string ir;
    if (lowered.ok())
      for (const build::LoweredCall& call : *lowered)
        if (call.target) ir += tir::to_string(call.func);
    return ir;
  }

  Context ctx;
};

}  // namespace uma::backends::vanilla::testing
