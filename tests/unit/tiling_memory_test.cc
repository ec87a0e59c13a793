// Memories and DMA engines a backend declares: the target attributes they make, and the
// errors of bad declarations and bad attribute values, each naming what is at fault.
#include <gtest/gtest.h>

#include "uma/tiling/memory.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"

namespace uma::tiling {
namespace {

class Npu : public Backend {
 public:
  Npu(std::vector<MemoryDecl> memories, std::optional<DmaDecl> dma) : Backend("npu") {
    for (MemoryDecl& memory : memories) add_memory(std::move(memory));
    if (dma) set_dma(*dma);
  }
};

MemoryDecl memory(std::string name, std::int64_t kb, std::vector<Role> holds,
                  std::int64_t alignment = 4, bool optional = false) {
  return {.name = std::move(name), .default_kb = kb, .alignment = alignment,
          .holds = std::move(holds), .optional = optional};
}

Status register_npu(Context& ctx, std::vector<MemoryDecl> memories,
                    std::optional<DmaDecl> dma = std::nullopt) {
  return register_backend(ctx, std::make_unique<Npu>(std::move(memories), std::move(dma)));
}

Expected<MemoryModel> model_of(const Context& ctx, std::string_view target) {
  UMA_TRY_ASSIGN(Target parsed, ctx.target_kinds().parse(target));
  return memory_model(ctx.backends().find("npu")->spec(), parsed);
}

TEST(TilingMemoryTest, DeclaredMemoriesAreTargetAttributes) {
  Context ctx;
  ASSERT_TRUE(register_npu(ctx, {memory("fmem", 32, {Role::kFeatures}),
                                 memory("wmem", 64, {Role::kWeights, Role::kBias})},
                           DmaDecl{.bytes_per_cycle = 16, .setup_cycles = 20, .dims = 1})
                  .ok());
  Expected<MemoryModel> model = model_of(ctx, "npu --fmem_kb=16");
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_EQ(model->memories.size(), 2u);
  EXPECT_EQ(model->memories[0].name, "fmem");
  EXPECT_EQ(model->memories[0].capacity, 16 * 1024);
  EXPECT_EQ(model->memories[1].capacity, 64 * 1024);
  EXPECT_EQ(model->holding(Role::kBias)->name, "wmem");
  EXPECT_EQ(model->holding(Role::kAccumulators), nullptr);
  EXPECT_EQ(model->dma.bytes_per_cycle, 16);
  EXPECT_EQ(model->dma.setup_cycles, 20);
  EXPECT_EQ(model->dma.dims, 1);
  model = model_of(ctx, "npu --dma_dims=2 --dma_bytes_per_cycle=4");
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_EQ(model->dma.dims, 2);
  EXPECT_EQ(model->dma.bytes_per_cycle, 4);
}

TEST(TilingMemoryTest, AnOptionalMemoryOfZeroIsNone) {
  Context ctx;
  ASSERT_TRUE(register_npu(ctx, {memory("sram", 0, {Role::kFeatures, Role::kWeights, Role::kBias},
                                        64, /*optional=*/true)})
                  .ok());
  Expected<MemoryModel> model = model_of(ctx, "npu");
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_TRUE(model->empty());
  model = model_of(ctx, "npu --sram_kb=64");
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_EQ(model->memories.size(), 1u);
}

TEST(TilingMemoryTest, BadAttributeValuesNameTheAttribute) {
  Context ctx;
  ASSERT_TRUE(register_npu(ctx, {memory("fmem", 32, {Role::kFeatures}),
                                 memory("big", 8, {Role::kWeights}, /*alignment=*/16384)})
                  .ok());
  auto error = [&](std::string_view target) {
    Expected<MemoryModel> model = model_of(ctx, target);
    return model.ok() ? std::string("ok") : model.error().message();
  };
  EXPECT_EQ(error("npu --fmem_kb=0"),
            "target 'npu --fmem_kb=0': attribute 'fmem_kb' must be in [1, 1048576], not 0");
  EXPECT_EQ(error("npu --fmem_kb=-3"),
            "target 'npu --fmem_kb=-3': attribute 'fmem_kb' must be in [1, 1048576], not -3");
  EXPECT_EQ(error("npu --fmem_kb=1048577"),
            "target 'npu --fmem_kb=1048577': attribute 'fmem_kb' must be in [1, 1048576], not "
            "1048577");
  EXPECT_EQ(error("npu"),
            "target 'npu': attribute 'big_kb': memory 'big' of 8192 bytes is smaller than its "
            "alignment of 16384 bytes");
  EXPECT_EQ(error("npu --big_kb=16"), "ok");
  EXPECT_EQ(error("npu --big_kb=16 --dma_dims=0"),
            "target 'npu --big_kb=16 --dma_dims=0': attribute 'dma_dims' must be in [1, 2], not 0");
  EXPECT_EQ(error("npu --big_kb=16 --dma_dims=3"),
            "target 'npu --big_kb=16 --dma_dims=3': attribute 'dma_dims' must be in [1, 2], not 3");
  EXPECT_EQ(error("npu --big_kb=16 --dma_bytes_per_cycle=0"),
            "target 'npu --big_kb=16 --dma_bytes_per_cycle=0': attribute 'dma_bytes_per_cycle' "
            "must be in [1, 1048576], not 0");
  EXPECT_EQ(error("npu --big_kb=16 --dma_setup_cycles=-1"),
            "target 'npu --big_kb=16 --dma_setup_cycles=-1': attribute 'dma_setup_cycles' must "
            "be in [0, 1048576], not -1");
}

TEST(TilingMemoryTest, BadDeclarationsAreRegistrationErrors) {
  auto error = [](std::vector<MemoryDecl> memories, std::optional<DmaDecl> dma = std::nullopt) {
    Context ctx;
    Status registered = register_npu(ctx, std::move(memories), std::move(dma));
    return registered.ok() ? std::string("ok") : registered.error().message();
  };
  EXPECT_EQ(error({memory("f mem", 32, {Role::kFeatures})}),
            "backend 'npu': memory 'f mem': its name must be a C identifier other than 'global'");
  EXPECT_EQ(error({memory("global", 32, {Role::kFeatures})}),
            "backend 'npu': memory 'global': its name must be a C identifier other than 'global'");
  EXPECT_EQ(error({memory("fmem", 32, {Role::kFeatures}), memory("fmem", 8, {Role::kWeights})}),
            "backend 'npu': memory 'fmem': it is declared twice");
  EXPECT_EQ(error({memory("fmem", 32, {Role::kFeatures}, 12)}),
            "backend 'npu': memory 'fmem': its alignment 12 is not a power of two");
  EXPECT_EQ(error({memory("fmem", 32, {})}),
            "backend 'npu': memory 'fmem': it holds nothing (features, weights, bias, ...)");
  EXPECT_EQ(error({memory("fmem", 0, {Role::kFeatures})}),
            "backend 'npu': memory 'fmem': its default capacity 0 KiB is not in [1, 1048576]");
  EXPECT_EQ(error({}, DmaDecl{}),
            "backend 'npu': it declares a DMA engine but no memory for it to fill");
  EXPECT_EQ(error({memory("fmem", 32, {Role::kFeatures})}, DmaDecl{.dims = 0}),
            "backend 'npu': the DMA engine's defaults must be a rate and dimensions of at "
            "least 1");
  EXPECT_EQ(error({memory("fmem", 32, {Role::kFeatures})}, DmaDecl{.start_function = "go"}),
            "backend 'npu': the DMA engine declares a start function without a wait function, "
            "or the reverse");
}

}  // namespace
}  // namespace uma::tiling
