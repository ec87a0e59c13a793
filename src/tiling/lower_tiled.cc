// A layer's call lowered tile by tile into the accelerator's memories (see
// uma/tiling/lower_tiled.h).
#include "uma/tiling/lower_tiled.h"

#include <fmt/format.h>

#include <map>

#include "uma/graph/builder.h"
#include "uma/graph/tensor.h"
#include "uma/tir/dma.h"
#include "uma/tir/simplify.h"

namespace uma::tiling {
namespace {

using namespace tir;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

using Follower = TileSpace::Follower;
using Run = TileSpace::Run;

class TiledLowering {
 public:
  TiledLowering(const lower::CompositeOperands& operands, const lower::CompositeLowering& lowering,
                const TileSpace& space, const TilePlan& plan, const MemoryModel& model)
      : operands_(operands), lowering_(lowering), space_(space), plan_(plan), model_(model) {}

  Expected<Stmt> run() {
    const auto& ops = space_.operands();
    std::size_t axes = space_.num_axes();
    followers_.resize(axes);
    fixed_.resize(ops.size());
    innermost_.assign(ops.size(), -1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      fixed_[i].resize(ops[i].shape.size());
      for (std::size_t d = 0; d < ops[i].shape.size(); ++d) {
        if (ops[i].axis[d]) {
          for (std::size_t k = 0; k < plan_.order.size(); ++k)
            if (plan_.order[k] == *ops[i].axis[d])
              innermost_[i] = std::max(innermost_[i], static_cast<std::ptrdiff_t>(k));
        } else {
          fixed_[i][d] = space_.place(i, d, 0, 0);
        }
      }
      host_.push_back(operands_.buffer(*ops[i].value));
      if (host_.back() == nullptr)
        return make_error("%{} has no buffer in the call", ops[i].value->name());
      // Each buffer a whole number of the memory's alignment, so that a second slot
      // (pipeline-dma) starts aligned as the first.
      const OperandPlan& op = plan_.operands[i];
      std::int64_t elem = static_cast<std::int64_t>(dtype_size(ops[i].dtype));
      std::int64_t elements = ceil_div(model_.find(op.memory)->footprint(op.tile_bytes), elem);
      scratch_.push_back(make_buffer(fmt::format("{}_{}", op.name, op.memory), ops[i].dtype,
                                     {std::max<std::int64_t>(elements, 1)}, op.memory));
    }
    Shape sizes = plan_.sizes();
    for (std::size_t a = 0; a < axes; ++a) {
      followers_[a] = space_.followers(a);
      runs_.push_back(space_.runs(a, sizes[a]));
    }
    chosen_.assign(axes, nullptr);
    vars_.assign(axes, Expr(std::int64_t{0}));
    for (std::size_t a = 0; a < axes; ++a) chosen_[a] = &runs_[a].front();

    std::vector<Stmt> body;
    for (std::size_t i = 0; i + 1 < ops.size(); ++i)
      if (innermost_[i] < 0) body.push_back(move(i, /*in=*/true));
    UMA_TRY_ASSIGN(Stmt nest, level(0));
    body.push_back(nest);
    if (innermost_.back() < 0) body.push_back(move(ops.size() - 1, /*in=*/false));
    Stmt stmt = SeqNode::make(std::move(body));
    for (auto it = scratch_.rbegin(); it != scratch_.rend(); ++it)
      stmt = AllocateNode::make(*it, stmt);
    AttrMap attrs;
    attrs.set("tile.shape", std::vector<std::int64_t>(plan_.tile.begin(), plan_.tile.end()));
    std::vector<std::int64_t> order(plan_.order.begin(), plan_.order.end());
    attrs.set("tile.order", order);
    attrs.set(std::string(kTileDoubleAttr), static_cast<std::int64_t>(plan_.double_buffered));
    std::vector<Buffer> reads(host_.begin(), host_.end() - 1);
    return BlockNode::make(std::string(kTilesBlock), reads, {host_.back()}, stmt, std::move(attrs));
  }

 private:
  // The index among axis a's followers of operand i's dimension d (which follows a).
  std::size_t follower(std::size_t a, std::size_t i, std::size_t d) const {
    const std::vector<Follower>& fs = followers_[a];
    std::size_t f = 0;
    while (fs[f].operand != i || fs[f].dim != d) ++f;
    return f;
  }

  // Operand i's region in the current tile: per dimension, its start and extent.
  std::pair<std::vector<Expr>, Shape> region(std::size_t i) const {
    const TileOperand& operand = space_.operands()[i];
    std::vector<Expr> start;
    Shape extent;
    for (std::size_t d = 0; d < operand.shape.size(); ++d) {
      if (!operand.axis[d]) {
        start.push_back(Expr(fixed_[i][d].start));
        extent.push_back(fixed_[i][d].extent);
        continue;
      }
      std::size_t a = *operand.axis[d];
      std::size_t f = follower(a, i, d);
      const Run& run = *chosen_[a];
      start.push_back(simplify(Expr(run.first[f].start) + vars_[a] * Expr(run.step[f])));
      extent.push_back(run.first[f].extent);
    }
    return {start, extent};
  }

