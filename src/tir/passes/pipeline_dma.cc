// pipeline-dma: double buffering. In a block "tiles" whose attribute tile.double is 1
// (uma/tiling/lower_tiled.h), each loop of more than one tile of the innermost tiled axis (the
// loop its block "compute" iterates over: the block's iteration variable is bound to it) gets
// a software pipeline of two stages, DMA and compute:
//
//   dma_in(tile 0 → slot 0)                              prologue
//   for t in [0, n):
//     if (t + 1 < n) dma_in(tile t + 1 → slot (t + 1) % 2)   the next tile's move starts
//     dma_wait(the inputs' queues of slot t % 2)              this tile's has ended
//     if (t >= 2) dma_wait(the output's queue of slot t % 2)  slot t % 2's store has ended
//     compute(slot t % 2); dma_out(slot t % 2)                 the store is not waited for
//   dma_wait(the output's queues)                        epilogue
//
// The moves of the loop's body (blocks "dma_in" at its start) and the output's move get two
// buffers: each buffer they fill grows to twice its size, slot s at offset s * size, and its
// queue q becomes 2q + s (every other queue of the block 2q, slot 0). Moves in outer loops,
// whose buffers the loop only reads, keep one buffer and their waits.
//
// Assumes: the tiles block as tiling lowered it: buffers one-dimensional, each dma block a
// sequence of dma_start calls (in loops) ending with its dma_wait.
// Guarantees: the same values computed; every dma_start of a slot is waited for before the
// slot is read or written again, and before the block ends.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "uma/tir/dma.h"
#include "uma/tir/functor.h"
#include "uma/tir/passes.h"
#include "uma/tir/simplify.h"

namespace uma::tir {
namespace {

std::int64_t queue_of(const BlockNode& block) {
  return block.attrs.get_int(std::string(kDmaQueueAttr));
}

// A dma block without its final wait.
Stmt without_wait(const BlockNode& block) {
  std::vector<Stmt> body;
  if (const auto* seq = block.body.as<SeqNode>())
    body = seq->stmts;
  else
    body = {block.body};
  if (!body.empty() && as_dma_call(body.back(), kDmaWait) != nullptr) body.pop_back();
  return BlockNode::make(block.name, block.reads, block.writes, SeqNode::make(std::move(body)),
                         block.attrs);
}

// The buffers of a block's reads or writes, doubled ones replaced.
std::vector<Buffer> swapped(const std::vector<Buffer>& list,
                            const std::unordered_map<const BufferNode*, Buffer>& doubled) {
  std::vector<Buffer> out;
  for (const Buffer& b : list) {
    auto it = doubled.find(b.get());
    out.push_back(it == doubled.end() ? b : it->second);
  }
  return out;
}

// Buffers in slots: every address of a doubled buffer moves to its slot's half, every dma
// queue q to 2q + slot (slot 0 where no slot is given).
class SlotRewriter : public Mutator {
 public:
  SlotRewriter(const std::unordered_map<const BufferNode*, Buffer>& doubled, Expr slot)
      : doubled_(doubled), slot_(std::move(slot)) {}
  using Mutator::mutate;

 protected:
  Expr mutate(const AddressNode& op, const Expr& self) override {
    auto it = doubled_.find(op.buffer.get());
    if (it == doubled_.end()) return Mutator::mutate(op, self);
    Expr size = op.buffer->shape[0];
    return AddressNode::make(it->second, {simplify(slot_ * size + mutate(op.indices[0]))});
  }
  Expr mutate(const CallNode& op, const Expr& self) override {
    if (op.call_kind != CallNode::CallKind::kIntrinsic ||
        (op.name != kDmaStart && op.name != kDmaWait))
      return Mutator::mutate(op, self);
    std::vector<Expr> args;
    for (const Expr& arg : op.args) args.push_back(mutate(arg));
    args[0] = simplify(args[0] * Expr(std::int64_t{2}) + slot_);
    return CallNode::make(op.type, op.name, std::move(args), op.call_kind);
  }
  Stmt mutate(const BlockNode& op, const Stmt&) override {
    Stmt body = mutate(op.body);
    return BlockNode::make(op.name, swapped(op.reads, doubled_), swapped(op.writes, doubled_), body,
                           op.attrs, op.iter_vars, op.init);
  }

 private:
  const std::unordered_map<const BufferNode*, Buffer>& doubled_;
  Expr slot_;
};

// The statements of a loop's body, flattened.
std::vector<Stmt> stmts_of(const Stmt& s) {
  if (const auto* seq = s.as<SeqNode>()) return seq->stmts;
  return {s};
}

// Whether the loop is the one of the innermost tiled axis: a block "compute" in its body
// iterates over the tiles bound to the loop's variable.
bool holds_compute(const ForNode& loop) {
  for (const Stmt& s : stmts_of(loop.body))
    if (const auto* block = s.as<BlockNode>(); block != nullptr && block->name == kComputeBlock)
      for (const IterVar& iv : block->iter_vars)
        if (iv.binding.same_as(loop.var)) return true;
  return false;
}

class Pipeliner : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  // Outside the pipelined loops, every use of a doubled buffer is slot 0.
  Expr mutate(const AddressNode&, const Expr& self) override {
    return doubled_.empty() ? self : zero().mutate(self);
  }
  Expr mutate(const CallNode& op, const Expr& self) override {
    if (doubled_.empty() || op.call_kind != CallNode::CallKind::kIntrinsic)
      return Mutator::mutate(op, self);
    return zero().mutate(self);
  }

  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    const std::string double_attr(kTileDoubleAttr);
    if (op.name != kTilesBlock || !op.attrs.has(double_attr) ||
        op.attrs.get_int(double_attr) != 1) {
      if (doubled_.empty()) return Mutator::mutate(op, self);
      return BlockNode::make(op.name, swapped(op.reads, doubled_), swapped(op.writes, doubled_),
                             mutate(op.body), op.attrs, op.iter_vars, op.init);
    }
    // The buffers to double: those the pipelined loops' moves fill or empty.
    doubled_.clear();
    pre_order_visit(op.body, [&](const ExprNode*, const StmtNode* s) {
      if (s == nullptr || s->kind != StmtKind::For) return;
      const auto& loop = *static_cast<const ForNode*>(s);
      if (!pipelined(loop)) return;
      for (const Stmt& stmt : stmts_of(loop.body)) {
        const auto* block = stmt.as<BlockNode>();
        if (block == nullptr) continue;
        if (block->name == kDmaInBlock) want(block->writes[0]);
        if (block->name == kDmaOutBlock) want(block->reads[0]);
      }
    });
    if (doubled_.empty()) return self;
    Stmt body = resize_allocations(mutate(op.body));
    doubled_.clear();
    return BlockNode::make(op.name, op.reads, op.writes, body, op.attrs, op.iter_vars, op.init);
  }

