// vanilla-conv2d-offload (TIR_PHASE_0): every conv2d_nchw block's loop nest becomes one call
//
//   vanilla_conv2dnchw(&data, &weight, &out, oc, iw, ih, ic, kh, kw, stride_h, stride_w,
//                      pad_top, pad_left, pad_bottom, pad_right, batch, bias, act_min, act_max,
//                      dimension)
//
// where bias is the address of one value per output channel or null, and act_min/act_max
// clamp the result (relu: 0 and INFINITY). The block is the one lowering makes of the
// composite vanilla.conv2d (src/lower/compute_conv.cc, src/lower/emit_block.cc):
//
//   block conv2d_nchw {                                   attrs: strides, padding, ...
//     for n, c, h, w {
//       acc[0] = 0
//       for rc, rh, rw { acc[0] = acc[0] + data'[...] * weight[c, rc, rh, rw] }
//       out[n, c, h, w] = epilogue(acc[0])                e.g. max(acc[0] + bias[c], 0)
//   } }
//
// with data' the data read through the padding (an index test inlined into the sum: no
// padded copy exists, and the kernel does the same test). Indices along loops of extent 1
// are 0. The epilogue goes into the call when it is a bias read from memory and a clamp by
// constants; any other (a bias lowering wrote into the code as immediates, say) stays a loop
// nest after the call that applies it to the stored sums in place.
//
// A region of several composites holds several such blocks, so the pass walks the function
// itself rather than tir::Schedule::get_block, which wants one block of a name. Other
// blocks are left to the core passes, or to vanilla-fuse-epilogue when one is the epilogue
// of a convolution inside the region (lowering computes those in a block of their own).
#include <fmt/format.h>

#include <optional>

#include "backends/vanilla/conv2d_call.h"
#include "backends/vanilla/vanilla.h"
#include "uma/tir/functor.h"
#include "uma/tir/simplify.h"

namespace uma::backends::vanilla {
namespace {

using namespace tir;

constexpr std::string_view kBlockName = "conv2d_nchw";

// What the kernel needs of one conv2d_nchw block.
struct ConvBlock {
  Buffer data, weight, out, acc;
  std::vector<Loop> outer;  // n, c, h, w
  std::vector<Loop> inner;  // rc, rh, rw
  Ints strides, padding;
  const StoreNode* store = nullptr;  // out[n, c, h, w] = epilogue(acc[0])

