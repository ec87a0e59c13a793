// A match as the composite function merge-composite makes of it: what the partitioner
// offloads, and what the checks a match passes first (the fit of its tiles, its cost) look at
// before there is a composite in the module.
#pragma once

#include <string_view>

#include "uma/graph/ir.h"
#include "uma/pattern/pattern.h"

namespace uma {

// Fills `composite`, a function without parameters or nodes, with the match: a parameter per
// input of the match (named as the input), a copy of its nodes (the constants it matched
// included) and the root's value as its output. With a name ("<target>.<pattern>"), also
// the attributes Composite = name and PartitionedFromPattern = the ops of the matched nodes
// but constants, each followed by '_' ("nn.conv2d_add_nn.relu_").
void copy_match(const Match& match, Function& composite, std::string_view name = {});

}  // namespace uma
