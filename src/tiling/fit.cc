// Whether a matched layer tiles into the memories (see uma/tiling/fit.h).
#include "uma/tiling/fit.h"

#include <fmt/format.h>

#include <unordered_map>

#include "uma/graph/builder.h"
#include "uma/partition/composite.h"
#include "uma/tiling/lower_tiled.h"
#include "uma/tiling/plan.h"
#include "uma/tiling/region.h"

namespace uma::tiling {

Status check_fits(const Match& match, const MemoryModel& model) {
  if (match.root == nullptr || match.nodes.empty()) return make_error("the match is empty");
  Module module(match.root->function()->module()->context(), "fit");
  UMA_TRY_ASSIGN(Function * composite, module.add_function("layer"));
  copy_match(match, *composite);

  UMA_TRY_ASSIGN(TileSpace space, TileSpace::derive(*composite));
  UMA_TRY_ASSIGN(TilePlan plan, plan_tiles(space, model));

  // Lower the tiles with a stand-in call, so that every kind of tile is known to be
  // expressible (its padding, its shapes) before the layer is offloaded.
  UMA_TRY_ASSIGN(Function * host, module.add_function("main"));
  std::vector<Value*> arguments;
  for (std::size_t i = 0; i < composite->num_params(); ++i)
    arguments.push_back(host->add_param(composite->param(i)->type()));
  Builder host_builder(*host);
  UMA_TRY_ASSIGN(Node * call, host_builder.try_call(composite, arguments));
  std::unordered_map<const Value*, tir::Buffer> buffers;
  for (const TileOperand& operand : space.operands()) {
    std::vector<tir::Expr> shape(operand.shape.begin(), operand.shape.end());
    buffers[operand.value] = tir::make_buffer(
        operand.value->name().empty() ? "v" : operand.value->name(), operand.dtype, shape);
  }
  lower::CompositeLowering stand_in = [](const lower::CompositeOperands&) {
    return Expected<lower::ExternCall>(lower::ExternCall{.name = "tile"});
  };
  UMA_TRY_ASSIGN(tir::Stmt lowered, lower_tiled(lower::CompositeOperands(*call, std::move(buffers)),
                                                stand_in, space, plan, model));
  (void)lowered;
  return Status::success();
}

}  // namespace uma::tiling