  bool is_acc(const Expr& e) const {
    const auto* load = e.as<LoadNode>();
    return load != nullptr && load->buffer == acc;
  }
};

Expected<Ints> ints_attr(const AttrMap& attrs, std::string_view name, std::size_t size) {
  const Attribute* value = attrs.find(name);
  const auto* ints = value != nullptr ? std::get_if<Ints>(value) : nullptr;
  if (ints == nullptr || ints->size() != size)
    return make_error("attribute '{}' is missing or not {} integers", name, size);
  return *ints;
}

// A factor of the sum's product: buffer[indices], possibly behind the padding's index test.
const LoadNode* factor_load(const Expr& factor) {
  if (const auto* select = factor.as<SelectNode>()) return select->true_value.as<LoadNode>();
  return factor.as<LoadNode>();
}

// Whether `load` reads weight[c, rc, rh, rw] of an (OC, IC, KH, KW) weight.
bool reads_weight(const LoadNode& load, const ConvBlock& b) {
  std::optional<Ints> shape = constant_shape(load.buffer);
  Ints expected = {b.outer[1].extent, b.inner[0].extent, b.inner[1].extent, b.inner[2].extent};
  if (!shape || *shape != expected || load.indices.size() != 4) return false;
  const Loop* roles[] = {&b.outer[1], &b.inner[0], &b.inner[1], &b.inner[2]};
  for (std::size_t d = 0; d < 4; ++d)
    if (!is_index_of(load.indices[d], *roles[d])) return false;
  return true;
}

// Whether `load` reads data[n, rc, h * stride - pad + rh, w * stride - pad + rw] of an
// (N, IC, IH, IW) data whose output size is the block's.
bool reads_data(const LoadNode& load, const ConvBlock& b) {
  std::optional<Ints> shape = constant_shape(load.buffer);
  if (!shape || shape->size() != 4 || load.indices.size() != 4) return false;
  if ((*shape)[0] != b.outer[0].extent || (*shape)[1] != b.inner[0].extent) return false;
  if (!is_index_of(load.indices[0], b.outer[0]) || !is_index_of(load.indices[1], b.inner[0]))
    return false;
  Bounds bounds;
  for (const auto* loops : {&b.outer, &b.inner})
    for (const Loop& loop : *loops)
      bounds[loop.var.as<VarNode>()] = Interval::range(0, loop.extent);
  for (std::size_t i = 0; i < 2; ++i) {
    std::int64_t size = (*shape)[2 + i], kernel = b.inner[1 + i].extent;
    std::int64_t before = b.padding[i], after = b.padding[2 + i], stride = b.strides[i];
    if (stride < 1 || (size + before + after - kernel) / stride + 1 != b.outer[2 + i].extent)
      return false;
    Expr expected = b.outer[2 + i].var * stride + b.inner[1 + i].var - before;
    if (as_const_int(simplify(load.indices[2 + i] - expected, bounds)) != std::int64_t{0})
      return false;
  }
  return true;
}

// The block's loops, buffers and sizes; an error says what differs from the form above.
Expected<ConvBlock> analyze(const BlockNode& block) {
  ConvBlock b;
  if (block.writes.size() != 1) return make_error("it writes {} buffers", block.writes.size());
  b.out = block.writes[0];
  std::optional<Ints> out_shape = constant_shape(b.out);
  if (!out_shape || out_shape->size() != 4 || b.out->dtype != DType::f32)
    return make_error("its output %{} is not a 4-D f32 buffer of constant shape", b.out->name);
  Expected<Ints> dilation = ints_attr(block.attrs, "dilation", 2);
  const Attribute* groups = block.attrs.find("groups");
  if (!dilation || *dilation != Ints{1, 1} || groups == nullptr ||
      *groups != Attribute(std::int64_t{1}))
    return make_error("it is dilated or grouped");
  UMA_TRY_ASSIGN(b.strides, ints_attr(block.attrs, "strides", 2));
  UMA_TRY_ASSIGN(b.padding, ints_attr(block.attrs, "padding", 4));

  Stmt s = block.body;
  UMA_TRY_ASSIGN(b.outer, peel_loops(s, 4));
  for (std::size_t d = 0; d < 4; ++d)
    if (b.outer[d].extent != (*out_shape)[d])
      return make_error("its loops do not cover its output %{}", b.out->name);
  const auto* allocate = s.as<AllocateNode>();
  const auto* seq = allocate != nullptr ? allocate->body.as<SeqNode>() : nullptr;
  if (seq == nullptr || seq->stmts.size() != 3)
    return make_error("its loops do not hold an accumulator, a sum and a store");
  b.acc = allocate->buffer;
  const auto* init = seq->stmts[0].as<StoreNode>();
  if (init == nullptr || init->buffer != b.acc || !init->value.as<FloatImmNode>() ||
      init->value.as<FloatImmNode>()->value != 0)
    return make_error("its accumulator does not start at 0");
  Stmt sum = seq->stmts[1];
  UMA_TRY_ASSIGN(b.inner, peel_loops(sum, 3));
  const auto* update = sum.as<StoreNode>();
  const auto* add = update != nullptr ? update->value.as<AddNode>() : nullptr;
  if (update == nullptr || update->buffer != b.acc || add == nullptr ||
      !(b.is_acc(add->a) || b.is_acc(add->b)))
    return make_error("its sum does not add to the accumulator");
  const auto* mul = (b.is_acc(add->a) ? add->b : add->a).as<MulNode>();
  const LoadNode* x = mul != nullptr ? factor_load(mul->a) : nullptr;
  const LoadNode* y = mul != nullptr ? factor_load(mul->b) : nullptr;
  if (x == nullptr || y == nullptr) return make_error("its sum does not add products of loads");
  if (reads_weight(*y, b) && reads_data(*x, b)) {
    b.data = x->buffer, b.weight = y->buffer;
  } else if (reads_weight(*x, b) && reads_data(*y, b)) {
    b.data = y->buffer, b.weight = x->buffer;
  } else {
    return make_error(
        "its product is not data[n, rc, h * stride - pad + rh, ...] * weight[c, rc, rh, rw] "
        "with the block's strides and padding");
  }
  if (b.data->dtype != DType::f32 || b.weight->dtype != DType::f32)
    return make_error("its operands are not f32");

  b.store = seq->stmts[2].as<StoreNode>();
  if (b.store == nullptr || b.store->buffer != b.out || b.store->indices.size() != 4)
    return make_error("it does not store into its output %{}", b.out->name);
  for (std::size_t d = 0; d < 4; ++d)
    if (!is_index_of(b.store->indices[d], b.outer[d]))
      return make_error("it does not store out[n, c, h, w]");
  return b;
}

// Replaces reads of the accumulator by reads of the output at the store's indices.
class ReadOutput final : public Mutator {
 public:
  explicit ReadOutput(const ConvBlock& b) : b_(b) {}
  using Mutator::mutate;