  // The block moving operand i's region of the current tile into its memory (or, for the
  // output, out of it), waited for at once.
  Stmt move(std::size_t i, bool in) const {
    auto [start, extent] = region(i);
    const Buffer& host = host_[i];
    const Buffer& scratch = scratch_[i];
    std::size_t rank = extent.size();
    std::int64_t elem = static_cast<std::int64_t>(dtype_size(scratch->dtype));
    // Strides of the host array and of the dense tile, in elements.
    std::vector<std::int64_t> host_stride(rank, 1), tile_stride(rank, 1);
    const Shape& shape = space_.operands()[i].shape;
    for (std::size_t d = rank; d-- > 1;) {
      host_stride[d - 1] = host_stride[d] * shape[d];
      tile_stride[d - 1] = tile_stride[d] * extent[d];
    }
    std::vector<Stmt> body;
    bool empty = std::any_of(extent.begin(), extent.end(), [](std::int64_t e) { return e == 0; });
    if (!empty) {
      // The contiguous run covers dimensions k.. (those the region spans whole, plus one);
      // a 2-D engine strides over dimension k - 1 too; loops cover the rest.
      std::size_t k = rank == 0 ? 0 : rank - 1;
      while (k > 0 && extent[k] == shape[k]) --k;
      std::int64_t row = elem;
      for (std::size_t d = k; d < rank; ++d) row *= extent[d];
      std::int64_t rows = 1, host_step = 0, tile_step = 0;
      std::size_t loops = k;
      if (model_.dma.dims >= 2 && k > 0) {
        loops = k - 1;
        rows = extent[k - 1];
        host_step = host_stride[k - 1] * elem;
        tile_step = tile_stride[k - 1] * elem;
      }
      std::vector<Var> vars;
      std::vector<Expr> host_index = start;
      Expr tile_offset = Expr(std::int64_t{0});
      // A loop per dimension of more than one row (its variable ax<d>).
      std::vector<std::size_t> looped;
      for (std::size_t d = 0; d < loops; ++d) {
        if (extent[d] == 1) continue;
        looped.push_back(d);
        vars.push_back(VarNode::make(fmt::format("ax{}", d)));
        host_index[d] = simplify(host_index[d] + vars.back());
        tile_offset = tile_offset + vars.back() * Expr(tile_stride[d]);
      }
      Expr host_address = AddressNode::make(host, host_index);
      Expr tile_address = AddressNode::make(scratch, {simplify(tile_offset)});
      Expr queue = Expr(static_cast<std::int64_t>(i));
      Stmt transfer = in ? dma_start(queue, tile_address, host_address, Expr(row), Expr(rows),
                                     Expr(tile_step), Expr(host_step))
                         : dma_start(queue, host_address, tile_address, Expr(row), Expr(rows),
                                     Expr(host_step), Expr(tile_step));
      for (std::size_t k = looped.size(); k-- > 0;)
        transfer = ForNode::make(vars[k], Expr(std::int64_t{0}), Expr(extent[looped[k]]),
                                 ForKind::kSerial, transfer);
      body.push_back(transfer);
      body.push_back(dma_wait(queue));
    }
    AttrMap attrs;
    attrs.set(std::string(kDmaQueueAttr), static_cast<std::int64_t>(i));
    attrs.set(std::string(kDmaOperandAttr), space_.operands()[i].value->name());
    return BlockNode::make(std::string(in ? kDmaInBlock : kDmaOutBlock), {in ? host : scratch},
                           {in ? scratch : host}, SeqNode::make(std::move(body)), std::move(attrs));
  }

