// The kernel call and the loop-IR shapes around it (see conv2d_call.h).
#include "backends/vanilla/conv2d_call.h"

#include <fmt/format.h>

#include <cmath>

#include "backends/vanilla/vanilla.h"
#include "uma/tir/printer.h"

namespace uma::backends::vanilla {

using namespace tir;

namespace {

Expr null_handle() { return CastNode::make(DataType::pointer(), Expr(std::int64_t{0})); }

bool is_null_handle(const Expr& e) {
  const auto* cast = e.as<CastNode>();
  return cast != nullptr && cast->type.handle && as_const_int(cast->value) == std::int64_t{0};
}

std::optional<double> f32_constant(const Expr& e) {
  const auto* imm = e.as<FloatImmNode>();
  if (imm == nullptr || imm->type != DataType::scalar(DType::f32)) return std::nullopt;
  return imm->value;
}

Expr f32(double value) { return FloatImmNode::make(DataType::scalar(DType::f32), value); }

Expr address(const Buffer& buffer) {
  return AddressNode::make(buffer, std::vector<Expr>(buffer->shape.size(), Expr(std::int64_t{0})));
}

// A per-channel bias: buffer[...] with one value per output channel, read at channel c (a
// dimension of size 1 may be read at any index lowering gives it: only 0 is in bounds).
std::optional<Expr> channel_bias(const Expr& e, const Loop& channel) {
  const auto* load = e.as<LoadNode>();
  if (load == nullptr || load->buffer->dtype != DType::f32) return std::nullopt;
  std::optional<Ints> shape = constant_shape(load->buffer);
  if (!shape || shape->size() != load->indices.size()) return std::nullopt;
  bool at_channel = channel.extent == 1;
  for (std::size_t d = 0; d < shape->size(); ++d) {
    if ((*shape)[d] == 1) continue;
    if (at_channel || (*shape)[d] != channel.extent || !equal(load->indices[d], channel.var))
      return std::nullopt;
    at_channel = true;
  }
  if (!at_channel) return std::nullopt;
  return address(load->buffer);
}

}  // namespace

Expected<std::vector<Loop>> peel_loops(Stmt& s, std::size_t count) {
  std::vector<Loop> loops;
  for (std::size_t i = 0; i < count; ++i) {
    const auto* loop = s.as<ForNode>();
    if (loop == nullptr) return make_error("expected {} nested loops, found {}", count, i);
    std::optional<std::int64_t> extent = as_const_int(loop->extent);
    if (as_const_int(loop->min) != std::int64_t{0} || !extent)
      return make_error("loop '{}' does not run from 0 to a constant", to_string(loop->var));
    loops.push_back({loop->var, *extent});
    s = loop->body;
  }
  return loops;
}

std::optional<Ints> constant_shape(const Buffer& buffer) {
  Ints shape;
  for (const Expr& dim : buffer->shape) {
    std::optional<std::int64_t> d = as_const_int(dim);
    if (!d) return std::nullopt;
    shape.push_back(*d);
  }
  return shape;
}

bool is_index_of(const Expr& index, const Loop& loop) {
  return equal(index, loop.var) || (loop.extent == 1 && as_const_int(index) == std::int64_t{0});
}

Epilogue::Epilogue() : bias(null_handle()) {}

bool Epilogue::has_bias() const { return !is_null_handle(bias); }

bool Epilogue::has_clamp() const {
  return !(std::isinf(act_min) && act_min < 0 && std::isinf(act_max) && act_max > 0);
}

std::optional<Epilogue> match_epilogue(const Expr& value,
                                       const std::function<bool(const Expr&)>& is_sum,
                                       const Loop& channel) {
  Epilogue epilogue;
  Expr x = value;
  if (const auto* m = x.as<MinNode>(); m != nullptr && f32_constant(m->b))
    epilogue.act_max = *f32_constant(m->b), x = m->a;
  if (const auto* m = x.as<MaxNode>(); m != nullptr && f32_constant(m->b))
    epilogue.act_min = *f32_constant(m->b), x = m->a;
  if (is_sum(x)) return epilogue;
  const auto* add = x.as<AddNode>();
  if (add == nullptr) return std::nullopt;
  bool sum_first = is_sum(add->a);
  if (!sum_first && !is_sum(add->b)) return std::nullopt;
  std::optional<Expr> bias = channel_bias(sum_first ? add->b : add->a, channel);
  if (!bias) return std::nullopt;
  epilogue.bias = *bias;
  return epilogue;
}

Stmt KernelCall::to_stmt() const {
  std::vector<Expr> args = {
      address(data),         address(weight),       address(result),       Expr(weight_shape[0]),
      Expr(data_shape[3]),   Expr(data_shape[2]),   Expr(data_shape[1]),   Expr(weight_shape[2]),
      Expr(weight_shape[3]), Expr(strides[0]),      Expr(strides[1]),      Expr(padding[0]),
      Expr(padding[1]),      Expr(padding[2]),      Expr(padding[3]),      Expr(data_shape[0]),
      epilogue.bias,         f32(epilogue.act_min), f32(epilogue.act_max), Expr(dimension)};
  return EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), std::string(kKernelName),
                                           std::move(args), CallNode::CallKind::kExtern));
}

std::optional<KernelCall> KernelCall::from_stmt(const Stmt& s) {
  const auto* evaluate = s.as<EvaluateNode>();
  const auto* call = evaluate != nullptr ? evaluate->value.as<CallNode>() : nullptr;
  if (call == nullptr || call->name != kKernelName || call->args.size() != 20) return std::nullopt;
  const std::vector<Expr>& args = call->args;
  KernelCall k;
  auto buffer = [&](std::size_t i) {
    const auto* a = args[i].as<AddressNode>();
    return a != nullptr ? a->buffer : nullptr;
  };
  auto ints = [&](std::initializer_list<std::size_t> at, Ints& out) {
    for (std::size_t i : at) {
      std::optional<std::int64_t> v = as_const_int(args[i]);
      if (!v) return false;
      out.push_back(*v);
    }
    return true;
  };
  k.data = buffer(0), k.weight = buffer(1), k.result = buffer(2);
  Ints dimension;
  std::optional<double> act_min = f32_constant(args[17]), act_max = f32_constant(args[18]);
  if (!k.data || !k.weight || !k.result || !ints({15, 6, 5, 4}, k.data_shape) ||
      !ints({3, 6, 7, 8}, k.weight_shape) || !ints({9, 10}, k.strides) ||
      !ints({11, 12, 13, 14}, k.padding) || !ints({19}, dimension) || !act_min || !act_max)
    return std::nullopt;
  k.epilogue.bias = args[16];
  k.epilogue.act_min = *act_min;
  k.epilogue.act_max = *act_max;
  k.dimension = dimension[0];
  return k;
}

}  // namespace uma::backends::vanilla