 protected:
  Expr mutate(const LoadNode& op, const Expr& self) override {
    if (op.buffer != b_.acc) return Mutator::mutate(op, self);
    return LoadNode::make(b_.out, b_.store->indices);
  }

 private:
  const ConvBlock& b_;
};

// The epilogue the kernel cannot compute, as loops over the output applying it in place.
Stmt epilogue_loops(const ConvBlock& b) {
  Stmt body = StoreNode::make(b.out, ReadOutput(b).mutate(b.store->value), b.store->indices);
  for (auto loop = b.outer.rbegin(); loop != b.outer.rend(); ++loop)
    body =
        ForNode::make(loop->var, Expr(std::int64_t{0}), Expr(loop->extent), ForKind::kSerial, body);
  return body;
}

Stmt offload(const BlockNode& block, const ConvBlock& b, std::int64_t dimension) {
  std::optional<Epilogue> fused = match_epilogue(
      b.store->value, [&](const Expr& e) { return b.is_acc(e); }, b.outer[1]);
  KernelCall call{.data = b.data,
                  .weight = b.weight,
                  .result = b.out,
                  .data_shape = *constant_shape(b.data),
                  .weight_shape = *constant_shape(b.weight),
                  .strides = b.strides,
                  .padding = b.padding,
                  .epilogue = fused.value_or(Epilogue()),
                  .dimension = dimension};
  Stmt body = fused ? call.to_stmt() : SeqNode::make({call.to_stmt(), epilogue_loops(b)});
  return BlockNode::make(block.name, block.reads, block.writes, body, block.attrs);
}

class Offloader final : public Mutator {
 public:
  explicit Offloader(std::int64_t dimension) : dimension_(dimension) {}
  using Mutator::mutate;
  const std::optional<Error>& error() const { return error_; }

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) override {
    if (op.name != kBlockName) return Mutator::mutate(op, self);
    Expected<ConvBlock> conv = analyze(op);
    if (!conv) {
      if (!error_)
        error_ = conv.error().with_context(
            fmt::format("block {} is not the loop nest of a vanilla.conv2d composite", op.name));
      return self;
    }
    return offload(op, *conv, dimension_);
  }

 private:
  std::int64_t dimension_;
  std::optional<Error> error_;
};

}  // namespace

Status check_target(const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t dimension, target.get_int("dimension"));
  if (dimension < 1 || dimension > kMaxDimension)
    return make_error("dimension must be between 1 and {}, not {}", kMaxDimension, dimension);
  return Status::success();
}

Expected<tir::PrimFunc> offload_conv2d(const tir::PrimFunc& func, const Target& target) {
  UMA_TRY(check_target(target));
  UMA_TRY_ASSIGN(std::int64_t dimension, target.get_int("dimension"));
  Offloader offloader(dimension);
  Stmt body = offloader.mutate(func.body);
  if (offloader.error()) return *offloader.error();
  if (body.same_as(func.body)) return func;
  tir::PrimFunc result = func;
  result.body = body;
  return result;
}

}  // namespace uma::backends::vanilla
