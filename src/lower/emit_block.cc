// One stage as one block of loops.
#include "emit_block.h"

#include <fmt/format.h>

#include <unordered_set>

#include "uma/lower/compute_util.h"
#include "uma/tir/functor.h"
#include "uma/tir/simplify.h"

namespace uma::lower {

using namespace tir;

namespace {

using Combiner = Reduction::Combiner;

std::vector<Var> make_vars(const std::vector<std::string>& names, std::size_t count,
                           const char* prefix) {
  std::vector<Var> vars;
  vars.reserve(count);
  for (std::size_t d = 0; d < count; ++d)
    vars.push_back(VarNode::make(
        d < names.size() && !names[d].empty() ? names[d] : fmt::format("{}{}", prefix, d)));
  return vars;
}

// Loops from the outermost (vars[0]) in, over [0, extents[d]).
Stmt loop_nest(const std::vector<Var>& vars, const std::vector<std::int64_t>& extents, Stmt body) {
  for (std::size_t d = vars.size(); d-- > 0;)
    body = ForNode::make(vars[d], Expr(0), Expr(extents[d]), ForKind::kSerial, std::move(body));
  return body;
}

void add_bounds(Bounds& bounds, const std::vector<Var>& vars,
                const std::vector<std::int64_t>& extents) {
  for (std::size_t d = 0; d < vars.size(); ++d)
    bounds[vars[d].as<VarNode>()] = Interval::range(0, extents[d]);
}

std::vector<Expr> simplified(const std::vector<Var>& indices, const Bounds& bounds) {
  std::vector<Expr> out;
  for (const Expr& index : indices) out.push_back(simplify(index, bounds));
  return out;
}

Expr init_value(Combiner combiner, DType dtype) {
  switch (combiner) {
    case Combiner::kSum:
      return constant(dtype, 0);
    case Combiner::kProduct:
      return constant(dtype, 1);
    case Combiner::kMax:
      return lowest(dtype);
    case Combiner::kMin:
      return highest(dtype);
  }
  return Expr();
}

// acc combined with x. Float max and min propagate NaN (numpy's maximum): max(acc, x) keeps
// a NaN accumulator, and a NaN x is taken explicitly.
Expr combine(Combiner combiner, const Expr& acc, const Expr& x) {
  switch (combiner) {
    case Combiner::kSum:
      return acc + x;
    case Combiner::kProduct:
      return acc * x;
    case Combiner::kMax:
    case Combiner::kMin: {
      Expr pick = combiner == Combiner::kMax ? max(acc, x) : min(acc, x);
      if (!is_float(x.type().dtype)) return pick;
      if (x.as<VarNode>() != nullptr) return SelectNode::make(intrinsic("isnan", {x}), x, pick);
      // Bind x once: it is read three times.
      Var v = VarNode::make("v", x.type());
      return LetNode::make(v, x, combine(combiner, acc, v));
    }
  }
  return Expr();
}

// The buffers `body` loads from, in order of first use, leaving out `skip`.
std::vector<Buffer> loaded_buffers(const Stmt& body, const BufferNode* skip) {
  std::vector<Buffer> reads;
  std::unordered_set<const BufferNode*> seen;
  pre_order_visit(body, [&](const ExprNode* e, const StmtNode*) {
    if (e == nullptr || e->kind != ExprKind::Load) return;
    const Buffer& buffer = static_cast<const LoadNode*>(e)->buffer;
    if (buffer.get() != skip && seen.insert(buffer.get()).second) reads.push_back(buffer);
  });
  return reads;
}

// Sets a flag for its lifetime, then restores it.
class FlagScope {
 public:
  FlagScope(bool* flag, bool value) : flag_(flag), saved_(flag != nullptr && *flag) {
    if (flag_ != nullptr) *flag_ = value;
  }
  ~FlagScope() {
    if (flag_ != nullptr) *flag_ = saved_;
  }
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;