  // The loops from the k-th tiled axis in: each operand moves in at the start of the loop of
  // the innermost axis it follows, and the output out at its end (after the chunks of a cut
  // reduction, which are innermost).
  Expected<Stmt> level(std::size_t k) {
    if (k == plan_.order.size()) return compute_block();
    std::size_t a = plan_.order[k];
    std::vector<Stmt> parts;
    for (std::size_t r = 0; r < runs_[a].size(); ++r) {
      const Run& run = runs_[a][r];
      chosen_[a] = &run;
      Var var =
          VarNode::make(runs_[a].size() == 1 ? fmt::format("t{}", a) : fmt::format("t{}_{}", a, r));
      vars_[a] = run.count == 1 ? Expr(std::int64_t{0}) : var;
      std::vector<Stmt> body;
      for (std::size_t i = 0; i + 1 < space_.operands().size(); ++i)
        if (innermost_[i] == static_cast<std::ptrdiff_t>(k)) body.push_back(move(i, /*in=*/true));
      UMA_TRY_ASSIGN(Stmt inner, level(k + 1));
      body.push_back(inner);
      std::size_t out = space_.operands().size() - 1;
      if (innermost_[out] == static_cast<std::ptrdiff_t>(k)) body.push_back(move(out, false));
      Stmt stmt = SeqNode::make(std::move(body));
      if (run.count > 1)
        stmt = ForNode::make(var, Expr(std::int64_t{0}), Expr(run.count), ForKind::kSerial, stmt);
      parts.push_back(stmt);
    }
    return SeqNode::make(std::move(parts));
  }

  // Operand i's shape in the current tile, and what the clamp cut on each dimension.
  std::vector<Place> places(std::size_t i) const {
    const TileOperand& operand = space_.operands()[i];
    std::vector<Place> out;
    for (std::size_t d = 0; d < operand.shape.size(); ++d) {
      if (!operand.axis[d]) {
        out.push_back(fixed_[i][d]);
        continue;
      }
      std::size_t a = *operand.axis[d];
      out.push_back(chosen_[a]->first[follower(a, i, d)]);
    }
    return out;
  }

  // The backend's call for the current kind of tile, made on a copy of the composite with the
  // tile's shapes (once per kind: every tile of the same runs shares it).
  Expected<Stmt> compute_block() {
    auto cached = computes_.find(chosen_);
    if (cached != computes_.end()) return cached->second;
    const Function& composite = operands_.composite();
    const auto& ops = space_.operands();
    Module module(composite.module()->context(), "tile");
    UMA_TRY_ASSIGN(Function * tile, module.add_function(composite.name()));
    for (const auto& [name, value] : composite.attrs()) tile->mutable_attrs().set(name, value);
    std::unordered_map<const Value*, Value*> map;
    std::unordered_map<const Value*, Buffer> buffers;
    std::vector<std::vector<Place>> place(ops.size());
    std::vector<std::vector<bool>> padded(ops.size());
    std::unordered_map<const Value*, std::size_t> index;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      index[ops[i].value] = i;
      place[i] = places(i);
      for (const Place& p : place[i]) padded[i].push_back(p.pad_before != 0 || p.pad_after != 0);
    }
    auto shape_of = [&](std::size_t i) {
      Shape shape;
      for (const Place& p : place[i]) shape.push_back(p.extent);
      return shape;
    };
    for (std::size_t i = 0; i < composite.num_params(); ++i) {
      Value* param = tile->add_param(TensorType{ops[i].dtype, shape_of(i)}, ops[i].value->name());
      map[composite.param(i)] = param;
      buffers[param] = scratch_[i];
    }
    Builder builder(*tile);
    for (const auto& node : composite.nodes()) {
      if (node->is_op("constant")) {
        std::size_t i = index.at(node->result());
        Value* constant =
            builder.constant(Tensor::without_data(TensorType{ops[i].dtype, shape_of(i)}));
        constant->set_name(node->result()->name());
        map[node->result()] = constant;
        buffers[constant] = scratch_[i];
        continue;
      }
      std::vector<Value*> operands;
      for (const Value* operand : node->operands()) operands.push_back(map.at(operand));
      AttrMap attrs = node->attrs();
      // A padded window (convolution, pooling) over a parameter: the tile's padding is what
      // the clamp cut of its region, on the spatial dimensions 2, 3, .... At the end, no more
      // than the layer's: a ceil-mode pool's last window reaches past its padding, which
      // ceil mode, not padding, accounts for (an average counts padding, not that).
      if (attrs.has("padding") && node->num_operands() > 0 && node->operand(0)->is_param()) {
        std::size_t i = index.at(node->operand(0));
        std::size_t rank = place[i].size() - 2;
        const std::vector<std::int64_t>& layer_padding = node->attrs().get_ints("padding");
        std::vector<std::int64_t> padding(2 * rank);
        for (std::size_t s = 0; s < rank; ++s) {
          padding[s] = place[i][2 + s].pad_before;
          padding[rank + s] = std::min(place[i][2 + s].pad_after, layer_padding[rank + s]);
          padded[i][2 + s] = false;
        }
        attrs.set("padding", padding);
      }
      // A grouped convolution over a parameter: the tile holds whole groups (its output
      // channels are cut at multiples of a group's, TileSpace::step), as many as its share of
      // the input channels.
      if (attrs.has("groups") && attrs.get_int("groups") > 1 && node->num_operands() > 0 &&
          node->operand(0)->is_param()) {
        std::size_t i = index.at(node->operand(0));
        std::int64_t group_channels = ops[i].shape[1] / attrs.get_int("groups");
        attrs.set("groups", place[i][1].extent / group_channels);
      }
      Expected<Node*> made = builder.try_create(node->op_name(), operands, attrs, node->name());
      if (!made)
        return made.error().with_context(
            fmt::format("the tile {} of {}", plan_.summary(), node->location()));
      for (std::size_t r = 0; r < node->num_results(); ++r) {
        (*made)->result(r)->set_name(node->result(r)->name());
        map[node->result(r)] = (*made)->result(r);
      }
    }
    for (std::size_t i = 0; i + 1 < ops.size(); ++i)
      for (std::size_t d = 0; d < padded[i].size(); ++d)
        if (padded[i][d])
          return make_error(
              "a tile's region of %{} is cut on dimension {}, which no padding of the layer "
              "covers",
              ops[i].value->name(), d);
    Value* out = map.at(composite.outputs()[0]);
    tile->set_outputs({out});
    if (out->tensor_type().shape != shape_of(ops.size() - 1))
      return make_error("a tile's copy of the layer computes {}, not the tile {}",
                        to_string(out->tensor_type().shape), to_string(shape_of(ops.size() - 1)));
    buffers[out] = scratch_.back();

