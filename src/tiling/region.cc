// The regions an output tile needs, from the layer's own loop nests (see uma/tiling/region.h).
#include "uma/tiling/region.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "../tir/schedule/schedule_util.h"  // the region bounder the schedule primitives use
#include "uma/lower/lower.h"
#include "uma/tir/functor.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tiling {
namespace {

using namespace tir;

// The blocks of a lowered function in program order (lowering nests none).
std::vector<const BlockNode*> blocks_of(const Stmt& body) {
  std::vector<const BlockNode*> blocks;
  pre_order_visit(body, [&](const ExprNode*, const StmtNode* s) {
    if (s != nullptr && s->kind == StmtKind::Block)
      blocks.push_back(static_cast<const BlockNode*>(s));
  });
  return blocks;
}

// `body` with the loops of `ranges`' variables iterating over [first, last] instead.
class NarrowLoops : public Mutator {
 public:
  explicit NarrowLoops(const std::unordered_map<const VarNode*, std::pair<Expr, Expr>>& ranges)
      : ranges_(ranges) {}
  using Mutator::mutate;

 protected:
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    Stmt body = mutate(op.body);
    auto it = ranges_.find(op.var.as<VarNode>());
    if (it == ranges_.end())
      return body.same_as(op.body) ? self
                                   : ForNode::make(op.var, op.min, op.extent, op.for_kind, body);
    const auto& [first, last] = it->second;
    return ForNode::make(op.var, first, simplify(last - first + 1), op.for_kind, body);
  }

 private:
  const std::unordered_map<const VarNode*, std::pair<Expr, Expr>>& ranges_;
};

// The role of a constant: the weights when the layer's first op (its anchor: the convolution
// of conv → bias → relu) reads it as its second operand, else a bias.
Role constant_role(const Function& composite, const Value& constant) {
  for (const auto& node : composite.nodes()) {
    if (node->is_op("constant")) continue;
    return node->num_operands() > 1 && node->operand(1) == &constant ? Role::kWeights : Role::kBias;
  }
  return Role::kBias;
}

}  // namespace

