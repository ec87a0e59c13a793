// compact-buffers: an allocation whose accesses all lie in one loop, and touch in each
// iteration of it a box of constant size that no other iteration touches, moves into that
// loop and shrinks to the box (indices rebased to its corner); a box of at most
// kLocalBytes is in scope "local", where the C compiler keeps it in registers. This is
// what turns a reduction's full-size accumulator, once its init and epilogue sit in the
// loop of the output point (or of a register tile of points), into acc[1] (or the tile).
//
// The loop chosen is the innermost that encloses every access and whose iterations touch
// disjoint boxes (so no value flows from one iteration to the next, and none is read after
// the loop). Assumes blocked buffers (before flatten-buffers). Buffers whose address is
// taken, function parameters, strided buffers and indices this cannot bound (monotonic
// arithmetic of the inner loops' variables, as compute_at) are left as they are. Blocks
// outside the loop stop listing the buffer.
#include <optional>

#include "../schedule/schedule_util.h"
#include "uma/tir/functor.h"
#include "uma/tir/passes.h"
#include "uma/tir/simplify.h"

namespace uma::tir {
namespace {

constexpr std::int64_t kLocalBytes = 1024;

// The accesses of one buffer, each with the loops around it (outermost first).
struct Accesses {
  std::vector<std::vector<const ForNode*>> loops;
  std::vector<const std::vector<Expr>*> indices;
  bool address = false;
};

class FindAccesses final : public Visitor {
 public:
  explicit FindAccesses(const BufferNode* buffer) : buffer_(buffer) {}
  using Visitor::visit;
  Accesses found;

 protected:
  void visit(const ForNode& op) override {
    stack_.push_back(&op);
    Visitor::visit(op);
    stack_.pop_back();
  }
  void visit(const LoadNode& op) override {
    if (op.buffer.get() == buffer_) add(op.indices);
    Visitor::visit(op);
  }
  void visit(const StoreNode& op) override {
    if (op.buffer.get() == buffer_) add(op.indices);
    Visitor::visit(op);
  }
  void visit(const AddressNode& op) override {
    found.address |= op.buffer.get() == buffer_;
    Visitor::visit(op);
  }

 private:
  void add(const std::vector<Expr>& indices) {
    found.loops.push_back(stack_);
    found.indices.push_back(&indices);
  }
  const BufferNode* buffer_;
  std::vector<const ForNode*> stack_;
};

// Where a buffer goes: into `loop`, as `compact`, indexed from `corner`.
struct Plan {
  const ForNode* loop = nullptr;
  Buffer compact;
  std::vector<Expr> corner;
};

// The box one iteration of `loop` touches, if its size is constant and iterations touch
// disjoint boxes.
std::optional<Plan> plan_at(const ForNode* loop, const std::vector<const ForNode*>& outer,
                            const Buffer& buffer, const Accesses& accesses) {
  Bounds known;
  for (const ForNode* l : outer) {
    Interval first = bounds_of(l->min, known), last = bounds_of(l->min + l->extent - 1, known);
    known[l->var.as<VarNode>()] = Interval{first.min, last.max};
  }
  sched::RegionBounder bounder(loop->body);
  std::size_t rank = buffer->shape.size();
  std::vector<Expr> lo(rank), hi(rank);
  for (const std::vector<Expr>* indices : accesses.indices) {
    if (indices->size() != rank) return std::nullopt;
    for (std::size_t d = 0; d < rank; ++d) {
      auto low = bounder.bound((*indices)[d], false), high = bounder.bound((*indices)[d], true);
      if (!low || !high) return std::nullopt;
      lo[d] = lo[d].defined() ? min(lo[d], *low) : *low;
      hi[d] = hi[d].defined() ? max(hi[d], *high) : *high;
    }
  }
  Plan plan{loop, nullptr, {}};
  std::vector<Expr> shape;
  std::int64_t elements = 1;
  bool disjoint = false;
  const auto* var = loop->var.as<VarNode>();
  for (std::size_t d = 0; d < rank; ++d) {
    Expr corner = simplify(lo[d], known);
    auto extent = as_const_int(simplify(hi[d] - lo[d] + 1, known));
    if (!extent || *extent < 1) return std::nullopt;
    // How far the box moves from one iteration to the next, in this dimension.
    auto step = as_const_int(simplify(substitute(corner, {{var, loop->var + 1}}) - corner, known));
    disjoint |= step && std::abs(*step) >= *extent;
    shape.push_back(sched::constant_like(buffer->shape[d], *extent));
    plan.corner.push_back(corner);
    elements *= *extent;
  }
  if (!disjoint) return std::nullopt;
  std::string scope = buffer->scope;
  if (scope == "global" &&
      elements * static_cast<std::int64_t>(dtype_size(buffer->dtype)) <= kLocalBytes)
    scope = "local";
  plan.compact = make_buffer(buffer->name, buffer->dtype, std::move(shape), scope);
  return plan;
}

// The plan for the allocation's buffer: the innermost loop around every access that works.
std::optional<Plan> plan_for(const AllocateNode& op) {
  const Buffer& buffer = op.buffer;
  if (!buffer->strides.empty()) return std::nullopt;
  FindAccesses finder(buffer.get());
  finder.visit(op.body);
  const Accesses& accesses = finder.found;
  if (accesses.address || accesses.loops.empty()) return std::nullopt;
  std::vector<const ForNode*> common = accesses.loops.front();
  for (const auto& loops : accesses.loops) {
    std::size_t n = 0;
    while (n < common.size() && n < loops.size() && common[n] == loops[n]) ++n;
    common.resize(n);
  }
  for (std::size_t n = common.size(); n-- > 0;) {
    std::vector<const ForNode*> outer(common.begin(), common.begin() + n + 1);
    if (auto plan = plan_at(common[n], outer, buffer, accesses)) return plan;
  }
  return std::nullopt;
}

// Moves one allocation as planned.
class Compact final : public Mutator {
 public:
  Compact(const AllocateNode* allocation, Plan plan)
      : allocation_(allocation), old_(allocation->buffer), plan_(std::move(plan)) {}
  using Mutator::mutate;

