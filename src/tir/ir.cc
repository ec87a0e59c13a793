// The loop IR's nodes: checked constructors, operators and structural equality.
#include "uma/tir/ir.h"

#include <fmt/format.h>

#include "uma/support/error.h"

namespace uma::tir {
namespace {

bool is_int(DataType t) { return !t.handle && (is_integer(t.dtype) || t.dtype == DType::boolean); }
bool is_index(DataType t) { return !t.handle && is_integer(t.dtype); }

// An immediate takes the other operand's type, so `i * 2` works for any integer `i`.
Expr retype_immediate(const Expr& e, DataType type) {
  if (e.type() == type) return e;
  if (const auto* imm = e.as<IntImmNode>()) {
    if (is_float(type.dtype)) return FloatImmNode::make(type, static_cast<double>(imm->value));
    return IntImmNode::make(type, imm->value);
  }
  if (const auto* imm = e.as<FloatImmNode>()) {
    if (is_float(type.dtype)) return FloatImmNode::make(type, imm->value);
  }
  return e;
}

void match_types(Expr& a, Expr& b) {
  UMA_CHECK(a.defined() && b.defined(), "an operand is undefined");
  if (a.type() == b.type()) return;
  bool a_imm = a.as<IntImmNode>() || a.as<FloatImmNode>();
  bool b_imm = b.as<IntImmNode>() || b.as<FloatImmNode>();
  if (a_imm && !b_imm) a = retype_immediate(a, b.type());
  if (b_imm && !a_imm) b = retype_immediate(b, a.type());
  if (a_imm && b_imm && a.type() != b.type()) {
    // Two immediates: the float or the wider one wins.
    bool a_wins =
        is_float(a.type().dtype) ||
        (!is_float(b.type().dtype) && dtype_size(a.type().dtype) >= dtype_size(b.type().dtype));
    if (a_wins)
      b = retype_immediate(b, a.type());
    else
      a = retype_immediate(a, b.type());
  }
  UMA_CHECK(a.type() == b.type(), "operand types differ: {} and {}", to_string(a.type()),
            to_string(b.type()));
}

template <ExprKind K>
constexpr bool is_comparison() {
  return K == ExprKind::EQ || K == ExprKind::NE || K == ExprKind::LT || K == ExprKind::LE ||
         K == ExprKind::GT || K == ExprKind::GE;
}

template <ExprKind K>
constexpr bool is_logical() {
  return K == ExprKind::And || K == ExprKind::Or;
}

void check_indices(const Buffer& buffer, const std::vector<Expr>& indices) {
  UMA_CHECK(buffer != nullptr, "no buffer");
  // Before flattening: one index per dimension; after: one flat index.
  UMA_CHECK(indices.size() == buffer->shape.size() || indices.size() == 1,
            "buffer {} has {} dimension(s) but {} indices are given", buffer->name,
            buffer->shape.size(), indices.size());
  for (const Expr& index : indices)
    UMA_CHECK(index.defined() && !index.type().handle && is_integer(index.type().dtype),
              "an index of buffer {} is not an integer", buffer->name);
}

// The lanes of a load or store: those of its (vector) index.
std::uint16_t index_lanes(const std::vector<Expr>& indices) {
  std::uint16_t lanes = 1;
  for (const Expr& index : indices) lanes = std::max(lanes, index.type().lanes);
  return lanes;
}

}  // namespace

std::string to_string(DataType type) {
  if (type.handle) return "handle";
  if (type.lanes == 1) return std::string(dtype_name(type.dtype));
  return fmt::format("{}x{}", dtype_name(type.dtype), type.lanes);
}

std::string_view expr_kind_name(ExprKind kind) {
  switch (kind) {
#define UMA_TIR_NAME(k) \
  case ExprKind::k:     \
    return #k;
    UMA_FOR_EACH_TIR_EXPR(UMA_TIR_NAME)
#undef UMA_TIR_NAME
  }
  return "?";
}

std::string_view stmt_kind_name(StmtKind kind) {
  switch (kind) {
#define UMA_TIR_STMT_NAME(k) \
  case StmtKind::k:          \
    return #k;
    UMA_FOR_EACH_TIR_STMT(UMA_TIR_STMT_NAME)
#undef UMA_TIR_STMT_NAME
  }
  return "?";
}

std::string_view for_kind_name(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
  }
  return "?";
}

