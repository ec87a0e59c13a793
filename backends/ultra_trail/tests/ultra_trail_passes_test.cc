// ultra_trail's passes, each checked on the text it leaves: the layers' configuration
// (POST_PARTITIONING_0), the constants passed by pointer and the memory scopes
// (POST_PARTITIONING_1), the accelerator calls (TIR_PHASE_0) and the C they become; and what
// the pattern's predicate and the configuration refuse, with their reasons.
#include <gtest/gtest.h>

#include "backends/ultra_trail/passes.h"
#include "ultra_trail_test_util.h"
#include "uma/graph/printer.h"
#include "uma/partition/report.h"
#include "uma/uma/backend.h"

namespace uma::backends::ultra_trail::test {
namespace {

TEST_F(UltraTrailTest, ConfigHoldsEachLayersRegisters) {
  conv1d_model(/*batch=*/2);
  std::string printed = printed_after({"ultra-trail-config"});
  // Per layer: batch, dimension, channels in and their blocks, channels out and their
  // blocks, kernel, stride, padding left and right, length in and out, bias, relu.
  EXPECT_EQ(
      lines_between(printed, "func @module_ultra_trail_main_0", "}"),
      R"(func @module_ultra_trail_main_0(%x: tensor<2x3x16xf32>) -> (tensor<2x4x8xf32>) attributes {Compiler = "ultra_trail", Primitive = 1, global_symbol = "module_ultra_trail_main_0", ut.config = [2, 8, 3, 1, 8, 1, 3, 1, 1, 1, 16, 16, 1, 1, 2, 8, 8, 1, 4, 1, 5, 2, 2, 1, 16, 8, 1, 0]} {
  %0 = call @ultra_trail.conv1d_0(%x) : tensor<2x8x16xf32> loc("relu1")
  %1 = call @ultra_trail.conv1d_1(%0) : tensor<2x4x8xf32> loc("bias2")
  return %1
}
)");
}

TEST_F(UltraTrailTest, ScopesFollowTheParametersTheConstantsBecame) {
  conv1d_model();
  std::string printed = printed_after({"ultra-trail-buffer-scopes"});
  // The host passes the weights and biases, which the function loads by pointer.
  EXPECT_EQ(lines_between(printed, "func @main", "}"),
            R"(func @main(%x: tensor<1x3x16xf32>) -> (tensor<1x4x8xf32>) {
  %w1 = constant {value = @cst0} : tensor<8x3x3xf32>
  %b1 = constant {value = dense<[0.848, 0.487, -0.699, 0.544, -0.642, 0.979, 0.442, 0.515]> : tensor<8xf32>} : tensor<8xf32>
  %w2 = constant {value = @cst1} : tensor<4x8x5xf32>
  %b2 = constant {value = dense<[0.53, 0.694, -0.369, -0.227]> : tensor<4x1xf32>} : tensor<4x1xf32>
  %0 = call @module_ultra_trail_main_0(%x, %w1, %b1, %w2, %b2) : tensor<1x4x8xf32>
  %1 = call @fused_add_0(%0) : tensor<1x4x8xf32> loc("plus42")
  return %1
}
)");
  // Layer 0 reads %x, %w1, %b1; layer 1 reads layer 0's result, %w2, %b2.
  EXPECT_EQ(
      lines_between(printed, "func @module_ultra_trail_main_0", "}"),
      R"(func @module_ultra_trail_main_0(%x: tensor<1x3x16xf32>, %w1: tensor<8x3x3xf32>, %b1: tensor<8xf32>, %w2: tensor<4x8x5xf32>, %b2: tensor<4x1xf32>) -> (tensor<1x4x8xf32>) attributes {Compiler = "ultra_trail", Primitive = 1, global_symbol = "module_ultra_trail_main_0", ut.config = [1, 8, 3, 1, 8, 1, 3, 1, 1, 1, 16, 16, 1, 1, 1, 8, 8, 1, 4, 1, 5, 2, 2, 1, 16, 8, 1, 0], ut.operands = [0, 1, 2, -1, 3, 4], ut.outputs = [1], ut.scopes = ["fmem", "wmem", "bmem", "wmem", "bmem"]} {
  %0 = call @ultra_trail.conv1d_0(%x, %w1, %b1) : tensor<1x8x16xf32> loc("relu1")
  %1 = call @ultra_trail.conv1d_1(%0, %w2, %b2) : tensor<1x4x8xf32> loc("bias2")
  return %1
}
)");
}