 protected:
  Stmt mutate(const AllocateNode& op, const Stmt& self) override {
    if (&op == allocation_) return mutate(op.body);
    return Mutator::mutate(op, self);
  }
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    if (&op != plan_.loop) return Mutator::mutate(op, self);
    inside_ = true;
    Stmt body = AllocateNode::make(plan_.compact, mutate(op.body));
    inside_ = false;
    return ForNode::make(op.var, op.min, op.extent, op.for_kind, body);
  }
  Expr mutate(const LoadNode& op, const Expr& self) override {
    if (op.buffer != old_) return Mutator::mutate(op, self);
    return LoadNode::make(plan_.compact, rebased(op.indices));
  }
  Stmt mutate(const StoreNode& op, const Stmt& self) override {
    if (op.buffer != old_) return Mutator::mutate(op, self);
    return StoreNode::make(plan_.compact, mutate(op.value), rebased(op.indices));
  }
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    if (inside_) return visited;
    const auto* b = visited.as<BlockNode>();
    auto drop = [&](std::vector<Buffer> list) {
      std::erase_if(list, [&](const Buffer& x) { return x == plan_.compact || x == old_; });
      return list;
    };
    std::vector<Buffer> reads = drop(b->reads), writes = drop(b->writes);
    if (reads.size() == b->reads.size() && writes.size() == b->writes.size()) return visited;
    return BlockNode::make(b->name, std::move(reads), std::move(writes), b->body, b->attrs,
                           b->iter_vars, b->init);
  }
  Buffer mutate_buffer(const Buffer& buffer) override {
    return buffer == old_ ? plan_.compact : buffer;
  }

 private:
  std::vector<Expr> rebased(const std::vector<Expr>& indices) {
    std::vector<Expr> out;
    for (std::size_t d = 0; d < indices.size(); ++d)
      out.push_back(simplify(mutate(indices[d]) - plan_.corner[d]));
    return out;
  }

  const AllocateNode* allocation_;
  Buffer old_;
  Plan plan_;
  bool inside_ = false;
};

// The allocations of `s`, outermost first.
std::vector<Buffer> allocated(const Stmt& s) {
  std::vector<Buffer> buffers;
  pre_order_visit(s, [&](const ExprNode*, const StmtNode* st) {
    if (st != nullptr && st->kind == StmtKind::Allocate)
      buffers.push_back(static_cast<const AllocateNode*>(st)->buffer);
  });
  return buffers;
}

const AllocateNode* find_allocation(const Stmt& s, const Buffer& buffer) {
  const AllocateNode* found = nullptr;
  pre_order_visit(s, [&](const ExprNode*, const StmtNode* st) {
    if (st != nullptr && st->kind == StmtKind::Allocate &&
        static_cast<const AllocateNode*>(st)->buffer == buffer)
      found = static_cast<const AllocateNode*>(st);
  });
  return found;
}

}  // namespace

FuncPass compact_buffers_pass() {
  return {"compact-buffers", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Stmt body = func.body;
            for (const Buffer& buffer : allocated(func.body)) {
              const AllocateNode* allocation = find_allocation(body, buffer);
              if (allocation == nullptr) continue;
              std::optional<Plan> plan = plan_for(*allocation);
              if (!plan) continue;
              body = Compact(allocation, std::move(*plan)).mutate(body);
            }
            if (body.same_as(func.body)) return func;
            PrimFunc out = func;
            out.body = body;
            return out;
          }};
}

}  // namespace uma::tir
