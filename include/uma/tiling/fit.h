// Whether a layer a backend's pattern matched fits the backend's memories once tiled: what the
// partitioner asks before it offloads the layer, so that a layer whose smallest tile does not
// fit stays on the host with the numbers in the report.
#pragma once

#include "uma/pattern/pattern.h"
#include "uma/support/error.h"
#include "uma/tiling/memory.h"

namespace uma::tiling {

// Copies the match's nodes into a composite of their own, plans its tiles and lowers them
// with a stand-in for the backend's call: an error says why the layer cannot be tiled or
// what its smallest tile needs ("needs 35840 bytes of fmem at its smallest tile (1x1x1), has
// 8192").
Status check_fits(const Match& match, const MemoryModel& model);

}  // namespace uma::tiling