std::optional<std::int64_t> evaluate(
    const Expr& e, const std::unordered_map<const VarNode*, std::int64_t>& values) {
  auto both = [&](const Expr& a, const Expr& b, auto f) -> std::optional<std::int64_t> {
    auto x = evaluate(a, values), y = evaluate(b, values);
    if (!x || !y) return std::nullopt;
    return f(*x, *y);
  };
  auto floor_div = [](std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  };
  switch (e.kind()) {
    case ExprKind::IntImm:
      return e.as<IntImmNode>()->value;
    case ExprKind::Var: {
      auto it = values.find(e.as<VarNode>());
      if (it == values.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::Cast:
      return e.type().dtype == DType::f32 || e.type().dtype == DType::f64
                 ? std::nullopt
                 : evaluate(e.as<CastNode>()->value, values);
    case ExprKind::Add:
      return both(e.as<AddNode>()->a, e.as<AddNode>()->b, [](auto a, auto b) { return a + b; });
    case ExprKind::Sub:
      return both(e.as<SubNode>()->a, e.as<SubNode>()->b, [](auto a, auto b) { return a - b; });
    case ExprKind::Mul:
      return both(e.as<MulNode>()->a, e.as<MulNode>()->b, [](auto a, auto b) { return a * b; });
    case ExprKind::Div:
      return both(e.as<DivNode>()->a, e.as<DivNode>()->b,
                  [&](auto a, auto b) -> std::int64_t { return b == 0 ? 0 : floor_div(a, b); });
    case ExprKind::Mod:
      return both(e.as<ModNode>()->a, e.as<ModNode>()->b, [&](auto a, auto b) -> std::int64_t {
        return b == 0 ? 0 : a - floor_div(a, b) * b;
      });
    case ExprKind::Min:
      return both(e.as<MinNode>()->a, e.as<MinNode>()->b,
                  [](auto a, auto b) { return std::min(a, b); });
    case ExprKind::Max:
      return both(e.as<MaxNode>()->a, e.as<MaxNode>()->b,
                  [](auto a, auto b) { return std::max(a, b); });
    default:
      return std::nullopt;
  }
}

Expected<TileSpace> TileSpace::derive(const Function& composite) {
  if (composite.outputs().size() != 1 || !composite.outputs()[0]->type().is_tensor())
    return make_error("the layer has {} outputs; a tiled layer has one tensor",
                      composite.outputs().size());
  lower::LowerOptions options;
  options.max_immediate_elements = 0;  // every constant a buffer, so that it has a region
  UMA_TRY_ASSIGN(PrimFunc func, lower::lower_function(composite, options));

  TileSpace space;
  const TensorType& out_type = composite.outputs()[0]->tensor_type();
  space.output_shape_ = out_type.shape;
  space.extents_ = out_type.shape;
  for (std::size_t a = 0; a < space.output_shape_.size(); ++a) {
    space.lo_.push_back(VarNode::make(fmt::format("lo{}", a)));
    space.hi_.push_back(VarNode::make(fmt::format("hi{}", a)));
  }

  // The operands, each with the buffer lowering gave it.
  std::vector<Buffer> buffers;
  auto add = [&](const Value& value, Role role, bool output, Buffer buffer) {
    TileOperand operand;
    operand.value = &value;
    operand.role = role;
    operand.output = output;
    operand.dtype = value.tensor_type().dtype;
    operand.shape = value.tensor_type().shape;
    space.operands_.push_back(std::move(operand));
    buffers.push_back(std::move(buffer));
  };
  for (std::size_t i = 0; i < composite.num_params(); ++i) {
    if (!composite.param(i)->type().is_tensor())
      return make_error("parameter {} is a tuple, which a tiled layer does not take", i);
    add(*composite.param(i), Role::kFeatures, false, func.params[i]);
  }
  for (const auto& [index, tensor] : lower::bound_constants(func)) {
    const Value* constant = nullptr;
    for (const auto& node : composite.nodes())
      if (node->is_op("constant") && node->attrs().get_tensor("value") == tensor)
        constant = node->result();
    if (constant == nullptr) return make_error("a constant of the layer has no node");
    add(*constant, constant_role(composite, *constant), false, func.params[index]);
  }
  add(*composite.outputs()[0], Role::kFeatures, true, func.params[func.num_inputs]);

  // The reductions a tile may cut into chunks: those of the layer's one reduction block
  // (its partial sums then reach the output through pointwise blocks alone), each an axis
  // after the output's, unless a region would follow it and another axis at once (a
  // convolution's taps, which move the window) or the layer reduces twice.
  std::vector<const BlockNode*> blocks = blocks_of(func.body);
  std::vector<std::pair<const VarNode*, std::int64_t>> reductions;  // loop variable, extent
  std::size_t reducing = 0;
  for (const BlockNode* block : blocks) {
    bool reduces = false;
    for (const IterVar& iv : block->iter_vars) {
      if (iv.kind != IterKind::kReduce) continue;
      reduces = true;
      std::optional<std::int64_t> extent = as_const_int(iv.extent);
      if (const auto* var = iv.binding.as<VarNode>(); var != nullptr && extent && *extent > 1)
        reductions.push_back({var, *extent});
    }
    reducing += reduces ? 1 : 0;
  }
  if (reducing != 1) reductions.clear();

  while (true) {
    TileSpace attempt = space;
    std::vector<tir::Var> lo = attempt.lo_, hi = attempt.hi_;
    std::unordered_map<const VarNode*, std::pair<Expr, Expr>> cut;
    for (const auto& [var, extent] : reductions) {
      std::size_t axis = lo.size();
      lo.push_back(VarNode::make(fmt::format("lo{}", axis)));
      hi.push_back(VarNode::make(fmt::format("hi{}", axis)));
      attempt.extents_.push_back(extent);
      cut.emplace(var, std::pair<Expr, Expr>{lo.back(), hi.back()});
    }
    attempt.lo_ = lo;
    attempt.hi_ = hi;
    std::optional<std::size_t> drop;  // a reduction axis a region mixes with another
    UMA_TRY(attempt.find_regions(blocks, buffers, cut, drop));
    if (!drop) return attempt;
    reductions.erase(reductions.begin() + static_cast<std::ptrdiff_t>(*drop - space.num_axes()));
  }
}

Status TileSpace::find_regions(const std::vector<const BlockNode*>& blocks,
                               const std::vector<Buffer>& buffers,
                               const std::unordered_map<const VarNode*, std::pair<Expr, Expr>>& cut,
                               std::optional<std::size_t>& drop) {
  // What each buffer must hold, backwards from the output tile.
  struct Need {
    std::vector<Expr> first, last;
  };
  std::unordered_map<const BufferNode*, Need> need;
  std::size_t rank = output_shape_.size();
  need[buffers.back().get()] = {std::vector<Expr>(lo_.begin(), lo_.begin() + rank),
                                std::vector<Expr>(hi_.begin(), hi_.begin() + rank)};
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    const BlockNode& block = **it;
    std::unordered_map<const VarNode*, std::pair<Expr, Expr>> ranges = cut;
    std::unordered_set<const BufferNode*> written;
    pre_order_visit(block.body, [&](const ExprNode*, const StmtNode* s) {
      if (s == nullptr || s->kind != StmtKind::Store) return;
      const auto& store = *static_cast<const StoreNode*>(s);
      auto wanted = need.find(store.buffer.get());
      if (wanted == need.end()) return;
      written.insert(store.buffer.get());
      for (std::size_t d = 0; d < store.indices.size(); ++d)
        if (const auto* var = store.indices[d].as<VarNode>())
          ranges.emplace(var, std::pair{wanted->second.first[d], wanted->second.last[d]});
    });
    if (written.empty()) continue;
    Stmt narrowed = NarrowLoops(ranges).mutate(block.body);
    for (const Buffer& read : sched::accessed_buffers(narrowed, /*loads=*/true, /*stores=*/false)) {
      if (written.contains(read.get())) continue;
      Expected<sched::Region> region =
          sched::accessed_region(narrowed, read, /*stores=*/false, "tile", "tile");
      if (!region) return make_error("block '{}': {}", block.name, region.error().message());
      auto [entry, fresh] = need.try_emplace(read.get(), Need{region->lo, region->hi});
      if (fresh) continue;
      for (std::size_t d = 0; d < region->lo.size(); ++d) {
        entry->second.first[d] = min(entry->second.first[d], region->lo[d]);
        entry->second.last[d] = max(entry->second.last[d], region->hi[d]);
      }
    }
  }

  // Each dimension's region, the one axis it follows, and the divisors of its bounds.
  step_.assign(num_axes(), 1);
  std::unordered_map<const VarNode*, std::size_t> axis_of;
  for (std::size_t a = 0; a < num_axes(); ++a) {
    axis_of[lo_[a].as<VarNode>()] = a;
    axis_of[hi_[a].as<VarNode>()] = a;
  }
  for (std::size_t i = 0; i < operands_.size(); ++i) {
    TileOperand& operand = operands_[i];
    auto found = need.find(buffers[i].get());
    for (std::size_t d = 0; d < operand.shape.size(); ++d) {
      Expr first = found != need.end() ? simplify(found->second.first[d]) : Expr(std::int64_t{0});
      Expr last =
          found != need.end() ? simplify(found->second.last[d]) : Expr(operand.shape[d] - 1);
      std::optional<std::size_t> axis;
      std::optional<std::string> conflict;
      std::int64_t divisor = 1;
      for (const Expr& bound : {first, last})
        pre_order_visit(EvaluateNode::make(bound), [&](const ExprNode* e, const StmtNode*) {
          if (e != nullptr && e->kind == ExprKind::Div)
            if (std::optional<std::int64_t> by = as_const_int(static_cast<const DivNode*>(e)->b);
                by && *by > 1)
              divisor = std::lcm(divisor, *by);
          if (e == nullptr || e->kind != ExprKind::Var) return;
          auto a = axis_of.find(static_cast<const VarNode*>(e));
          if (a == axis_of.end()) {
            conflict = fmt::format("uses the variable '{}'", static_cast<const VarNode*>(e)->name);
          } else if (axis && *axis != a->second) {
            if (std::max(*axis, a->second) >= rank) drop = std::max(*axis, a->second);
            conflict = fmt::format("follows output axes {} and {}", *axis, a->second);
          } else {
            axis = a->second;
          }
        });
      if (drop) return Status::success();
      if (conflict)
        return make_error("the region of %{}'s dimension {} ([{}, {}]) {}; it cannot be tiled",
                          operand.value->name(), d, to_string(first), to_string(last), *conflict);
      if (axis) step_[*axis] = std::lcm(step_[*axis], divisor);
      operand.axis.push_back(axis);
      operand.first.push_back(first);
      operand.last.push_back(last);
    }
  }
  return Status::success();
}

Span TileSpace::region(std::size_t operand, std::size_t dim, std::int64_t lo,
                       std::int64_t hi) const {
  const TileOperand& op = operands_[operand];
  std::unordered_map<const VarNode*, std::int64_t> values;
  if (op.axis[dim]) {
    values[lo_[*op.axis[dim]].as<VarNode>()] = lo;
    values[hi_[*op.axis[dim]].as<VarNode>()] = hi;
  }
  std::optional<std::int64_t> first = evaluate(op.first[dim], values);
  std::optional<std::int64_t> last = evaluate(op.last[dim], values);
  // derive() checked the expressions use only these variables, so they evaluate; a
  // failure is a bug.
  UMA_CHECK(first && last, "cannot evaluate the region of %{}", op.value->name());
  return {*first, *last};
}

Place TileSpace::place(std::size_t operand, std::size_t dim, std::int64_t lo,
                       std::int64_t hi) const {
  Span span = region(operand, dim, lo, hi);
  Place p;
  p.start = std::max<std::int64_t>(span.first, 0);
  std::int64_t last = std::min(span.last, operands_[operand].shape[dim] - 1);
  p.extent = std::max<std::int64_t>(last - p.start + 1, 0);
  p.pad_before = p.start - span.first;
  p.pad_after = span.last - last;
  return p;
}

Place TileSpace::tile_place(std::size_t operand, std::size_t dim, std::int64_t size,
                            std::int64_t p) const {
  const std::optional<std::size_t>& axis = operands_[operand].axis[dim];
  if (!axis) return place(operand, dim, 0, 0);
  std::int64_t lo = p * size;
  return place(operand, dim, lo, std::min(extents_[*axis], lo + size) - 1);
}

std::vector<TileSpace::Follower> TileSpace::followers(std::size_t axis) const {
  std::vector<Follower> found;
  for (std::size_t i = 0; i < operands_.size(); ++i)
    for (std::size_t d = 0; d < operands_[i].axis.size(); ++d)
      if (operands_[i].axis[d] == axis) found.push_back({i, d});
  return found;
}

std::vector<TileSpace::Run> TileSpace::runs(std::size_t axis, std::int64_t size) const {
  std::vector<Follower> fs = followers(axis);
  std::int64_t count = (extents_[axis] + size - 1) / size;
  std::vector<Run> runs;
  for (std::int64_t p = 0; p < count; ++p) {
    std::vector<Place> places;
    for (const Follower& f : fs) places.push_back(tile_place(f.operand, f.dim, size, p));
    if (!runs.empty()) {
      Run& run = runs.back();
      bool alike = true;
      std::vector<std::int64_t> step(places.size());
      for (std::size_t f = 0; f < places.size() && alike; ++f) {
        const Place& first = run.first[f];
        alike = places[f].extent == first.extent && places[f].pad_before == first.pad_before &&
                places[f].pad_after == first.pad_after;
        step[f] = run.count == 1 ? places[f].start - first.start : run.step[f];
        alike &= places[f].start == first.start + step[f] * (p - run.begin);
      }
      if (alike) {
        run.step = std::move(step);
        ++run.count;
        continue;
      }
    }
    runs.push_back({p, 1, std::move(places), std::vector<std::int64_t>(fs.size(), 0)});
  }
  return runs;
}

}  // namespace uma::tiling