  Stmt mutate(const ForNode& op, const Stmt& self) override {
    if (doubled_.empty() || !pipelined(op)) return Mutator::mutate(op, self);
    const Var& t = op.var;
    Expr n = op.extent;
    std::vector<Stmt> ahead, rest;
    std::vector<std::int64_t> in_queues, out_queues;
    bool leading = true;
    for (const Stmt& s : stmts_of(op.body)) {
      const auto* block = s.as<BlockNode>();
      if (leading && block != nullptr && block->name == kDmaInBlock &&
          doubled_.contains(block->writes[0].get())) {
        ahead.push_back(without_wait(*block));
        in_queues.push_back(queue_of(*block));
        continue;
      }
      leading = false;
      if (block != nullptr && block->name == kDmaOutBlock &&
          doubled_.contains(block->reads[0].get())) {
        rest.push_back(without_wait(*block));
        out_queues.push_back(queue_of(*block));
        continue;
      }
      rest.push_back(s);
    }
    auto at = [&](const std::vector<Stmt>& stmts, const Expr& index) {
      std::vector<Stmt> out;
      for (const Stmt& s : stmts) {
        Stmt moved = substitute(s, {{t.as<VarNode>(), index}});
        out.push_back(simplify(
            SlotRewriter(doubled_, simplify(index % Expr(std::int64_t{2}))).mutate(moved)));
      }
      return SeqNode::make(std::move(out));
    };
    Expr slot = t % Expr(std::int64_t{2});
    std::vector<Stmt> body;
    if (!ahead.empty()) body.push_back(IfThenElseNode::make(t + 1 < n, at(ahead, t + 1)));
    for (std::int64_t q : in_queues) body.push_back(dma_wait(simplify(slot + Expr(2 * q))));
    for (std::int64_t q : out_queues)
      body.push_back(
          IfThenElseNode::make(t >= Expr(std::int64_t{2}), dma_wait(simplify(slot + Expr(2 * q)))));
    body.push_back(at(rest, t));
    std::vector<Stmt> result;
    if (!ahead.empty()) result.push_back(at(ahead, Expr(std::int64_t{0})));
    result.push_back(ForNode::make(t, op.min, n, op.for_kind, SeqNode::make(std::move(body))));
    for (std::int64_t q : out_queues)
      for (std::int64_t s : {0, 1}) result.push_back(dma_wait(Expr(2 * q + s)));
    return SeqNode::make(std::move(result));
  }

 private:
  // A loop of the tiles, of constant extent of at least 2, whose body computes a tile.
  static bool pipelined(const ForNode& loop) {
    std::optional<std::int64_t> extent = as_const_int(loop.extent);
    std::optional<std::int64_t> min = as_const_int(loop.min);
    return extent && *extent >= 2 && min && *min == 0 && holds_compute(loop);
  }

  SlotRewriter zero() const { return SlotRewriter(doubled_, Expr(std::int64_t{0})); }

  void want(const Buffer& buffer) {
    if (doubled_.contains(buffer.get())) return;
    std::optional<std::int64_t> size =
        buffer->shape.size() == 1 ? as_const_int(buffer->shape[0]) : std::nullopt;
    if (!size) return;  // tiling makes one-dimensional buffers of constant size
    doubled_.emplace(buffer.get(),
                     make_buffer(buffer->name, buffer->dtype, {Expr(2 * *size)}, buffer->scope));
  }

  // Allocations of doubled buffers, of the doubled size.
  Stmt resize_allocations(const Stmt& body) {
    class Resize : public Mutator {
     public:
      explicit Resize(const std::unordered_map<const BufferNode*, Buffer>& doubled)
          : doubled_(doubled) {}
      using Mutator::mutate;

     protected:
      Stmt mutate(const AllocateNode& op, const Stmt& self) override {
        Stmt inner = mutate(op.body);
        auto it = doubled_.find(op.buffer.get());
        if (it != doubled_.end()) return AllocateNode::make(it->second, inner);
        return inner.same_as(op.body) ? self : AllocateNode::make(op.buffer, inner);
      }

     private:
      const std::unordered_map<const BufferNode*, Buffer>& doubled_;
    };
    return Resize(doubled_).mutate(body);
  }

  std::unordered_map<const BufferNode*, Buffer> doubled_;
};

}  // namespace

FuncPass pipeline_dma_pass() {
  return {"pipeline-dma", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = Pipeliner().mutate(func.body);
            if (body.same_as(func.body)) return func;
            PrimFunc result = func;
            result.body = body;
            return result;
          }};
}

}  // namespace uma::tir