Expr::Expr(int value) : Expr(IntImmNode::make(DataType::scalar(DType::i64), value)) {}
Expr::Expr(std::int64_t value) : Expr(IntImmNode::make(DataType::scalar(DType::i64), value)) {}
Expr::Expr(double value) : Expr(FloatImmNode::make(DataType::scalar(DType::f32), value)) {}

Buffer make_buffer(std::string name, DType dtype, std::vector<Expr> shape, std::string scope,
                   std::vector<Expr> strides) {
  UMA_CHECK(!name.empty(), "a buffer needs a name");
  for (const Expr& dim : shape)
    UMA_CHECK(dim.defined() && is_index(dim.type()), "buffer {} has a non-integer extent", name);
  UMA_CHECK(strides.empty() || strides.size() == shape.size(), "buffer {}: {} strides for {} dims",
            name, strides.size(), shape.size());
  auto buffer = std::make_shared<BufferNode>();
  buffer->data = VarNode::make(name, DataType::pointer());
  buffer->name = std::move(name);
  buffer->dtype = dtype;
  buffer->shape = std::move(shape);
  buffer->strides = std::move(strides);
  buffer->scope = std::move(scope);
  return buffer;
}

Expr IntImmNode::make(DataType type, std::int64_t value) {
  UMA_CHECK(is_int(type), "an integer immediate of type {}", to_string(type));
  return Expr(std::make_shared<const IntImmNode>(type, value));
}

Expr FloatImmNode::make(DataType type, double value) {
  UMA_CHECK(!type.handle && is_float(type.dtype), "a float immediate of type {}", to_string(type));
  return Expr(std::make_shared<const FloatImmNode>(type, value));
}

Var VarNode::make(std::string name, DataType type) {
  UMA_CHECK(!name.empty(), "a variable needs a name");
  return Expr(std::make_shared<const VarNode>(std::move(name), type));
}

Expr CastNode::make(DataType type, Expr value) {
  UMA_CHECK(value.defined(), "cast of nothing");
  UMA_CHECK(type.lanes == value.type().lanes, "cast changes lanes: {} to {}",
            to_string(value.type()), to_string(type));
  return Expr(std::make_shared<const CastNode>(type, std::move(value)));
}

template <ExprKind K>
Expr BinaryNode<K>::make(Expr a, Expr b) {
  match_types(a, b);
  DataType type = a.type();
  UMA_CHECK(!type.handle, "{} of handles", expr_kind_name(K));
  if constexpr (is_logical<K>())
    UMA_CHECK(type.dtype == DType::boolean, "{} of {}", expr_kind_name(K), to_string(type));
  if constexpr (is_comparison<K>()) type = DataType::vector(DType::boolean, type.lanes);
  return Expr(std::make_shared<const BinaryNode<K>>(type, std::move(a), std::move(b)));
}

#define UMA_TIR_INSTANTIATE(k) template struct BinaryNode<ExprKind::k>;
UMA_FOR_EACH_TIR_BINARY(UMA_TIR_INSTANTIATE)
#undef UMA_TIR_INSTANTIATE

Expr NotNode::make(Expr a) {
  UMA_CHECK(a.defined() && !a.type().handle && a.type().dtype == DType::boolean,
            "logical not of a non-bool");
  DataType type = a.type();
  return Expr(std::make_shared<const NotNode>(type, std::move(a)));
}

Expr SelectNode::make(Expr condition, Expr true_value, Expr false_value) {
  UMA_CHECK(condition.defined() && condition.type().dtype == DType::boolean,
            "select on a non-bool condition");
  match_types(true_value, false_value);
  DataType type = true_value.type();
  UMA_CHECK(condition.type().lanes == 1 || condition.type().lanes == type.lanes,
            "select's condition has {} lanes, its values {}", condition.type().lanes, type.lanes);
  return Expr(std::make_shared<const SelectNode>(type, std::move(condition), std::move(true_value),
                                                 std::move(false_value)));
}

Expr LoadNode::make(Buffer buffer, std::vector<Expr> indices) {
  check_indices(buffer, indices);
  DataType type = DataType::vector(buffer->dtype, index_lanes(indices));
  return Expr(std::make_shared<const LoadNode>(type, std::move(buffer), std::move(indices)));
}

