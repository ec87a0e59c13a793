// Composite lowering through the backend interface, with a small backend declared here: a
// matched composite becomes one block holding one extern call (exact loop IR), composes with
// plain ops in its region and runs against the reference interpreter; a failing lowering
// names the backend, the composite and the reason; and the per-target limit on immediates
// (0: every constant a buffer).
#include <gtest/gtest.h>

#include "build_check.h"
#include "c_test_util.h"
#include "uma/graph/builder.h"
#include "uma/uma/context.h"
#include "uma/lower/lower.h"
#include "uma/tir/printer.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"

namespace uma::build {
namespace {

constexpr const char* kKappaKernel = R"(#include <stdint.h>
int32_t kappa_add_relu(const float* x, const float* bias, float* out, int64_t rows,
                       int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i) {
    float v = x[i] + bias[i % cols];
    out[i] = v > 0 ? v : 0;
  }
  return 0;
}
)";

// kappa: relu(x + bias) on rows of a 2-D tensor, one call of kappa_add_relu per composite;
// sigmoid runs on the target by itself (as loops in its functions).
class Kappa : public Backend {
 public:
  explicit Kappa(std::int64_t max_immediates) : Backend("kappa") {
    add_int_attr("max_rows", 64, "the most rows a call takes");
    add_pattern("add_relu", is_op("nn.relu", {is_op("add", {wildcard(), is_constant()})}));
    add_composite_lowering("add_relu",
                           [](const lower::CompositeOperands& operands,
                              const Target& target) -> Expected<lower::ExternCall> {
                             const Node& add = *operands.find("add");
                             const Shape& shape = add.result()->tensor_type().shape;
                             if (shape[0] > target.get_int("max_rows").value())
                               return make_error("{} rows, and the kernel takes at most {}",
                                                 shape[0], target.get_int("max_rows").value());
                             UMA_TRY_ASSIGN(tir::Expr x, operands.address(*add.operand(0)));
                             UMA_TRY_ASSIGN(tir::Expr bias, operands.address(*add.operand(1)));
                             UMA_TRY_ASSIGN(tir::Expr out,
                                            operands.address(*operands.composite().outputs()[0]));
                             return lower::ExternCall{.name = "kappa_add_relu",
                                                      .args = {x, bias, out, shape[0], shape[1]}};
                           });
    set_op_support([](const Node& node, const Target&) -> Status {
      if (node.is_op("sigmoid")) return Status::success();
      return make_error("not sigmoid");
    });
    set_max_immediate_elements(max_immediates);
    add_c_source("kappa_kernel", kKappaKernel);
    set_extern_status(true);
  }
};

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

class CompositeLoweringTest : public ::testing::Test {
 protected:
  explicit CompositeLoweringTest(std::int64_t max_immediates = 8)
      : module(ctx), main(*module.add_function("main").value()), b(main) {
    EXPECT_TRUE(register_backend(ctx, std::make_unique<Kappa>(max_immediates)).ok());
    // x → + bias → relu → sigmoid
    auto bias = std::make_shared<Tensor>(TensorType{DType::f32, {8}});
    for (std::int64_t i = 0; i < 8; ++i) bias->set(i, 0.25 * static_cast<double>(i) - 1);
    Value* x = main.add_param(tensor({3, 8}), "x");
    Value* sum = b.value("add", {x, b.constant(bias)});
    main.set_outputs({b.value("sigmoid", {b.value("nn.relu", {sum})})});
  }

  // The loop IR lowering makes of the function partitioned for `target`.
  Expected<std::string> lowered(const std::string& target) {
    UMA_TRY_ASSIGN(BuildTargets targets, parse_targets(ctx, {target}));
    UMA_TRY(partition_for_targets(module, targets, {}));
    const BackendSpec& spec = ctx.backends().find("kappa")->spec();
    lower::CompositeLowerings lowerings = composite_lowerings(spec, targets.backends[0]);
    for (const Function* function : module.functions()) {
      if (!function->attrs().has("Compiler")) continue;
      UMA_TRY_ASSIGN(tir::PrimFunc func,
                     lower::lower_function(
                         *function, {.composite_lowerings = &lowerings,
                                     .max_immediate_elements = spec.max_immediate_elements}));
      return tir::to_string(func);
    }
    return make_error("nothing was partitioned");
  }

  Context ctx;
  Module module;
  Function& main;
  Builder b;
};

// The bias has 8 elements: the host's limit writes it into the code, so lowering first
// writes it into a buffer for the call.
TEST_F(CompositeLoweringTest, ACompositeBecomesOneBlockWithOneCall) {
  Expected<std::string> ir = lowered("kappa");
  ASSERT_TRUE(ir.ok()) << ir.error().message();
  EXPECT_EQ(
      *ir,
      R"(func @module_kappa_main_0(%x: f32[3, 8]) -> (%out: f32[3, 8]) attributes {Compiler = "kappa", Primitive = 1, global_symbol = "module_kappa_main_0"} {
  allocate %constant: f32[8] {
    allocate %add_relu: f32[3, 8] {
      block constant(writes: %constant) {
        for (i0, 0, 8) {
          %constant[i0] = select(i0 == 0, -1.0f, select(i0 == 1, -0.75f, select(i0 == 2, -0.5f, select(i0 == 3, -0.25f, select(i0 == 4, 0.0f, select(i0 == 5, 0.25f, select(i0 == 6, 0.5f, 0.75f)))))))
        }
      }
      block "kappa.add_relu"(reads: %x, %constant; writes: %add_relu) {
        @extern kappa_add_relu<i32>(&%x[0, 0], &%constant[0], &%add_relu[0, 0], 3, 8)
      }
      block sigmoid(reads: %add_relu; writes: %out) {
        for (i0_1, 0, 3) {
          for (i1, 0, 8) {
            %out[i0_1, i1] = sigmoid(%add_relu[i0_1, i1])
          }
        }
      }
    }
  }
}
)");
}

