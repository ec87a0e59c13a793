// Vector expressions of the loop IR as whole GCC vectors: a store or let whose value is
// built from contiguous loads, splats, arithmetic, min/max and fma prints as one vector
// statement, with no lane loop; anything else keeps the lane loop of stmt_printer.cc.
#include <fmt/format.h>

#include "c_types.h"
#include "function_printer.h"
#include "uma/tir/functor.h"
#include "uma/tir/simplify.h"
#include "vector_types.h"

namespace uma::codegen {

using namespace tir;
using namespace prec;

namespace {

// The indices of the first lane of a contiguous access (one ramp of stride 1 in the
// innermost index, all others scalar), or nothing.
std::optional<std::vector<Expr>> contiguous_start(const Buffer& buffer,
                                                  const std::vector<Expr>& indices) {
  if (indices.empty()) return std::nullopt;
  for (std::size_t k = 0; k + 1 < indices.size(); ++k)
    if (indices[k].type().lanes != 1) return std::nullopt;
  const auto* ramp = indices.back().as<RampNode>();
  if (ramp == nullptr || as_const_int(ramp->stride) != 1) return std::nullopt;
  if (!buffer->strides.empty() &&
      (indices.size() != buffer->strides.size() || as_const_int(buffer->strides.back()) != 1))
    return std::nullopt;
  std::vector<Expr> start = indices;
  start.back() = ramp->base;
  return start;
}

// The row-major element offset of `indices` into a dense buffer.
Expr flat_offset(const Buffer& buffer, const std::vector<Expr>& indices) {
  if (indices.size() == 1) return indices[0];
  Expr offset = indices[0];
  for (std::size_t k = 1; k < indices.size(); ++k) offset = offset * buffer->shape[k] + indices[k];
  return offset;
}

// e / n when every term of `e` is a multiple of n by its form (constants, products with a
// constant factor); nothing otherwise.
std::optional<Expr> exact_quotient(const Expr& e, std::int64_t n) {
  if (auto value = as_const_int(e)) {
    if (*value % n != 0) return std::nullopt;
    return IntImmNode::make(e.type(), *value / n);
  }
  if (const auto* add = e.as<AddNode>()) {
    auto a = exact_quotient(add->a, n), b = exact_quotient(add->b, n);
    if (a && b) return *a + *b;
    return std::nullopt;
  }
  if (const auto* sub = e.as<SubNode>()) {
    auto a = exact_quotient(sub->a, n), b = exact_quotient(sub->b, n);
    if (a && b) return *a - *b;
    return std::nullopt;
  }
  if (const auto* mul = e.as<MulNode>()) {
    for (auto [factor, other] : {std::pair{&mul->b, &mul->a}, std::pair{&mul->a, &mul->b}}) {
      if (auto q = exact_quotient(*factor, n)) return *other * *q;
    }
  }
  return std::nullopt;
}

// The scalar a condition is in every lane: itself when it is a scalar, the broadcast value
// of a broadcast; undefined otherwise.
Expr lane_invariant(const Expr& condition) {
  if (condition.type().lanes == 1) return condition;
  if (const auto* broadcast = condition.as<BroadcastNode>()) return broadcast->value;
  return Expr();
}

}  // namespace

Expr FunctionPrinter::vector_index(const Buffer& buffer, const std::vector<Expr>& start) const {
  const BufferInfo& info = buffers_.at(buffer->data.as<VarNode>());
  return simplify(*exact_quotient(flat_offset(buffer, start), info.vector_lanes));
}

int FunctionPrinter::vector_array_lanes(const AllocateNode& op) const {
  const Buffer& buffer = op.buffer;
  const auto* data = buffer->data.as<VarNode>();
  if (!buffer->strides.empty()) return 0;
  int lanes = 0;
  bool ok = true;
  auto access = [&](DataType type, const std::vector<Expr>& indices) {
    if (!has_vector_type(type) || type.dtype != buffer->dtype || (lanes && type.lanes != lanes)) {
      ok = false;
      return;
    }
    lanes = type.lanes;
    auto start = contiguous_start(buffer, indices);
    ok &= start && exact_quotient(flat_offset(buffer, *start), lanes).has_value();
  };
  pre_order_visit(op.body, [&](const ExprNode* e, const StmtNode* s) {
    if (!ok) return;
    if (e != nullptr && e->kind == ExprKind::Load) {
      const auto& load = *static_cast<const LoadNode*>(e);
      if (load.buffer->data.as<VarNode>() == data) access(load.type, load.indices);
    } else if (e != nullptr && e->kind == ExprKind::Address) {
      ok &= static_cast<const AddressNode*>(e)->buffer->data.as<VarNode>() != data;
    } else if (e != nullptr && e->kind == ExprKind::Var) {
      ok &= e != data;  // the buffer's pointer handed on
    } else if (s != nullptr && s->kind == StmtKind::Store) {
      const auto& store = *static_cast<const StoreNode*>(s);
      if (store.buffer->data.as<VarNode>() == data) access(store.value.type(), store.indices);
    }
  });
  std::int64_t elements = 1;
  for (const Expr& dim : buffer->shape) elements *= as_const_int(dim).value_or(0);
  return ok && lanes > 0 && elements % lanes == 0 ? lanes : 0;
}

bool FunctionPrinter::vector_form(const Expr& e) const {
  DataType type = e.type();
  if (!has_vector_type(type)) return false;
  auto both = [&](const Expr& a, const Expr& b) { return vector_form(a) && vector_form(b); };
  switch (e.kind()) {
    case ExprKind::Load: {
      // Contiguous: one vector load; else gathered lane by lane into a vector first.
      const auto& op = *e.as<LoadNode>();
      auto it = buffers_.find(op.buffer->data.as<VarNode>());
      return it != buffers_.end() && op.buffer->dtype == type.dtype &&
             (it->second.vector_lanes == 0 || contiguous_start(op.buffer, op.indices));
    }
    case ExprKind::Broadcast:
      return e.as<BroadcastNode>()->value.type().lanes == 1;
    case ExprKind::Var: {
      auto it = vars_.find(e.as<VarNode>());
      return it != vars_.end() && !it->second.empty() && it->second.back().vector_value;
    }
    case ExprKind::Add:
      return both(e.as<AddNode>()->a, e.as<AddNode>()->b);
    case ExprKind::Sub:
      return both(e.as<SubNode>()->a, e.as<SubNode>()->b);
    case ExprKind::Mul:
      return both(e.as<MulNode>()->a, e.as<MulNode>()->b);
    case ExprKind::Div:  // integers divide with floor, which C's vector `/` does not
      return is_float(type.dtype) && both(e.as<DivNode>()->a, e.as<DivNode>()->b);
    case ExprKind::Min:
      return both(e.as<MinNode>()->a, e.as<MinNode>()->b);
    case ExprKind::Max:
      return both(e.as<MaxNode>()->a, e.as<MaxNode>()->b);
    case ExprKind::Select: {
      // One condition for every lane (a padded read): a choice between two vectors.
      const auto& op = *e.as<SelectNode>();
      return lane_invariant(op.condition).defined() && both(op.true_value, op.false_value);
    }
    case ExprKind::Call: {
      const auto& op = *e.as<CallNode>();
      if (op.call_kind != CallNode::CallKind::kIntrinsic) return false;
      if (is_vector_sigmoid(op)) return vector_form(op.args[0]);
      if (op.name != "fma" || !is_float(type.dtype) || op.args.size() != 3) return false;
      for (const Expr& arg : op.args)
        if (!vector_form(arg)) return false;
      return true;
    }
    default:
      return false;
  }
}

FunctionPrinter::Printed FunctionPrinter::vector_expr(const Expr& e) {
  DataType type = e.type();
  auto helper_call = [&](VectorHelper helper, const std::vector<Expr>& args) -> Printed {
    std::string text = use_vector_helper(unit_.helpers, helper, type) + "(";
    for (std::size_t k = 0; k < args.size(); ++k)
      text += (k ? ", " : "") + vector_expr(args[k]).text;
    return {text + ")", kPrimary};
  };
  auto infix = [&](std::string_view op, int prec, const Expr& a, const Expr& b) -> Printed {
    Printed left = vector_expr(a), right = vector_expr(b);
    auto wrap = [](const Printed& p, int min) {
      return p.prec >= min ? p.text : "(" + p.text + ")";
    };
    return {fmt::format("{} {} {}", wrap(left, prec), op, wrap(right, prec + 1)), prec};
  };
  switch (e.kind()) {
    case ExprKind::Load: {
      const auto& op = *e.as<LoadNode>();
      auto contiguous = contiguous_start(op.buffer, op.indices);
      if (!contiguous) return gather(e);
      const std::vector<Expr>& start = *contiguous;
      const BufferInfo& info = buffers_.at(op.buffer->data.as<VarNode>());
      if (info.vector_lanes > 0)
        return {fmt::format("{}[{}]", info.name, text(vector_index(op.buffer, start))), kPrimary};
      return {
          fmt::format("{}(&{}[{}])", use_vector_helper(unit_.helpers, VectorHelper::kLoad, type),
                      base(op.buffer), offset(op.buffer, start).text),
          kPrimary};
    }
    case ExprKind::Broadcast:
      return {fmt::format("{}({})", use_vector_helper(unit_.helpers, VectorHelper::kSplat, type),
                          text(e.as<BroadcastNode>()->value)),
              kPrimary};
    case ExprKind::Var:
      return {vars_.at(e.as<VarNode>()).back().name, kPrimary};
    case ExprKind::Add:
      return infix("+", kAdd, e.as<AddNode>()->a, e.as<AddNode>()->b);
    case ExprKind::Sub:
      return infix("-", kAdd, e.as<SubNode>()->a, e.as<SubNode>()->b);
    case ExprKind::Mul:
      return infix("*", kMul, e.as<MulNode>()->a, e.as<MulNode>()->b);
    case ExprKind::Div:
      return infix("/", kMul, e.as<DivNode>()->a, e.as<DivNode>()->b);
    case ExprKind::Min:
      return helper_call(VectorHelper::kMin, {e.as<MinNode>()->a, e.as<MinNode>()->b});
    case ExprKind::Max:
      return helper_call(VectorHelper::kMax, {e.as<MaxNode>()->a, e.as<MaxNode>()->b});
    case ExprKind::Select: {
      // C's ?: evaluates only the chosen vector: a padded read stays in bounds.
      const auto& op = *e.as<SelectNode>();
      Printed condition = expr(lane_invariant(op.condition));
      Printed a = vector_expr(op.true_value), b = vector_expr(op.false_value);
      auto wrap = [](const Printed& p, int min) {
        return p.prec >= min ? p.text : "(" + p.text + ")";
      };
      return {fmt::format("{} ? {} : {}", wrap(condition, kLogicalOr), wrap(a, kLogicalOr),
                          wrap(b, kConditional)),
              kConditional};
    }
    case ExprKind::Call: {
      const auto& op = *e.as<CallNode>();
      if (!is_vector_sigmoid(op)) return helper_call(VectorHelper::kFma, op.args);
      return {fmt::format("{}({})", use_vector_sigmoid(unit_.helpers, type),
                          vector_expr(op.args[0]).text),
              kPrimary};
    }
    default:
      fail(make_error("a {} expression has no vector form", expr_kind_name(e.kind())));
      return {"0", kPrimary};
  }
}

bool FunctionPrinter::is_vector_sigmoid(const CallNode& op) const {
  return op.name == "sigmoid" && !unit_.options.precise_math && op.args.size() == 1 &&
         op.type.dtype == DType::f32 && op.args[0].type().dtype == DType::f32;
}

FunctionPrinter::Printed FunctionPrinter::gather(const Expr& load) {
  in_lane_ = true;
  std::string element = expr(load).text;
  in_lane_ = false;
  // The generator's own namespace: no name from the IR can take it.
  std::string name = fmt::format("uma_gather{}", gathers_++);
  prelude_.push_back(fmt::format("{} {};", use_vector_type(unit_.helpers, load.type()), name));
  prelude_.push_back(
      fmt::format("for (int64_t uma_lane = 0; uma_lane < {}; ++uma_lane) {}[uma_lane] = {};",
                  load.type().lanes, name, element));
  return {name, kPrimary};
}

bool FunctionPrinter::vector_statement(const StoreNode& op, CodeWriter& out) {
  if (op.buffer->dtype != op.value.type().dtype || !vector_form(op.value)) return false;
  auto start = contiguous_start(op.buffer, op.indices);
  if (!start && buffers_.at(op.buffer->data.as<VarNode>()).vector_lanes > 0) return false;
  std::string value = vector_expr(op.value).text;
  if (!start) {
    // Scattered: the whole value first, as a vector store computes it, then lane by lane.
    in_lane_ = true;
    std::string offset_text = offset(op.buffer, op.indices).text;
    in_lane_ = false;
    flush_prelude(out);
    out.open("");
    out.line(fmt::format("const {} uma_value = {};",
                         use_vector_type(unit_.helpers, op.value.type()), value));
    out.line("#pragma GCC ivdep");
    out.open(fmt::format("for (int64_t uma_lane = 0; uma_lane < {}; ++uma_lane)",
                         op.value.type().lanes));
    out.line(fmt::format("{}[{}] = uma_value[uma_lane];", base(op.buffer), offset_text));
    out.close();
    out.close();
    return true;
  }
  const BufferInfo& info = buffers_.at(op.buffer->data.as<VarNode>());
  if (info.vector_lanes > 0) {
    std::string index = text(vector_index(op.buffer, *start));
    flush_prelude(out);
    out.line(fmt::format("{}[{}] = {};", info.name, index, value));
    return true;
  }
  std::string address = offset(op.buffer, *start).text;
  flush_prelude(out);
  out.line(fmt::format("{}(&{}[{}], {});",
                       use_vector_helper(unit_.helpers, VectorHelper::kStore, op.value.type()),
                       base(op.buffer), address, value));
  return true;
}

}  // namespace uma::codegen