    UMA_TRY_ASSIGN(Function * host, module.add_function("main"));
    std::vector<Value*> arguments;
    for (std::size_t i = 0; i < tile->num_params(); ++i)
      arguments.push_back(host->add_param(tile->param(i)->type(), tile->param(i)->name()));
    Builder host_builder(*host);
    UMA_TRY_ASSIGN(Node * call, host_builder.try_call(tile, arguments));
    lower::CompositeOperands operands(*call, std::move(buffers));
    // The chunk of a cut reduction this call sums: the first starts the partial sums, the
    // last ends them with the layer's epilogue.
    Expr first = IntImmNode::make(DataType::scalar(DType::boolean), 1), last = first;
    for (std::size_t a = space_.output_shape().size(); a < space_.num_axes(); ++a) {
      Expr at = simplify(Expr(chosen_[a]->begin) + vars_[a]);
      std::int64_t chunks = ceil_div(space_.extents()[a], plan_.sizes()[a]);
      first = first && at == Expr(std::int64_t{0});
      last = last && at == Expr(chunks - 1);
    }
    auto flag = [](const Expr& condition) {
      return simplify(CastNode::make(DataType::scalar(DType::i32), condition));
    };
    operands.set_chunk(flag(first), flag(last));
    UMA_TRY_ASSIGN(lower::ExternCall extern_call, lowering_(operands));
    if (extern_call.workspace)
      return make_error("{} asks for a workspace, which a tiled call does not get",
                        extern_call.name);
    Stmt body = EvaluateNode::make(CallNode::make(extern_call.type, extern_call.name,
                                                  std::move(extern_call.args),
                                                  CallNode::CallKind::kExtern));
    std::vector<Buffer> reads(scratch_.begin(), scratch_.end() - 1);
    // The block iterates over the tiles of the innermost tiled axis, bound to its loop (none
    // for a run of one tile): what pipeline-dma pipelines.
    std::vector<IterVar> iter_vars;
    if (!plan_.order.empty()) {
      std::size_t inner = plan_.order.back();
      iter_vars.push_back({"tile", Expr(chosen_[inner]->count), IterKind::kSpatial, vars_[inner]});
    }
    Stmt block = BlockNode::make(std::string(kComputeBlock), reads, {scratch_.back()}, body, {},
                                 std::move(iter_vars));
    computes_.emplace(chosen_, block);
    return block;
  }

  const lower::CompositeOperands& operands_;
  const lower::CompositeLowering& lowering_;
  const TileSpace& space_;
  const TilePlan& plan_;
  const MemoryModel& model_;
  std::vector<std::vector<Follower>> followers_;  // per axis
  std::vector<std::vector<Place>> fixed_;         // per operand, dimensions that follow no axis
  std::vector<std::ptrdiff_t> innermost_;         // per operand: its move's level, -1 outside
  std::vector<Buffer> host_, scratch_;            // per operand
  std::vector<std::vector<Run>> runs_;            // per axis
  std::vector<const Run*> chosen_;                // per axis: the run being emitted
  std::vector<Expr> vars_;                        // per axis: the tile index in the run
  std::map<std::vector<const Run*>, Stmt> computes_;
};

}  // namespace

Expected<Stmt> lower_tiled(const lower::CompositeOperands& operands,
                           const lower::CompositeLowering& lowering, const TileSpace& space,
                           const TilePlan& plan, const MemoryModel& model) {
  return TiledLowering(operands, lowering, space, plan, model).run();
}

}  // namespace uma::tiling