TEST_F(UltraTrailTest, PhaseZeroLoadsRunsAndStoresEachLayer) {
  conv1d_model(/*batch=*/2);
  std::string printed = printed_after({"ultra-trail-codegen"});
  EXPECT_EQ(printed, R"(// -----// IR after ultra-trail-codegen //----- //
func @module_ultra_trail_main_0(%x: f32[2, 3, 16], %w1: f32[8, 3, 3], %b1: f32[8], %w2: f32[4, 8, 5], %b2: f32[4, 1]) -> (%out: f32[2, 4, 8], %ut_state: u8[100392] in "state") attributes {Compiler = "ultra_trail", Primitive = 1, global_symbol = "module_ultra_trail_main_0", "ut.config" = [2, 8, 3, 1, 8, 1, 3, 1, 1, 1, 16, 16, 1, 1, 2, 8, 8, 1, 4, 1, 5, 2, 2, 1, 16, 8, 1, 0], "ut.operands" = [0, 1, 2, -1, 3, 4], "ut.outputs" = [1], "ut.scopes" = ["fmem", "wmem", "bmem", "wmem", "bmem"]} {
  allocate %layer0: f32[2, 8, 16] {
    block conv1d_ncw(reads: %x, %w1, %b1; writes: %layer0) attributes {"ut.layer" = 0} {
      @extern ut_load_wmem<i32>(&%ut_state[0], &%w1[0, 0, 0], 288)
      @extern ut_load_bmem<i32>(&%ut_state[0], &%b1[0], 32)
      for (n, 0, 2) {
        @extern ut_load_fmem<i32>(&%ut_state[0], &%x[n, 0, 0], 192)
        @extern ut_run<i32>(&%ut_state[0], 8i32, 3i32, 1i32, 8i32, 1i32, 3i32, 1i32, 1i32, 1i32, 16i32, 16i32, 1i32, 1i32)
        @extern ut_store_fmem<i32>(&%ut_state[0], &%layer0[n, 0, 0], 512)
      }
    }
    block conv1d_ncw(reads: %layer0, %w2, %b2; writes: %out) attributes {"ut.layer" = 1} {
      @extern ut_load_wmem<i32>(&%ut_state[0], &%w2[0, 0, 0], 640)
      @extern ut_load_bmem<i32>(&%ut_state[0], &%b2[0, 0], 16)
      for (n_1, 0, 2) {
        @extern ut_load_fmem<i32>(&%ut_state[0], &%layer0[n_1, 0, 0], 512)
        @extern ut_run<i32>(&%ut_state[0], 8i32, 8i32, 1i32, 4i32, 1i32, 5i32, 2i32, 2i32, 1i32, 16i32, 8i32, 1i32, 0i32)
        @extern ut_store_fmem<i32>(&%ut_state[0], &%out[n_1, 0, 0], 128)
      }
    }
  }
} init {
  @extern ut_init<i32>(&%ut_state[0], 100392)
}
)");
}

TEST_F(UltraTrailTest, TheGeneratedCodeReturnsAFailedCallsStatus) {
  conv1d_model();
  auto built = build::build(module, {"ultra_trail"}, options());
  ASSERT_TRUE(built.ok()) << built.error().message();
  std::string code;
  for (const runtime::CSourceFile& file : built->sources)
    if (file.name == "ultra_trail_0") code = file.code;
  // The driver's prototypes, as kernels/ultra_trail.c defines them, and each call's status
  // kept when it is the first failure.
  EXPECT_NE(code.find("int32_t ut_init(void*, int64_t);\n"
                      "int32_t ut_load_bmem(void*, void*, int64_t);\n"
                      "int32_t ut_load_fmem(void*, void*, int64_t);\n"
                      "int32_t ut_load_wmem(void*, void*, int64_t);\n"
                      "int32_t ut_run(void*, int32_t, int32_t, int32_t, int32_t, int32_t, "
                      "int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);\n"
                      "int32_t ut_store_fmem(void*, void*, int64_t);\n"),
            std::string::npos)
      << code;
  EXPECT_NE(
      code.find(
          "    {\n"
          "      const int32_t uma_call_status = ut_run(&ut_state[0], 8, 8, 1, 4, 1, 5, 2, 2, "
          "1, 16, 8, 1, 0);\n"
          "      if (uma_call_status != 0 && uma_status == 0) uma_status = "
          "uma_call_status;\n"
          "    }\n"),
      std::string::npos)
      << code;
  EXPECT_NE(code.find("  return uma_status;\n"), std::string::npos) << code;
}

