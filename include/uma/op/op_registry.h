// The op registry: each op's name, attribute schema, shape inference and reference kernel.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/tensor.h"
#include "uma/graph/type.h"
#include "uma/support/error.h"

namespace uma {

struct AttrDef {
  std::string name;
  AttrKind kind;
  // Absent: the attribute is required.
  std::optional<Attribute> default_value;
};

// Result types from operand types and (schema-checked, defaults filled) attributes.
// Errors name the attribute or operand at fault; the caller adds the node's location.
using InferFn = std::function<Expected<std::vector<Type>>(const std::vector<Type>& inputs,
                                                          const AttrMap& attrs)>;

// The reference kernel: results from operand tensors. Readable, obviously correct.
using KernelFn = std::function<Expected<std::vector<TensorPtr>>(
    const std::vector<TensorPtr>& inputs, const AttrMap& attrs,
    const std::vector<Type>& result_types)>;

// How fuse-ops groups an op with its neighbours (TVM's op patterns, reduced to what fusion
// needs). Every op that is not opaque has a default compute rule (src/lower/), so fuse-ops
// only groups what lowering can compile.
enum class FusionCategory : std::uint8_t {
  kOpaque,       // grouped with nothing: builtin ops
  kElementwise,  // each output element from the same element of each input (after
                 // broadcasting): add, nn.relu, cast, inference batch norm
  kInjective,    // only remaps indices: reshape, transpose, nn.pad, strided_slice
  kAnchor,       // computes a reduction: convolutions, dense, pools, sum, softmax, norms
};

struct OpDef {
  static constexpr int kVariadic = -1;

  std::string name;
  int min_inputs = 0;
  int max_inputs = 0;  // kVariadic: no upper bound
  std::vector<AttrDef> attrs;
  InferFn infer;
  KernelFn kernel;
  // What fuse-ops and elementwise patterns look for.
  FusionCategory fusion = FusionCategory::kOpaque;

  const AttrDef* find_attr(std::string_view attr_name) const;
  // Checks attribute names and kinds against the schema and fills in defaults.
  // An int given for a float attribute is widened; nothing else is converted.
  Status normalize_attrs(AttrMap& attrs) const;
  // The operand count fits min_inputs..max_inputs.
  Status check_arity(std::size_t count) const;
};

// Ops by name. Registration is explicit (see register_*_ops); lookups may come from
// several threads at once.
class OpRegistry {
 public:
  // Errors when an op of that name exists already.
  Status add(OpDef def);
  const OpDef* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  mutable std::shared_mutex mutex_;
  std::deque<OpDef> defs_;  // deque: pointers stay valid as ops are added
  std::map<std::string, const OpDef*, std::less<>> by_name_;
};

// The ops of each family (src/op/<family>.cc).
void register_builtin_ops(OpRegistry& registry);      // constant, tuple, get_item, call
void register_elementwise_ops(OpRegistry& registry);  // add, floor_mod, nn.relu, sin, round, ...
void register_activation_ops(OpRegistry& registry);   // nn.leaky_relu, nn.gelu, clip, ...
void register_logical_ops(OpRegistry& registry);      // equal, less, isnan, where, ...
void register_nn_ops(OpRegistry& registry);           // nn.dense, nn.matmul
void register_conv_ops(OpRegistry& registry);         // nn.conv1d/2d/3d and their transposes
void register_pool_ops(OpRegistry& registry);         // nn.max_pool*, nn.avg_pool*, global pools
void register_norm_ops(OpRegistry& registry);       // nn.batch_norm, nn.layer_norm, nn.softmax, ...
void register_resize_ops(OpRegistry& registry);     // image.resize
void register_transform_ops(OpRegistry& registry);  // split, reshape, transpose, squeeze, ...
void register_index_ops(OpRegistry& registry);      // strided_slice, take
void register_broadcast_ops(OpRegistry& registry);  // broadcast_to, tile, nn.pad
void register_shape_ops(OpRegistry& registry);      // shape_of, full, arange
void register_reduce_ops(OpRegistry& registry);     // sum, prod, ..., argmax, argmin, cumsum

// All ops uma knows.
void register_all_ops(OpRegistry& registry);

}  // namespace uma
