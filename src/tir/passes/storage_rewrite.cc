// storage-rewrite: allocations whose lifetimes do not overlap share memory.
//
// Assumes: buffers are flattened (flatten-buffers); an allocation that is not a
// one-dimensional dense buffer of constant size is left alone, and so are buffers of the
// "local" scope, which the C compiler keeps in registers best when they stay apart, and of an
// accelerator's memories (any scope but "global"), which the tiling plan lays out layer by
// layer: shared across layers, they would be hoisted into slots whose sum exceeds what any
// one layer holds, and so the memory (check-memories).
// Guarantees: the function computes the same. Allocations of host memory and one dtype, made in
// one parallel region (the function outside every parallel or vectorized loop, or the body
// of one such loop, since a buffer allocated in it is private to each iteration), whose
// buffers are never live at the same time, become one allocation of the largest size,
// named after the first, made at the start of that region; their accesses, addresses and
// data variables use it, and blocks list it once. A buffer is live from the first statement
// that uses it to the last, where a use inside a loop that runs within the buffer's
// allocation counts for the whole loop (the next iteration may read what this one wrote).
// Buffers are packed greedily in order of first use, each into the free allocation closest
// to its size, so the total never exceeds that of the allocations it replaces.
// Allocations that share with nothing stay where they are.
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "uma/tir/functor.h"
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

struct LiveRange {
  std::int64_t first = -1, last = -1;  // statement positions; first < 0 when never used
};

// One buffer that may share: its allocation and when it is live.
struct Candidate {
  Buffer buffer;
  std::int64_t size = 0;
  const ForNode* region = nullptr;  // the parallel loop it is allocated in; null: the function
  bool eligible = true;
  LiveRange live;
};

// Numbers the statements in program order (parents first) and records, for each allocated
// buffer (by data variable), its region and the positions where it is live.
class Liveness final : public Visitor {
 public:
  std::vector<Candidate> candidates;  // in order of allocation
  std::unordered_map<const VarNode*, std::size_t> index;

  void finish() {
    for (const Access& access : accesses_) {
      LiveRange& live = candidates[access.candidate].live;
      std::int64_t first = access.position, last = access.position;
      if (access.loop >= 0) first = loops_[access.loop].first, last = loops_[access.loop].last;
      if (live.first < 0 || first < live.first) live.first = first;
      live.last = std::max(live.last, last);
    }
  }

  using Visitor::visit;

 protected:
  void visit(const ForNode& op) override {
    std::int64_t loop = static_cast<std::int64_t>(loops_.size());
    loops_.push_back({++position_, -1});
    loop_stack_.push_back(loop);
    bool region = op.for_kind == ForKind::kParallel || op.for_kind == ForKind::kVectorized;
    if (region) regions_.push_back(&op);
    Visitor::visit(op);
    if (region) regions_.pop_back();
    loop_stack_.pop_back();
    loops_[loop].last = position_;
  }

  void visit(const AllocateNode& op) override {
    ++position_;
    const Buffer& buffer = op.buffer;
    const auto* data = buffer->data.as<VarNode>();
    const ForNode* region = regions_.empty() ? nullptr : regions_.back();
    auto [it, inserted] = index.try_emplace(data, candidates.size());
    if (inserted) {
      Candidate c{buffer, 0, region};
      auto size = buffer->shape.size() == 1 ? as_const_int(buffer->shape[0]) : std::nullopt;
      c.eligible = size && *size > 0 && buffer->strides.empty() && buffer->scope == "global";
      c.size = size.value_or(0);
      candidates.push_back(std::move(c));
    } else {
      // Allocated again (unrolled copies): sharing is planned only within one region, for
      // one buffer node.
      Candidate& c = candidates[it->second];
      if (c.region != region || c.buffer != buffer) c.eligible = false;
    }
    active_[data].push_back(loop_stack_.size());
    Visitor::visit(op);
    active_[data].pop_back();
  }

  void visit(const StoreNode& op) override {
    ++position_;
    use(op.buffer->data.as<VarNode>());
    Visitor::visit(op);
  }
#define UMA_STORAGE_POSITION(k)            \
  void visit(const k##Node& op) override { \
    ++position_;                           \
    Visitor::visit(op);                    \
  }
  UMA_STORAGE_POSITION(LetStmt)
  UMA_STORAGE_POSITION(IfThenElse)
  UMA_STORAGE_POSITION(Seq)
  UMA_STORAGE_POSITION(Evaluate)
  UMA_STORAGE_POSITION(Block)
#undef UMA_STORAGE_POSITION

  void visit(const LoadNode& op) override {
    use(op.buffer->data.as<VarNode>());
    Visitor::visit(op);
  }
  void visit(const AddressNode& op) override {
    use(op.buffer->data.as<VarNode>());
    Visitor::visit(op);
  }
  void visit(const VarNode& op) override { use(&op); }

 private:
  struct Access {
    std::size_t candidate;
    std::int64_t position;
    std::int64_t loop;  // the outermost loop between the allocation and the use, or -1
  };

  void use(const VarNode* data) {
    auto active = active_.find(data);
    if (active == active_.end() || active->second.empty()) return;
    std::size_t depth = active->second.back();
    std::int64_t loop = loop_stack_.size() > depth ? loop_stack_[depth] : -1;
    accesses_.push_back({index.at(data), position_, loop});
  }

