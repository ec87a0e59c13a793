// vanilla-fuse-epilogue (TIR_PHASE_0, after vanilla-conv2d-offload): in a region of several
// composites, lowering gives a convolution that is not the region's output a buffer of its
// own and computes its bias and activation in the next block:
//
//   block conv2d_nchw { vanilla_conv2dnchw(&%x[...], &%w[...], &%conv2d_nchw[...], ...,
//                                          handle(0), -inff, inff, 16) }
//   block relu { for n, c, h, w {
//     %relu[n, c, h, w] = max(%conv2d_nchw[n, c, h, w] + %bias[c], 0.0f) } }
//
// This pass folds such a block into the call, which then writes %relu itself with the
// epilogue (as it does for a region's output), and drops the block and the intermediate
// buffer. It folds only when the kernel computes the block exactly (match_epilogue) after
// what the call computes already (a bias of nn.conv2d's own operand is in the call: the block
// may clamp, not add a second bias), and nothing else reads the intermediate, which is no
// parameter of the function. Anything else stays as it is.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "backends/vanilla/conv2d_call.h"
#include "backends/vanilla/vanilla.h"
#include "uma/tir/functor.h"

namespace uma::backends::vanilla {
namespace {

using namespace tir;

// How many loads and addresses of each buffer `s` holds.
std::unordered_map<const BufferNode*, std::size_t> count_uses(const Stmt& s) {
  std::unordered_map<const BufferNode*, std::size_t> uses;
  pre_order_visit(s, [&](const ExprNode* e, const StmtNode*) {
    if (e == nullptr) return;
    if (e->kind == ExprKind::Load) ++uses[static_cast<const LoadNode*>(e)->buffer.get()];
    if (e->kind == ExprKind::Address) ++uses[static_cast<const AddressNode*>(e)->buffer.get()];
  });
  return uses;
}

class EpilogueFuser final : public Mutator {
 public:
  explicit EpilogueFuser(const PrimFunc& func) : uses_(count_uses(func.body)) {
    for (const Buffer& param : func.params) params_.insert(param.get());
  }
  using Mutator::mutate;

 protected:
  Stmt mutate(const SeqNode& op, const Stmt& self) override {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (std::size_t i = 0; i < op.stmts.size(); ++i) {
      Stmt s = mutate(op.stmts[i]);
      changed |= !s.same_as(op.stmts[i]);
      if (i + 1 < op.stmts.size()) {
        if (std::optional<Stmt> fused = fuse(s, op.stmts[i + 1])) {
          s = *fused, changed = true;
          ++i;
        }
      }
      stmts.push_back(s);
    }
    return changed ? SeqNode::make(std::move(stmts)) : self;
  }

  // The intermediate a fused call no longer writes is not allocated either.
  Stmt mutate(const AllocateNode& op, const Stmt& self) override {
    Stmt body = mutate(op.body);
    if (dropped_.count(op.buffer.get())) return body;
    return body.same_as(op.body) ? self : AllocateNode::make(op.buffer, body);
  }

 private:
  // The call block `conv` with the block `next` folded in, or nullopt.
  std::optional<Stmt> fuse(const Stmt& conv, const Stmt& next) {
    const auto* block = conv.as<BlockNode>();
    const auto* epilogue = next.as<BlockNode>();
    if (block == nullptr || epilogue == nullptr || epilogue->writes.size() != 1)
      return std::nullopt;
    std::optional<KernelCall> call = KernelCall::from_stmt(block->body);
    if (!call || call->epilogue.has_clamp() || params_.count(call->result.get()))
      return std::nullopt;
    const Buffer sum = call->result;  // a copy: call->result changes below
    const Buffer& out = epilogue->writes[0];
    if (out == call->data || out == call->weight || out->dtype != DType::f32 ||
        constant_shape(out) != constant_shape(sum))
      return std::nullopt;

    // for n, c, h, w { out[n, c, h, w] = f(sum[n, c, h, w]) }
    Stmt s = epilogue->body;
    Expected<std::vector<Loop>> loops = peel_loops(s, 4);
    const auto* store = s.as<StoreNode>();
    if (!loops || store == nullptr || store->buffer != out || store->indices.size() != 4)
      return std::nullopt;
    auto at_own_indices = [&](const std::vector<Expr>& indices) {
      for (std::size_t d = 0; d < 4; ++d)
        if (!is_index_of(indices[d], (*loops)[d])) return false;
      return indices.size() == 4;
    };
    if (!at_own_indices(store->indices)) return std::nullopt;
    auto is_sum = [&](const Expr& e) {
      const auto* load = e.as<LoadNode>();
      return load != nullptr && load->buffer == sum && at_own_indices(load->indices);
    };
    std::optional<Epilogue> matched = match_epilogue(store->value, is_sum, (*loops)[1]);
    // The call's own address of the sum, and the block's reads, are all its uses.
    auto in_block = count_uses(epilogue->body);
    if (!matched || (matched->has_bias() && call->epilogue.has_bias()) ||
        uses_.at(sum.get()) != 1 + in_block[sum.get()])
      return std::nullopt;

    call->result = out;
    if (matched->has_bias()) call->epilogue.bias = matched->bias;
    call->epilogue.act_min = matched->act_min;
    call->epilogue.act_max = matched->act_max;
    std::vector<Buffer> reads = block->reads;
    for (const Buffer& read : epilogue->reads)
      if (read != sum && std::find(reads.begin(), reads.end(), read) == reads.end())
        reads.push_back(read);
    dropped_.insert(sum.get());
    return BlockNode::make(block->name, std::move(reads), {out}, call->to_stmt(), block->attrs);
  }

  std::unordered_map<const BufferNode*, std::size_t> uses_;
  std::unordered_set<const BufferNode*> params_;
  std::unordered_set<const BufferNode*> dropped_;  // intermediates no call writes any more
};

}  // namespace

Expected<tir::PrimFunc> fuse_epilogue(const tir::PrimFunc& func, const Target&) {
  Stmt body = EpilogueFuser(func).mutate(func.body);
  if (body.same_as(func.body)) return func;
  tir::PrimFunc result = func;
  result.body = body;
  return result;
}

}  // namespace uma::backends::vanilla