Expr RampNode::make(Expr base, Expr stride, std::uint16_t lanes) {
  match_types(base, stride);
  UMA_CHECK(base.type().is_scalar() && is_index(base.type()), "ramp of {}", to_string(base.type()));
  UMA_CHECK(lanes > 1, "a ramp needs at least 2 lanes, not {}", lanes);
  DataType type = base.type().with_lanes(lanes);
  return Expr(std::make_shared<const RampNode>(type, std::move(base), std::move(stride), lanes));
}

Expr BroadcastNode::make(Expr value, std::uint16_t lanes) {
  UMA_CHECK(value.defined() && value.type().is_scalar(), "broadcast of a non-scalar");
  UMA_CHECK(lanes > 1, "a broadcast needs at least 2 lanes, not {}", lanes);
  DataType type = value.type().with_lanes(lanes);
  return Expr(std::make_shared<const BroadcastNode>(type, std::move(value), lanes));
}

Expr CallNode::make(DataType type, std::string name, std::vector<Expr> args, CallKind call_kind) {
  UMA_CHECK(!name.empty(), "a call needs a name");
  for (const Expr& arg : args) UMA_CHECK(arg.defined(), "an argument of {} is undefined", name);
  return Expr(std::make_shared<const CallNode>(type, std::move(name), std::move(args), call_kind));
}

Expr LetNode::make(Var var, Expr value, Expr body) {
  UMA_CHECK(var.as<VarNode>() != nullptr, "let binds a non-variable");
  UMA_CHECK(value.defined() && body.defined(), "let with an undefined part");
  UMA_CHECK(var.type() == value.type(), "let binds {} to a {} value", to_string(var.type()),
            to_string(value.type()));
  DataType type = body.type();
  return Expr(
      std::make_shared<const LetNode>(type, std::move(var), std::move(value), std::move(body)));
}

Expr AddressNode::make(Buffer buffer, std::vector<Expr> indices) {
  check_indices(buffer, indices);
  return Expr(std::make_shared<const AddressNode>(std::move(buffer), std::move(indices)));
}

Stmt LetStmtNode::make(Var var, Expr value, Stmt body) {
  UMA_CHECK(var.as<VarNode>() != nullptr, "let binds a non-variable");
  UMA_CHECK(value.defined() && body.defined(), "let with an undefined part");
  UMA_CHECK(var.type() == value.type(), "let binds {} to a {} value", to_string(var.type()),
            to_string(value.type()));
  return Stmt(
      std::make_shared<const LetStmtNode>(std::move(var), std::move(value), std::move(body)));
}

Stmt ForNode::make(Var var, Expr min, Expr extent, ForKind for_kind, Stmt body) {
  UMA_CHECK(var.as<VarNode>() != nullptr && is_index(var.type()),
            "a loop variable must be an "
            "integer variable");
  min = retype_immediate(min, var.type());
  extent = retype_immediate(extent, var.type());
  UMA_CHECK(min.type() == var.type() && extent.type() == var.type(),
            "loop {}: bounds must have the variable's type {}", var.as<VarNode>()->name,
            to_string(var.type()));
  UMA_CHECK(body.defined(), "loop without a body");
  return Stmt(std::make_shared<const ForNode>(std::move(var), std::move(min), std::move(extent),
                                              for_kind, std::move(body)));
}

Stmt IfThenElseNode::make(Expr condition, Stmt then_case, Stmt else_case) {
  UMA_CHECK(condition.defined() && condition.type() == DataType::scalar(DType::boolean),
            "if on a non-bool condition");
  UMA_CHECK(then_case.defined(), "if without a then-case");
  return Stmt(std::make_shared<const IfThenElseNode>(std::move(condition), std::move(then_case),
                                                     std::move(else_case)));
}

Stmt StoreNode::make(Buffer buffer, Expr value, std::vector<Expr> indices) {
  check_indices(buffer, indices);
  UMA_CHECK(value.defined(), "store of nothing into {}", buffer->name);
  value = retype_immediate(value, DataType::vector(buffer->dtype, value.type().lanes));
  UMA_CHECK(value.type().dtype == buffer->dtype && value.type().lanes == index_lanes(indices),
            "store of {} into {} buffer {} with {}-lane indices", to_string(value.type()),
            dtype_name(buffer->dtype), buffer->name, index_lanes(indices));
  return Stmt(
      std::make_shared<const StoreNode>(std::move(buffer), std::move(value), std::move(indices)));
}

