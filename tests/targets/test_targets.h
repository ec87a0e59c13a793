// The tests' partition targets, which no product code knows: linked into the test programs
// and loaded into the tool as a plugin (tests/plugins/targets_plugin.cc).
#pragma once

#include "uma/partition/partition.h"

namespace uma {

// test_conv (convolutions with optional bias and activation), test_dense (dense and matmul
// with optional bias and activation), test_elem (elementwise ops, one by one), test_int8
// (integer convolutions with their scales and zero points).
void register_test_targets(PartitionTargetRegistry& registry);

}  // namespace uma