// Each layer the accelerator cannot run stays on the host, and the report says why.
TEST_F(UltraTrailTest, ThePredicateSaysWhyALayerStaysOnTheHost) {
  Value* x = main.add_param(tensor({1, 4, 32}), "x");
  auto conv = [&](Value* in, Shape weight, AttrMap attrs, const char* name) {
    return b
        .create("nn.conv1d", {in, b.constant(random_tensor(std::move(weight), 1))},
                std::move(attrs), name)
        ->result();
  };
  Value* grouped = conv(x, {4, 2, 3}, conv_attrs({1}, {1, 1}, 2), "grouped");
  Value* dilated = conv(grouped, {4, 4, 3}, conv_attrs({1}, {2, 2}, 1, 2), "dilated");
  Value* per_position = b.create("add",
                                 {conv(dilated, {4, 4, 1}, conv_attrs({1}, {0, 0}), "conv"),
                                  b.constant(random_tensor({32}, 2))},
                                 {}, "per_position")
                            ->result();
  // 512 bytes of features in and 2048 out: more than --fmem_kb=2.
  Value* wide = conv(per_position, {16, 4, 1}, conv_attrs({1}, {0, 0}), "wide");
  Value* half = b.value("cast", {wide}, [] {
    AttrMap attrs;
    attrs.set("dtype", std::string("f16"));
    return attrs;
  }());
  Value* w16 = b.constant(random_tensor({4, 16, 1}, 3, DType::f16));
  main.set_outputs({b.create("nn.conv1d", {half, w16}, conv_attrs({1}, {0, 0}), "half")->result()});
  PartitionReport report;
  report.begin(module, {"ultra_trail"});
  build::BuildOptions o = options();
  o.report = &report;
  ASSERT_TRUE(build::partition_for_targets(
                  module, build::parse_targets(ctx, {"ultra_trail --fmem_kb=2"}).value(), o)
                  .ok());
  EXPECT_EQ(report.to_table(),
            R"(id  name          op         target       composite           other targets
0   grouped       nn.conv1d  host         -                   ultra_trail: predicate rejected (groups is 2; ultra_trail runs groups 1)
1   dilated       nn.conv1d  host         -                   ultra_trail: predicate rejected (dilation is 2; ultra_trail runs dilation 1)
2   conv          nn.conv1d  ultra_trail  ultra_trail.conv1d
3   per_position  add        host         -                   ultra_trail: predicate rejected (the added bias has shape 32, not one value per output channel)
4   wide          nn.conv1d  host         -                   ultra_trail: predicate rejected (a sample's features take 2560 bytes (512 in, 2048 out), more than fmem's 2048)
5   -             cast       host         -                   ultra_trail: no pattern matched (ultra_trail.conv1d: at node #10 (cast) in function @main: expected nn.relu, found cast)
6   half          nn.conv1d  host         -                   ultra_trail: predicate rejected (the data is f16; ultra_trail runs f32)

target       nodes      regions  MACs          bytes
ultra_trail  1 (14.3%)  1        512 (7.4%)    576 (9.2%)
host         6 (85.7%)  -        6400 (92.6%)  5664 (90.8%)
total        7          1        6912          6240
)");
}

// A module partitioned for other attributes than the build's: the configuration names the
// layer that does not fit.
TEST_F(UltraTrailTest, ConfigNamesALayerThatDoesNotFit) {
  Value* x = main.add_param(tensor({1, 16, 32}), "x");
  Value* w = b.constant(random_tensor({16, 16, 3}, 1));  // 3072 bytes
  main.set_outputs({b.create("nn.conv1d", {x, w}, conv_attrs({1}, {1, 1}), "conv")->result()});
  ASSERT_TRUE(
      build::partition_for_targets(module, build::parse_targets(ctx, {"ultra_trail"}).value())
          .ok());
  Target small = ctx.target_kinds().parse("ultra_trail --wmem_kb=2").value();
  Expected<bool> configured = configure_layers(module, small);
  ASSERT_FALSE(configured.ok());
  EXPECT_EQ(configured.error().message(),
            "function @module_ultra_trail_main_0: node 'conv' (nn.conv1d): its weights take 3072 "
            "bytes, more than wmem's 2048");
}

}  // namespace
}  // namespace uma::backends::ultra_trail::test
