// reorder: permutes the loops of one perfect nest.
#include <algorithm>

#include "schedule_util.h"

namespace uma::tir {

namespace {

const std::string& name_of(const LoopRef& loop) { return loop.var.as<VarNode>()->name; }

}  // namespace

Status Schedule::reorder(const std::vector<LoopRef>& loops) {
  if (loops.empty()) return make_error("reorder: no loops given");
  std::vector<sched::Path> paths;
  std::unordered_set<const VarNode*> given;
  for (const LoopRef& loop : loops) {
    UMA_TRY_ASSIGN(sched::Path path, sched::find_loop(func_, loop, "reorder"));
    if (!given.insert(loop.var.as<VarNode>()).second)
      return make_error("reorder: loop '{}' is given twice", name_of(loop));
    paths.push_back(std::move(path));
  }

  // Every loop must be on the path to the innermost one.
  std::size_t deepest = 0;
  for (std::size_t i = 1; i < paths.size(); ++i)
    if (paths[i].size() > paths[deepest].size()) deepest = i;
  const sched::Path& chain = paths[deepest];
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    auto it = std::find_if(chain.begin(), chain.end(),
                           [&](const Stmt& s) { return s.same_as(paths[i].back()); });
    if (it == chain.end())
      return make_error("reorder: loops '{}' and '{}' are not nested one in the other",
                        name_of(loops[i]), name_of(loops[deepest]));
    positions.push_back(static_cast<std::size_t>(it - chain.begin()));
  }
  auto [top_it, bottom_it] = std::minmax_element(positions.begin(), positions.end());
  std::size_t top = *top_it, bottom = *bottom_it;
  const std::string& top_name = chain[top].as<ForNode>()->var.as<VarNode>()->name;
  const std::string& bottom_name = chain[bottom].as<ForNode>()->var.as<VarNode>()->name;
  for (std::size_t k = top; k <= bottom; ++k)
    if (chain[k].kind() != StmtKind::For)
      return make_error(
          "reorder: loops '{}' and '{}' are not perfectly nested: a {} lies between them", top_name,
          bottom_name, stmt_kind_name(chain[k].kind()));

  // The given loops take the given loops' places, in the order given.
  std::vector<const ForNode*> nest;
  for (std::size_t k = top; k <= bottom; ++k) nest.push_back(chain[k].as<ForNode>());
  std::vector<std::size_t> places = positions;
  std::sort(places.begin(), places.end());
  for (std::size_t i = 0; i < loops.size(); ++i)
    nest[places[i] - top] = paths[i].back().as<ForNode>();

  // A loop's bounds may use only the loops outside it.
  for (std::size_t p = 0; p < nest.size(); ++p) {
    for (std::size_t q = p + 1; q < nest.size(); ++q) {
      if (sched::uses(nest[p]->min, nest[q]->var) || sched::uses(nest[p]->extent, nest[q]->var))
        return make_error(
            "reorder: the bounds of loop '{}' use loop '{}', which would be inside it",
            nest[p]->var.as<VarNode>()->name, nest[q]->var.as<VarNode>()->name);
    }
  }

  Stmt body = chain[bottom].as<ForNode>()->body;
  for (std::size_t p = nest.size(); p-- > 0;)
    body = ForNode::make(nest[p]->var, nest[p]->min, nest[p]->extent, nest[p]->for_kind, body);
  sched::BlockRemap remap;
  commit(sched::replace(func_.body, chain[top].get(), body, remap), remap);
  return Status::success();
}

}  // namespace uma::tir
