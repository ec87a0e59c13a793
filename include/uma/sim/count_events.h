// The loop-IR pass that gives an accelerator's functional model somewhere to count what it
// does, per layer (Backend::count_events): its events are int64 counters in the function's
// load-time state, a row of them per tiled layer, so that executors sharing one library
// count apart and `uma sim` reads them after a run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "uma/runtime/executor.h"
#include "uma/support/error.h"
#include "uma/tir/pass.h"

namespace uma::sim {

// count-events (TIR_PHASE_0, after lower-dma): in a function with tiled layers (blocks
// "tiles", uma/tiling/lower_tiled.h), each extern call of one of `functions` inside the k-th
// such block (in statement order: the order the build lowered the layers and recorded their
// plans) gets a last argument, the address of row k of `num_events` int64 counters in the
// function's state (added, named "events"). A function without such calls is unchanged.
tir::FuncPass count_events_pass(std::size_t num_events, std::vector<std::string> functions);

// The counters of the `layer`-th tiled layer of graph function `function`, after `executor`
// ran: nullopt when the program has no call of it with a state. With several calls of the
// function (it cannot happen for a partitioned function, which is called once), the first.
std::optional<std::vector<std::int64_t>> counted_events(const runtime::Executor& executor,
                                                       const std::string& function,
                                                       std::size_t layer, std::size_t num_events);

}  // namespace uma::sim