  std::int64_t position_ = 0;
  std::vector<LiveRange> loops_;
  std::vector<std::int64_t> loop_stack_;
  std::vector<const ForNode*> regions_;
  // Data variable -> the loop depth at each enclosing allocation of it.
  std::unordered_map<const VarNode*, std::vector<std::size_t>> active_;
  std::vector<Access> accesses_;
};

// One allocation that several buffers share.
struct Shared {
  const ForNode* region;
  std::vector<std::size_t> members;  // candidates
  std::int64_t size = 0;
  std::int64_t free_after = 0;  // the last position of its current member
  Buffer buffer;
};

// Groups the candidates into shared allocations; only those with two members or more are
// returned.
std::vector<Shared> plan(const std::vector<Candidate>& candidates) {
  // Candidates that may share: same region, scope and dtype.
  std::map<std::tuple<std::size_t, std::string, DType>, std::vector<std::size_t>> groups;
  std::unordered_map<const ForNode*, std::size_t> region_order;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Candidate& c = candidates[k];
    if (!c.eligible || c.live.first < 0) continue;
    std::size_t region = region_order.try_emplace(c.region, region_order.size()).first->second;
    groups[{region, c.buffer->scope, c.buffer->dtype}].push_back(k);
  }
  std::vector<Shared> result;
  for (auto& [key, members] : groups) {
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return candidates[a].live.first < candidates[b].live.first;
    });
    std::vector<Shared> slots;
    for (std::size_t k : members) {
      const Candidate& c = candidates[k];
      // The free slot closest in size: the smallest that fits, else the largest.
      Shared* best = nullptr;
      for (Shared& slot : slots) {
        if (slot.free_after >= c.live.first) continue;
        if (best == nullptr) {
          best = &slot;
          continue;
        }
        bool fits = slot.size >= c.size, best_fits = best->size >= c.size;
        if (fits != best_fits ? fits : (fits ? slot.size < best->size : slot.size > best->size))
          best = &slot;
      }
      if (best == nullptr) best = &slots.emplace_back(Shared{c.region, {}, 0, 0, nullptr});
      best->members.push_back(k);
      best->size = std::max(best->size, c.size);
      best->free_after = c.live.last;
    }
    for (Shared& slot : slots)
      if (slot.members.size() > 1) result.push_back(std::move(slot));
  }
  // Deterministic order: by the first member's allocation.
  std::sort(result.begin(), result.end(),
            [](const Shared& a, const Shared& b) { return a.members[0] < b.members[0]; });
  return result;
}

class Rewrite final : public Mutator {
 public:
  Rewrite(const std::vector<Candidate>& candidates, std::vector<Shared>& shared) : shared_(shared) {
    for (std::size_t s = 0; s < shared.size(); ++s) {
      Shared& slot = shared[s];
      const Buffer& first = candidates[slot.members[0]].buffer;
      slot.buffer = make_buffer(first->name, first->dtype, {Expr(slot.size)}, first->scope);
      for (std::size_t k : slot.members)
        to_shared_[candidates[k].buffer->data.as<VarNode>()] = slot.buffer;
    }
  }

  // The allocations of `region` around `body`.
  Stmt allocate_in(const ForNode* region, Stmt body) {
    for (std::size_t s = shared_.size(); s-- > 0;)
      if (shared_[s].region == region) body = AllocateNode::make(shared_[s].buffer, body);
    return body;
  }

  using Mutator::mutate;

 protected:
  Buffer mutate_buffer(const Buffer& buffer) override {
    auto it = to_shared_.find(buffer->data.as<VarNode>());
    return it == to_shared_.end() ? buffer : it->second;
  }
  Expr mutate(const VarNode& op, const Expr& self) override {
    auto it = to_shared_.find(&op);
    return it == to_shared_.end() ? self : it->second->data;
  }
  Stmt mutate(const AllocateNode& op, const Stmt& self) override {
    if (to_shared_.count(op.buffer->data.as<VarNode>())) return mutate(op.body);
    return Mutator::mutate(op, self);
  }
  Stmt mutate(const ForNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto& loop = *visited.as<ForNode>();
    Stmt body = allocate_in(&op, loop.body);
    if (body.same_as(loop.body)) return visited;
    return ForNode::make(loop.var, loop.min, loop.extent, loop.for_kind, body);
  }
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    Stmt visited = Mutator::mutate(op, self);
    const auto& block = *visited.as<BlockNode>();
    auto unique = [](std::vector<Buffer> buffers) {
      std::unordered_set<const BufferNode*> seen;
      std::erase_if(buffers, [&](const Buffer& b) { return !seen.insert(b.get()).second; });
      return buffers;
    };
    std::vector<Buffer> reads = unique(block.reads), writes = unique(block.writes);
    if (reads.size() == block.reads.size() && writes.size() == block.writes.size()) return visited;
    return BlockNode::make(block.name, std::move(reads), std::move(writes), block.body, block.attrs,
                           block.iter_vars, block.init);
  }

 private:
  std::vector<Shared>& shared_;
  std::unordered_map<const VarNode*, Buffer> to_shared_;
};

}  // namespace

FuncPass storage_rewrite_pass() {
  return {"storage-rewrite", [](const PrimFunc& func) -> Expected<PrimFunc> {
            Liveness liveness;
            liveness.visit(func.body);
            liveness.finish();
            std::vector<Shared> shared = plan(liveness.candidates);
            if (shared.empty()) return func;
            Rewrite rewrite(liveness.candidates, shared);
            PrimFunc out = func;
            out.body = rewrite.allocate_in(nullptr, rewrite.mutate(func.body));
            return out;
          }};
}

}  // namespace uma::tir