 private:
  bool* flag_;
  bool saved_;
};

}  // namespace

std::vector<Var> output_vars(const Stage& stage) {
  return make_vars(stage.axis_names, stage.shape.size(), "i");
}

Stmt emit_block(const BlockRequest& request) {
  const Stage& stage = *request.stage;
  const Buffer& target = request.target;
  UMA_CHECK(request.vars.size() == stage.shape.size(), "block {}: {} loop variables for rank {}",
            stage.name, request.vars.size(), stage.shape.size());
  Bounds bounds;
  add_bounds(bounds, request.vars, stage.shape);
  std::vector<Expr> out_indices(request.vars.begin(), request.vars.end());
  // The block storing `value` (of the loop variables `request.vars`) into the target.
  auto pointwise_block = [&](const std::string& name, const Expr& value) {
    // The epilogue was built from the graph, which reads the stage in its own type: an f16
    // reduction accumulated in f32 is rounded to f16 first, as the interpreter rounds it.
    Expr stored = request.epilogue ? request.epilogue(cast(stage.dtype, value)) : value;
    Stmt loops = loop_nest(request.vars, stage.shape,
                           StoreNode::make(target, simplify(cast(target->dtype, stored), bounds),
                                           simplified(request.vars, bounds)));
    return BlockNode::make(name, loaded_buffers(loops, nullptr), {target}, loops, stage.attrs);
  };
  if (!stage.reduction) {
    FlagScope pointwise(request.in_reduction, false);
    return pointwise_block(stage.name, stage.element(out_indices));
  }

  const Reduction& red = *stage.reduction;
  DType acc_dtype = red.accumulate_dtype.value_or(
      stage.dtype == DType::f16 || stage.dtype == DType::bf16 ? DType::f32 : stage.dtype);
  // The target is the accumulator when nothing is applied to the result (an epilogue that
  // gives back its argument, an output fused as it is, applies nothing); otherwise the
  // reduction gets loop variables of its own (a loop variable belongs to one loop).
  Var probe = VarNode::make("v", DataType::scalar(stage.dtype));
  bool no_epilogue = !request.epilogue || request.epilogue(probe).same_as(probe);
  bool direct = no_epilogue && !red.finalize && acc_dtype == target->dtype;
  Buffer acc =
      direct ? target : make_buffer(stage.name + "_acc", acc_dtype, target->shape, "global");
  std::vector<Var> svars = direct ? request.vars : output_vars(stage);
  std::vector<Var> rvars = make_vars(red.axis_names, red.extents.size(), "k");
  Bounds inner;
  add_bounds(inner, svars, stage.shape);
  add_bounds(inner, rvars, red.extents);
  std::vector<Expr> sp = simplified(svars, inner);
  Expr x;
  {
    FlagScope reducing(request.in_reduction, true);
    x = red.body(std::vector<Expr>(svars.begin(), svars.end()),
                 std::vector<Expr>(rvars.begin(), rvars.end()));
  }
  Expr update = simplify(combine(red.combiner, LoadNode::make(acc, sp), cast(acc_dtype, x)), inner);
  std::vector<IterVar> iter_vars;
  for (std::size_t d = 0; d < svars.size(); ++d)
    iter_vars.push_back(
        {svars[d].as<VarNode>()->name, Expr(stage.shape[d]), IterKind::kSpatial, svars[d]});
  for (std::size_t d = 0; d < rvars.size(); ++d)
    iter_vars.push_back(
        {rvars[d].as<VarNode>()->name, Expr(red.extents[d]), IterKind::kReduce, rvars[d]});
  Stmt loops = loop_nest(svars, stage.shape,
                         loop_nest(rvars, red.extents, StoreNode::make(acc, update, sp)));
  Stmt reduction = BlockNode::make(stage.name, loaded_buffers(loops, acc.get()), {acc}, loops,
                                   stage.attrs, std::move(iter_vars),
                                   StoreNode::make(acc, init_value(red.combiner, acc_dtype), sp));
  if (direct) return reduction;

  Expr result = LoadNode::make(acc, out_indices);
  if (red.finalize) {
    FlagScope finalizing(request.in_reduction, false);
    result = red.finalize(result, out_indices);
  }
  return AllocateNode::make(
      acc, SeqNode::make({reduction, pointwise_block(stage.name + "_epilogue", result)}));
}

Stmt emit_check_block(const Shape& shape, const std::function<Expr(const Indices&)>& failed,
                      const std::function<Expr(const Indices&)>& value, const Buffer& record,
                      std::int64_t site) {
  std::vector<Var> vars = make_vars({}, shape.size(), "i");
  Bounds bounds;
  add_bounds(bounds, vars, shape);
  Indices idx(vars.begin(), vars.end());
  Expr element = Expr(0);
  for (std::size_t d = 0; d < shape.size(); ++d) element = element * shape[d] + idx[d];
  auto store = [&](std::int64_t at, const Expr& stored) {
    return StoreNode::make(record, simplify(cast(DType::i64, stored), bounds), {Expr(at)});
  };
  // Only the first failure is kept: the message names one index, as the interpreter's does.
  Stmt first = IfThenElseNode::make(
      LoadNode::make(record, {Expr(0)}) == Expr(std::int64_t{0}),
      SeqNode::make({store(0, Expr(site)), store(1, value(idx)), store(2, element)}));
  Expr condition = simplify(failed(idx), bounds);
  // A check that cannot fail (a constant divisor not zero) costs nothing.
  if (as_const_int(condition) == std::int64_t{0}) return Stmt();
  Stmt loops = loop_nest(vars, shape, IfThenElseNode::make(condition, first));
  return BlockNode::make("check", loaded_buffers(loops, record.get()), {record}, loops, {});
}

}  // namespace uma::lower
