// Memories and DMA engines: declarations checked, and resolved against a target's attributes
// (see uma/tiling/memory.h).
#include "uma/tiling/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace uma::tiling {
namespace {

bool is_identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool power_of_two(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

std::string_view role_name(Role role) {
  switch (role) {
    case Role::kFeatures:
      return "features";
    case Role::kWeights:
      return "weights";
    case Role::kBias:
      return "bias";
    case Role::kAccumulators:
      return "accumulators";
    case Role::kOutputs:
      return "outputs";
  }
  return "?";
}

MemoryModel MemoryModel::without(Role role) const {
  MemoryModel result = *this;
  for (Memory& memory : result.memories) std::erase(memory.holds, role);
  return result;
}

bool Memory::holds_role(Role role) const {
  return std::find(holds.begin(), holds.end(), role) != holds.end();
}

std::int64_t Memory::footprint(std::int64_t bytes) const {
  return (bytes + alignment - 1) / alignment * alignment;
}

const Memory* MemoryModel::holding(Role role) const {
  for (const Memory& memory : memories)
    if (memory.holds_role(role)) return &memory;
  return nullptr;
}

const Memory* MemoryModel::find(std::string_view name) const {
  for (const Memory& memory : memories)
    if (memory.name == name) return &memory;
  return nullptr;
}

Status check_decls(const std::vector<MemoryDecl>& memories, const std::optional<DmaDecl>& dma) {
  std::set<std::string, std::less<>> names;
  for (const MemoryDecl& memory : memories) {
    auto fail = [&](std::string message) {
      return Error(fmt::format("memory '{}': {}", memory.name, message));
    };
    if (!is_identifier(memory.name) || memory.name == "global")
      return fail("its name must be a C identifier other than 'global'");
    if (!names.insert(memory.name).second) return fail("it is declared twice");
    if (!power_of_two(memory.alignment))
      return fail(fmt::format("its alignment {} is not a power of two", memory.alignment));
    if (memory.holds.empty()) return fail("it holds nothing (features, weights, bias, ...)");
    std::int64_t least = memory.optional ? 0 : 1;
    if (memory.default_kb < least || memory.default_kb > kMaxMemoryKb)
      return fail(fmt::format("its default capacity {} KiB is not in [{}, {}]", memory.default_kb,
                              least, kMaxMemoryKb));
  }
  if (dma && (dma->bytes_per_cycle < 1 || dma->setup_cycles < 0 || dma->dims < 1))
    return make_error("the DMA engine's defaults must be a rate and dimensions of at least 1");
  if (dma && dma->start_function.empty() != dma->wait_function.empty())
    return make_error(
        "the DMA engine declares a start function without a wait function, or "
        "the reverse");
  return Status::success();
}

std::vector<TargetAttrDef> memory_attrs(const std::vector<MemoryDecl>& memories,
                                        const std::optional<DmaDecl>& dma) {
  std::vector<TargetAttrDef> attrs;
  for (const MemoryDecl& memory : memories) {
    std::string help =
        memory.help.empty() ? fmt::format("{} memory, KiB", memory.name) : memory.help;
    if (memory.optional) help += " (0: none)";
    attrs.push_back({memory.capacity_attr(), memory.default_kb, std::move(help)});
  }
  if (!memories.empty()) {
    DmaDecl defaults = dma.value_or(DmaDecl{});
    attrs.push_back(
        {"dma_bytes_per_cycle", defaults.bytes_per_cycle, "bytes the DMA engine moves per cycle"});
    attrs.push_back({"dma_setup_cycles", defaults.setup_cycles,
                     "cycles the DMA engine takes to start a transfer"});
    attrs.push_back({"dma_dims", defaults.dims,
                     "strided dimensions one DMA transfer covers (1: contiguous rows)"});
  }
  return attrs;
}

Expected<MemoryModel> resolve(const std::vector<MemoryDecl>& memories,
                              const std::optional<DmaDecl>& dma, const Target& target) {
  MemoryModel model;
  for (const MemoryDecl& decl : memories) {
    std::string attr = decl.capacity_attr();
    UMA_TRY_ASSIGN(std::int64_t kb, target.get_int(attr));
    std::int64_t least = decl.optional ? 0 : 1;
    if (kb < least || kb > kMaxMemoryKb)
      return make_error("target '{}': attribute '{}' must be in [{}, {}], not {}", target.str(),
                        attr, least, kMaxMemoryKb, kb);
    if (kb == 0) continue;
    if (kb * 1024 < decl.alignment)
      return make_error(
          "target '{}': attribute '{}': memory '{}' of {} bytes is smaller than its alignment "
          "of {} bytes",
          target.str(), attr, decl.name, kb * 1024, decl.alignment);
    model.memories.push_back({decl.name, kb * 1024, decl.alignment, decl.holds});
  }
  if (memories.empty()) return model;
  DmaDecl defaults = dma.value_or(DmaDecl{});
  model.dma.overlaps_compute = defaults.overlaps_compute;
  model.dma.start_function = defaults.start_function;
  model.dma.wait_function = defaults.wait_function;
  struct Field {
    std::string_view attr;
    std::int64_t least, most;
    std::int64_t* value;
  };
  for (const Field& field : {Field{"dma_bytes_per_cycle", 1, 1 << 20, &model.dma.bytes_per_cycle},
                             Field{"dma_setup_cycles", 0, 1 << 20, &model.dma.setup_cycles},
                             Field{"dma_dims", 1, 2, &model.dma.dims}}) {
    UMA_TRY_ASSIGN(*field.value, target.get_int(field.attr));
    if (*field.value < field.least || *field.value > field.most)
      return make_error("target '{}': attribute '{}' must be in [{}, {}], not {}", target.str(),
                        field.attr, field.least, field.most, *field.value);
  }
  return model;
}

}  // namespace uma::tiling
