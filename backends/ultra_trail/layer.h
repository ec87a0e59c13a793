// UltraTrail's layers: how the backend finds a conv1d layer in the graph, the configuration
// the accelerator runs it with, and whether it fits the accelerator's memories. Shared by
// the pattern's predicate, the graph passes and the phase-0 pass.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/support/error.h"
#include "uma/uma/target.h"

namespace uma::backends::ultra_trail {

inline constexpr std::string_view kTargetName = "ultra_trail";
inline constexpr std::string_view kComposite = "ultra_trail.conv1d";

// Function attributes of the functions partitioned for ultra_trail (the PrimFunc carries
// them too: lowering copies a function's attributes):
// - "ut.config" (ints, by ultra-trail-config): kConfigFields per layer, the function's
//   layers in node order;
// - "ut.scopes" (strings, by ultra-trail-buffer-scopes): the memory each parameter is
//   loaded into, "wmem", "bmem" or "fmem", in parameter order;
// - "ut.operands" (ints, by ultra-trail-buffer-scopes): per layer, the parameter index of
//   its features, weights and bias (kOperandFields each). Features that an earlier layer j
//   computes are -(j + 1); a layer without a bias has -1;
// - "ut.outputs" (ints, by ultra-trail-buffer-scopes): per function output, the layer that
//   computes it.
inline constexpr std::string_view kConfigAttr = "ut.config";
inline constexpr std::string_view kScopesAttr = "ut.scopes";
inline constexpr std::string_view kOperandsAttr = "ut.operands";
inline constexpr std::string_view kOutputsAttr = "ut.outputs";

// One layer's configuration. From kDimension on, the fields are ut_run's arguments in
// order (kernels/ultra_trail.c): what the accelerator's configuration registers hold.
enum ConfigField : std::size_t {
  kBatch,      // samples: the generated code runs the layer once per sample
  kDimension,  // the array's side: channels go through it in blocks of this many
  kChannelsIn,
  kBlocksIn,  // ceil(channels in / dimension)
  kChannelsOut,
  kBlocksOut,  // ceil(channels out / dimension)
  kKernel,
  kStride,
  kPadLeft,
  kPadRight,
  kLengthIn,  // samples per channel, before padding
  kLengthOut,
  kBias,  // 1: a bias per output channel (from bias memory) is added
  kRelu,  // 1: relu after the bias
  kConfigFields
};
using LayerConfig = std::array<std::int64_t, kConfigFields>;

enum OperandField : std::size_t { kFeatures, kWeights, kBiasOperand, kOperandFields };

// The nodes of one layer: conv1d → optional bias → optional relu.
struct LayerNodes {
  const Node* conv = nullptr;   // nn.conv1d
  const Value* bias = nullptr;  // conv1d's third operand, or the added constant
  const Node* add = nullptr;    // the bias add, when the bias is not conv1d's operand
  const Node* relu = nullptr;   // nn.relu
  // The layer's result: the last of conv, add, relu.
  const Node* last() const { return relu ? relu : add ? add : conv; }
};

// The layer among `nodes` (a match's, or a composite's); an error when there is no conv1d.
Expected<LayerNodes> find_layer(std::span<const Node* const> nodes);
// The nodes of a composite function's layer.
Expected<LayerNodes> find_layer(const Function& composite);

// The functions partitioned for ultra_trail, in module order.
std::vector<Function*> partitioned_functions(const Module& module);
// The layer a node of such a function computes: the node must call a composite
// "ultra_trail.conv1d"; an error naming the node otherwise.
Expected<LayerNodes> layer_of_call(const Node& node);

// What the target says of the hardware: the array's side and the memories' sizes in bytes.
struct Hardware {
  std::int64_t dimension = 0;
  std::int64_t wmem = 0, fmem = 0, bmem = 0;
};
// Errors name the attribute when it is not positive or too large.
Expected<Hardware> hardware(const Target& target);

// Whether the accelerator runs the layer, and the reason it does not: f32 only, one group,
// no dilation, a bias with one value per output channel, and weights, bias and one
// sample's input and output features each fitting their memory.
Status check_layer(const LayerNodes& layer, const Hardware& hw);

// The configuration of a layer check_layer accepts.
LayerConfig layer_config(const LayerNodes& layer, const Hardware& hw);

// The byte counts the generated code loads and stores for a layer: its weights, its bias
// (0 without), one sample's input and output features.
struct LayerBytes {
  std::int64_t weights = 0, bias = 0, input = 0, output = 0;
};
LayerBytes layer_bytes(const LayerConfig& config);

// The layers' configurations as "ut.config" holds them; an error when its length is not a
// multiple of kConfigFields.
Expected<std::vector<LayerConfig>> unpack_config(const std::vector<std::int64_t>& packed);

}  // namespace uma::backends::ultra_trail