TEST_F(CompositeLoweringTest, BuildsAndRunsLikeTheInterpreter) {
  BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  options.passes.verify_each = true;
  HostBuild built = testing_build::build_and_check(
      main, 5, [&] { return build(module, {"kappa"}, options); }, 1e-6, 1e-7);
  ASSERT_EQ(built.built.size(), 1u);
  EXPECT_EQ(built.built[0].target, "kappa");
  std::string code;
  for (const runtime::CSourceFile& file : built.sources) code += file.code;
  EXPECT_NE(code.find("/* block kappa.add_relu */"), std::string::npos) << code;
}

TEST_F(CompositeLoweringTest, AFailingLoweringNamesTheBackendTheCompositeAndWhy) {
  BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  Expected<HostBuild> built = build(module, {"kappa --max_rows=2"}, options);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().message(),
            "lowering @module_kappa_main_0: node #0 (call) in function @module_kappa_main_0: "
            "composite kappa.add_relu: backend 'kappa': 3 rows, and the kernel takes at most 2");
}

class NoImmediatesTest : public CompositeLoweringTest {
 protected:
  NoImmediatesTest() : CompositeLoweringTest(0) {}
};

// A backend with 0 gets every constant as a buffer: the bias is a parameter the host passes.
TEST_F(NoImmediatesTest, EveryConstantIsABuffer) {
  Expected<std::string> ir = lowered("kappa");
  ASSERT_TRUE(ir.ok()) << ir.error().message();
  EXPECT_EQ(
      *ir,
      R"(func @module_kappa_main_0(%x: f32[3, 8], %constant: f32[8]) -> (%out: f32[3, 8]) attributes {Compiler = "kappa", Primitive = 1, "constant.1" = tensor<8xf32>, constants = [1], global_symbol = "module_kappa_main_0"} {
  allocate %add_relu: f32[3, 8] {
    block "kappa.add_relu"(reads: %x, %constant; writes: %add_relu) {
      @extern kappa_add_relu<i32>(&%x[0, 0], &%constant[0], &%add_relu[0, 0], 3, 8)
    }
    block sigmoid(reads: %add_relu; writes: %out) {
      for (i0, 0, 3) {
        for (i1, 0, 8) {
          %out[i0, i1] = sigmoid(%add_relu[i0, i1])
        }
      }
    }
  }
}
)");
}

// The option on its own: the same function lowered with the host's limit and with 0.
TEST(MaxImmediateElementsTest, ZeroMakesEveryConstantABuffer) {
  Context ctx;
  Module module(ctx);
  Function& f = *module.add_function("f").value();
  Builder b(f);
  auto c = std::make_shared<Tensor>(TensorType{DType::f32, {2}});
  c->set(0, 1.5), c->set(1, -2);
  f.set_outputs({b.value("add", {f.add_param(tensor({2}), "x"), b.constant(c)})});
  Expected<tir::PrimFunc> host = lower::lower_function(f);
  Expected<tir::PrimFunc> none = lower::lower_function(f, {.max_immediate_elements = 0});
  ASSERT_TRUE(host.ok() && none.ok());
  EXPECT_TRUE(lower::bound_constants(*host).empty());
  ASSERT_EQ(lower::bound_constants(*none).size(), 1u);
  EXPECT_EQ(lower::bound_constants(*none)[0].first, 1u);
  EXPECT_EQ(tir::to_string(none->body), R"(block add(reads: %x, %constant; writes: %out) {
  for (i0, 0, 2) {
    %out[i0] = %x[i0] + %constant[i0]
  }
}
)");
}

// A backend whose lowerings do not fit its patterns is refused.
class Custom : public Backend {
 public:
  explicit Custom(std::string name) : Backend(std::move(name)) {}
  using Backend::add_composite_lowering;
  using Backend::add_pattern;
  using Backend::set_max_immediate_elements;
};

TEST(CompositeLoweringRegistrationTest, BadDeclarationsAreRefused) {
  Context ctx;
  auto error = [&](std::unique_ptr<Backend> backend) {
    Status status = register_backend(ctx, std::move(backend));
    return status.ok() ? std::string("ok") : status.error().message();
  };
  auto call = [](const lower::CompositeOperands&, const Target&) -> Expected<lower::ExternCall> {
    return lower::ExternCall{.name = "f"};
  };
  auto unknown = std::make_unique<Custom>("lambda");
  unknown->add_composite_lowering("relu", call);
  EXPECT_EQ(error(std::move(unknown)),
            "backend 'lambda': composite lowering for 'relu': no such pattern");
  auto twice = std::make_unique<Custom>("lambda");
  twice->add_pattern("relu", is_op("nn.relu"));
  twice->add_composite_lowering("relu", call);
  twice->add_composite_lowering("relu", call);
  EXPECT_EQ(error(std::move(twice)),
            "backend 'lambda': pattern 'relu' has two composite lowerings");
  auto empty = std::make_unique<Custom>("lambda");
  empty->add_pattern("relu", is_op("nn.relu"));
  empty->add_composite_lowering("relu", {});
  EXPECT_EQ(error(std::move(empty)),
            "backend 'lambda': composite lowering for 'relu' has no function");
  auto negative = std::make_unique<Custom>("lambda");
  negative->set_max_immediate_elements(-1);
  EXPECT_EQ(error(std::move(negative)),
            "backend 'lambda': the limit on immediates is negative (-1)");
  EXPECT_EQ(error(std::make_unique<Custom>("lambda")), "ok");
}

}  // namespace
}  // namespace uma::build
