// flatten-buffers: multi-dimensional buffers become one-dimensional.
//
// Assumes: strides, when a buffer has them, are not negative (a buffer without strides is
// dense row-major); a buffer accessed with one index although it has several dimensions is
// already accessed flat (the IR's convention, ir.h).
// Guarantees: every buffer of the function (parameters, allocations, blocks' reads and
// writes) is replaced by a one-dimensional dense buffer with the same name, dtype, scope and
// data variable, whose one dimension is the number of elements the original spans
// (1 + sum((shape[k] - 1) * strides[k]) with strides, the product of the shape without);
// every load, store and address has one index, sum(index[k] * stride[k]), unsimplified,
// in the body and in the init and fini.
// Symbolic dimensions stay in the flat shapes, so a parameter still binds its variables.
// A function whose buffers are all one-dimensional and dense is returned as it is.
#include <algorithm>
#include <unordered_map>

#include "uma/tir/functor.h"
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

Expr to_index_type(const Expr& e) {
  if (e.type().dtype == DType::i64) return e;
  return CastNode::make(DataType::vector(DType::i64, e.type().lanes), e);
}

// a * b and a + b folding constants, with a scalar operand broadcast to a vector one.
Expr broadcast_to(const Expr& e, std::uint16_t lanes) {
  return lanes > 1 && e.type().lanes == 1 ? BroadcastNode::make(e, lanes) : e;
}
Expr mul(Expr a, Expr b) {
  a = to_index_type(a), b = to_index_type(b);
  auto ca = as_const_int(a), cb = as_const_int(b);
  if (ca && cb) return Expr(*ca * *cb);
  if (cb == 1) return a;
  if (ca == 1) return b;
  std::uint16_t lanes = std::max(a.type().lanes, b.type().lanes);
  return broadcast_to(a, lanes) * broadcast_to(b, lanes);
}
Expr add(Expr a, Expr b) {
  a = to_index_type(a), b = to_index_type(b);
  auto ca = as_const_int(a), cb = as_const_int(b);
  if (ca && cb) return Expr(*ca + *cb);
  if (cb == 0) return a;
  if (ca == 0) return b;
  std::uint16_t lanes = std::max(a.type().lanes, b.type().lanes);
  return broadcast_to(a, lanes) + broadcast_to(b, lanes);
}

bool is_flat(const Buffer& buffer) { return buffer->shape.size() == 1 && buffer->strides.empty(); }

// The distance between consecutive indices of each dimension, in elements.
std::vector<Expr> strides_of(const Buffer& buffer) {
  if (!buffer->strides.empty()) return buffer->strides;
  std::vector<Expr> strides(buffer->shape.size());
  Expr stride = Expr(1);
  for (std::size_t k = buffer->shape.size(); k-- > 0;) {
    strides[k] = stride;
    stride = mul(stride, buffer->shape[k]);
  }
  return strides;
}

// The number of elements from the buffer's first to its last, both included.
Expr flat_size(const Buffer& buffer) {
  if (buffer->strides.empty()) {
    Expr size = Expr(1);
    for (const Expr& dim : buffer->shape) size = mul(size, dim);
    return size;
  }
  Expr last = Expr(0);
  for (std::size_t k = 0; k < buffer->shape.size(); ++k) {
    if (as_const_int(buffer->shape[k]) == 0) return Expr(0);
    Expr dim = to_index_type(buffer->shape[k]);
    auto extent = as_const_int(dim);
    last = add(last, mul(extent ? Expr(*extent - 1) : dim - 1, buffer->strides[k]));
  }
  return add(last, Expr(1));
}

class FlattenBuffers final : public Mutator {
 public:
  using Mutator::mutate;

  Buffer mutate_buffer(const Buffer& buffer) override {
    auto [it, inserted] = flat_.try_emplace(buffer.get());
    if (!inserted) return it->second;
    if (is_flat(buffer)) return it->second = buffer;
    auto flat = std::make_shared<BufferNode>(*buffer);
    flat->shape = {flat_size(buffer)};
    flat->strides.clear();
    return it->second = std::move(flat);
  }

 protected:
  Expr mutate(const LoadNode& op, const Expr& self) override {
    Buffer buffer = mutate_buffer(op.buffer);
    std::vector<Expr> indices = flat_indices(op.buffer, op.indices);
    if (buffer == op.buffer && same(indices, op.indices)) return self;
    return LoadNode::make(buffer, std::move(indices));
  }
  Expr mutate(const AddressNode& op, const Expr& self) override {
    Buffer buffer = mutate_buffer(op.buffer);
    std::vector<Expr> indices = flat_indices(op.buffer, op.indices);
    if (buffer == op.buffer && same(indices, op.indices)) return self;
    return AddressNode::make(buffer, std::move(indices));
  }
  Stmt mutate(const StoreNode& op, const Stmt& self) override {
    Buffer buffer = mutate_buffer(op.buffer);
    Expr value = mutate(op.value);
    std::vector<Expr> indices = flat_indices(op.buffer, op.indices);
    if (buffer == op.buffer && value.same_as(op.value) && same(indices, op.indices)) return self;
    return StoreNode::make(buffer, value, std::move(indices));
  }

 private:
  static bool same(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(),
                      [](const Expr& x, const Expr& y) { return x.same_as(y); });
  }

  // The one index into the flat buffer, from the indices into `buffer` (the original).
  std::vector<Expr> flat_indices(const Buffer& buffer, const std::vector<Expr>& indices) {
    std::vector<Expr> mutated;
    for (const Expr& index : indices) mutated.push_back(mutate(index));
    if (is_flat(buffer)) return mutated;
    // One index into a buffer of several dimensions is a flat index already.
    if (mutated.size() == 1 && buffer->shape.size() != 1) return mutated;
    std::vector<Expr> strides = strides_of(buffer);
    Expr flat = Expr(0);
    for (std::size_t k = 0; k < mutated.size(); ++k) flat = add(flat, mul(mutated[k], strides[k]));
    return {flat};
  }

  std::unordered_map<const BufferNode*, Buffer> flat_;
};

}  // namespace

FuncPass flatten_buffers_pass() {
  return {"flatten-buffers", [](const PrimFunc& func) -> Expected<PrimFunc> {
            FlattenBuffers flatten;
            PrimFunc out = func;
            bool changed = false;
            for (Buffer& param : out.params) {
              Buffer flat = flatten.mutate_buffer(param);
              changed |= flat != param;
              param = std::move(flat);
            }
            out.body = flatten.mutate(func.body);
            // The load-time code sees the same (now flat) parameters.
            if (func.init.defined()) out.init = flatten.mutate(func.init);
            if (func.fini.defined()) out.fini = flatten.mutate(func.fini);
            if (!changed && out.body.same_as(func.body) && out.init.same_as(func.init) &&
                out.fini.same_as(func.fini))
              return func;
            return out;
          }};
}

}  // namespace uma::tir
