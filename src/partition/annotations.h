// Reading what the partition passes record in the IR: which functions are host functions,
// and the uma.target / uma.region attributes of their nodes. Shared by the passes in
// src/partition/ so that they agree on which nodes can be part of a region.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "uma/graph/ir.h"
#include "uma/partition/partition.h"

namespace uma::annotations {

// A function the passes work on: neither a composite nor a function a target compiles.
bool is_host_function(const Function& function);

// The node's uma.target, or nullopt when it has none. Errors when it is not a non-empty
// string.
Expected<std::optional<std::string>> target_of(const Node& node);

// The node's uma.region, or nullopt when it has none. Errors when it is not an integer.
Expected<std::optional<std::int64_t>> region_of(const Node& node);

// Whether the node can be part of a region: it is neither a constant (constants are
// cloned into the functions that use them, or passed to them) nor a call to a function a
// target already compiles.
bool can_be_in_region(const Node& node);

// The uma.target of a node that can be part of a region; nullopt for every other node.
Expected<std::optional<std::string>> region_target_of(const Node& node);

// Removes uma.target and uma.region; whether the node had either.
bool erase_partition_attrs(Node& node);

}  // namespace uma::annotations