Stmt AllocateNode::make(Buffer buffer, Stmt body) {
  UMA_CHECK(buffer != nullptr && body.defined(), "allocate with an undefined part");
  return Stmt(std::make_shared<const AllocateNode>(std::move(buffer), std::move(body)));
}

Stmt SeqNode::make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    UMA_CHECK(s.defined(), "an undefined statement in a sequence");
    if (const auto* seq = s.as<SeqNode>())
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    else
      flat.push_back(std::move(s));
  }
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<const SeqNode>(std::move(flat)));
}

Stmt EvaluateNode::make(Expr value) {
  UMA_CHECK(value.defined(), "evaluate of nothing");
  return Stmt(std::make_shared<const EvaluateNode>(std::move(value)));
}

std::string_view iter_kind_name(IterKind kind) {
  return kind == IterKind::kSpatial ? "spatial" : "reduce";
}

Stmt BlockNode::make(std::string name, std::vector<Buffer> reads, std::vector<Buffer> writes,
                     Stmt body, AttrMap attrs, std::vector<IterVar> iter_vars, Stmt init) {
  UMA_CHECK(!name.empty(), "a block needs a name");
  UMA_CHECK(body.defined(), "block {} has no body", name);
  for (const IterVar& iv : iter_vars)
    UMA_CHECK(iv.extent.defined() && iv.binding.defined(),
              "block {}: iteration variable '{}' needs an extent and a binding", name, iv.name);
  return Stmt(std::make_shared<const BlockNode>(
      std::move(name), std::move(reads), std::move(writes), std::move(body), std::move(attrs),
      std::move(iter_vars), std::move(init)));
}

Expr operator+(Expr a, Expr b) { return AddNode::make(std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return SubNode::make(std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return MulNode::make(std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return DivNode::make(std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return ModNode::make(std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return MinNode::make(std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return MaxNode::make(std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return LTNode::make(std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return LENode::make(std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return GTNode::make(std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return GENode::make(std::move(a), std::move(b)); }
Expr operator==(Expr a, Expr b) { return EQNode::make(std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return NENode::make(std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return AndNode::make(std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return OrNode::make(std::move(a), std::move(b)); }
Expr operator!(Expr a) { return NotNode::make(std::move(a)); }

std::optional<std::int64_t> as_const_int(const Expr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

namespace {

bool equal_all(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!equal(a[i], b[i])) return false;
  return true;
}

template <ExprKind K>
bool equal_binary(const Expr& a, const Expr& b) {
  const auto* x = a.as<BinaryNode<K>>();
  const auto* y = b.as<BinaryNode<K>>();
  return equal(x->a, y->a) && equal(x->b, y->b);
}

}  // namespace

bool equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind() || a.type() != b.type()) return false;
  switch (a.kind()) {
    case ExprKind::IntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm: {
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return x == y || (x != x && y != y);  // NaN equals NaN structurally
    }
    case ExprKind::Var:
      return false;  // variables are equal only when identical (same_as above)
    case ExprKind::Cast:
      return equal(a.as<CastNode>()->value, b.as<CastNode>()->value);
#define UMA_TIR_EQUAL_BINARY(k) \
  case ExprKind::k:             \
    return equal_binary<ExprKind::k>(a, b);
      UMA_FOR_EACH_TIR_BINARY(UMA_TIR_EQUAL_BINARY)
#undef UMA_TIR_EQUAL_BINARY
    case ExprKind::Not:
      return equal(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return equal(x->condition, y->condition) && equal(x->true_value, y->true_value) &&
             equal(x->false_value, y->false_value);
    }
    case ExprKind::Load: {
      const auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      return x->buffer == y->buffer && equal_all(x->indices, y->indices);
    }
    case ExprKind::Ramp: {
      const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
      return x->lanes == y->lanes && equal(x->base, y->base) && equal(x->stride, y->stride);
    }
    case ExprKind::Broadcast: {
      const auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
      return x->lanes == y->lanes && equal(x->value, y->value);
    }
    case ExprKind::Call: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->name == y->name && x->call_kind == y->call_kind && equal_all(x->args, y->args);
    }
    case ExprKind::Let: {
      const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
      return x->var.same_as(y->var) && equal(x->value, y->value) && equal(x->body, y->body);
    }
    case ExprKind::Address: {
      const auto *x = a.as<AddressNode>(), *y = b.as<AddressNode>();
      return x->buffer == y->buffer && equal_all(x->indices, y->indices);
    }
  }
  return false;
}

}  // namespace uma::tir
