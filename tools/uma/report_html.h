// report.html of `uma compile`: one self-contained page of the partition report: the
// partitioned graph as SVG (Graphviz's dot, one colour per target; a click on a node shows its
// row), the totals per target, the build's time per phase, the cycles of each layer an
// accelerator's performance model estimated (a bar split into compute and stall, over the DMA
// engine's busy time), the tiles of each layer an accelerator with memories runs (its plan, a
// bar per memory, its operands' moves), and a table of the nodes with their target and the
// other targets' reasons.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "uma/partition/report.h"
#include "uma/support/error.h"

namespace uma::tool {

// The page; `phases` are (phase, milliseconds). Runs `dot` (found on PATH) on `dot_file`,
// which must hold report.to_dot(); without Graphviz the page says so instead of the graph.
std::string report_html(const PartitionReport& report, const std::string& title,
                        const std::vector<std::pair<std::string, double>>& phases,
                        const std::string& dot_file);

}  // namespace uma::tool
