// Expressions of the loop IR as C expressions, with only the parentheses C needs.
#include <fmt/format.h>

#include "c_types.h"
#include "function_printer.h"
#include "intrinsics.h"
#include "uma/tir/array.h"
#include "uma/tir/dma.h"
#include "uma/tir/functor.h"

namespace uma::codegen {

using namespace tir;
using namespace prec;

namespace {

std::string wrap(const std::string& text, int prec, int min_prec) {
  return prec >= min_prec ? text : "(" + text + ")";
}

// Whether the C expression printed for `e` has e's own C type. Literals are int, and so
// is arithmetic on literals only: an i64 operation between two of them needs a cast.
bool carries_type(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::IntImm:
      return false;
    case ExprKind::Add:
      return carries_type(e.as<AddNode>()->a) || carries_type(e.as<AddNode>()->b);
    case ExprKind::Sub:
      return carries_type(e.as<SubNode>()->a) || carries_type(e.as<SubNode>()->b);
    case ExprKind::Mul:
      return carries_type(e.as<MulNode>()->a) || carries_type(e.as<MulNode>()->b);
    case ExprKind::Select:
      return carries_type(e.as<SelectNode>()->true_value) ||
             carries_type(e.as<SelectNode>()->false_value);
    default:
      return true;
  }
}

bool is_narrow_int(DType dtype) {
  return is_integer(dtype) && dtype_size(dtype) < 4;  // C computes these in int
}

bool is_signed_int(DType dtype) { return is_integer(dtype) && !is_unsigned(dtype); }

bool positive_constant(const Expr& e) {
  auto value = as_const_int(e);
  return value && *value > 0;
}

std::string_view binary_op(ExprKind kind) {
  switch (kind) {
    case ExprKind::Add:
      return "+";
    case ExprKind::Sub:
      return "-";
    case ExprKind::Mul:
      return "*";
    case ExprKind::Div:
      return "/";
    case ExprKind::Mod:
      return "%";
    case ExprKind::EQ:
      return "==";
    case ExprKind::NE:
      return "!=";
    case ExprKind::LT:
      return "<";
    case ExprKind::LE:
      return "<=";
    case ExprKind::GT:
      return ">";
    case ExprKind::GE:
      return ">=";
    case ExprKind::And:
      return "&&";
    case ExprKind::Or:
      return "||";
    default:
      return "?";
  }
}

int binary_prec(ExprKind kind) {
  switch (kind) {
    case ExprKind::Add:
    case ExprKind::Sub:
      return kAdd;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
      return kMul;
    case ExprKind::EQ:
    case ExprKind::NE:
      return kEquality;
    case ExprKind::And:
      return kLogicalAnd;
    case ExprKind::Or:
      return kLogicalOr;
    default:
      return kRelational;
  }
}

}  // namespace

void FunctionPrinter::fail(Error error) {
  if (!error_) error_ = error.with_context(fmt::format("function '{}'", func_.name));
}

bool FunctionPrinter::nonneg(const Expr& e) const {
  DataType type = e.type();
  if (type.handle || is_float(type.dtype)) return false;
  if (is_unsigned(type.dtype) || type.dtype == DType::boolean) return true;
  switch (e.kind()) {
    case ExprKind::IntImm:
      return e.as<IntImmNode>()->value >= 0;
    case ExprKind::Var: {
      auto it = vars_.find(e.as<VarNode>());
      return it != vars_.end() && !it->second.empty() && it->second.back().nonneg;
    }
    case ExprKind::Add:
      return nonneg(e.as<AddNode>()->a) && nonneg(e.as<AddNode>()->b);
    case ExprKind::Mul:
      return nonneg(e.as<MulNode>()->a) && nonneg(e.as<MulNode>()->b);
    case ExprKind::Div:
      return nonneg(e.as<DivNode>()->a) && positive_constant(e.as<DivNode>()->b);
    case ExprKind::Mod:
      return positive_constant(e.as<ModNode>()->b);  // floor modulo by b > 0 is in [0, b)
    case ExprKind::Min:
      return nonneg(e.as<MinNode>()->a) && nonneg(e.as<MinNode>()->b);
    case ExprKind::Max:
      return nonneg(e.as<MaxNode>()->a) || nonneg(e.as<MaxNode>()->b);
    case ExprKind::Select:
      return nonneg(e.as<SelectNode>()->true_value) && nonneg(e.as<SelectNode>()->false_value);
    case ExprKind::Ramp:
      return nonneg(e.as<RampNode>()->base) && nonneg(e.as<RampNode>()->stride);
    case ExprKind::Broadcast:
      return nonneg(e.as<BroadcastNode>()->value);
    case ExprKind::Cast: {
      // Only a widening cast keeps the value.
      const Expr& value = e.as<CastNode>()->value;
      return !value.type().handle && is_integer(value.type().dtype) &&
             dtype_size(value.type().dtype) <= dtype_size(type.dtype) && nonneg(value);
    }
    default:
      return false;
  }
}

std::string FunctionPrinter::operand(const Expr& e, int min_prec, const Expr* other) {
  // A literal next to another literal-only operand is cast so the operation happens in the
  // IR's type, not in int.
  if (const auto* imm = e.as<IntImmNode>()) {
    bool typed = other != nullptr && !carries_type(*other);
    std::string literal = int_literal(e.type(), imm->value, typed);
    return wrap(literal, imm->value < 0 || typed ? kUnary : kPrimary, min_prec);
  }
  Printed p = expr(e);
  return wrap(p.text, p.prec, min_prec);
}

FunctionPrinter::Printed FunctionPrinter::expr(const Expr& e) {
  if (e.type().lanes > 1 && !in_lane_) {
    fail(make_error("a {} expression ({}) outside a vectorized store or let", to_string(e.type()),
                    expr_kind_name(e.kind())));
    return {"0", kPrimary};
  }
  switch (e.kind()) {
    case ExprKind::IntImm: {
      std::int64_t value = e.as<IntImmNode>()->value;
      return {int_literal(e.type(), value, false), value < 0 ? kUnary : kPrimary};
    }
    case ExprKind::FloatImm: {
      std::string literal = float_literal(e.type(), e.as<FloatImmNode>()->value);
      return {literal, literal[0] == '-' || literal[0] == '(' ? kUnary : kPrimary};
    }
    case ExprKind::Var:
      return var(*e.as<VarNode>());
    case ExprKind::Cast:
      return cast(*e.as<CastNode>());
#define UMA_C_BINARY(k) \
  case ExprKind::k:     \
    return binary(*e.as<k##Node>(), e);
      UMA_C_BINARY(Add)
      UMA_C_BINARY(Sub)
      UMA_C_BINARY(Mul)
      UMA_C_BINARY(Div)
      UMA_C_BINARY(Mod)
      UMA_C_BINARY(Min)
      UMA_C_BINARY(Max)
      UMA_C_BINARY(EQ)
      UMA_C_BINARY(NE)
      UMA_C_BINARY(LT)
      UMA_C_BINARY(LE)
      UMA_C_BINARY(GT)
      UMA_C_BINARY(GE)
      UMA_C_BINARY(And)
      UMA_C_BINARY(Or)
#undef UMA_C_BINARY
    case ExprKind::Not:
      return {"!" + operand(e.as<NotNode>()->a, kUnary), kUnary};
    case ExprKind::Select: {
      const auto& op = *e.as<SelectNode>();
      std::string condition = operand(op.condition, kLogicalOr);
      ++conditional_;
      std::string t = operand(op.true_value, kConditional, &op.false_value);
      std::string f = operand(op.false_value, kConditional, &op.true_value);
      --conditional_;
      return {fmt::format("{} ? {} : {}", condition, t, f), kConditional};
    }
    case ExprKind::Load:
      return load(*e.as<LoadNode>());
    case ExprKind::Ramp: {
      // One lane of base, base + stride, ...
      const auto& op = *e.as<RampNode>();
      std::string step = as_const_int(op.stride) == 1
                             ? "uma_lane"
                             : fmt::format("uma_lane * {}", operand(op.stride, kMul + 1));
      if (as_const_int(op.base) == 0) return {step, as_const_int(op.stride) == 1 ? kPrimary : kMul};
      return {fmt::format("{} + {}", operand(op.base, kAdd), step), kAdd};
    }
    case ExprKind::Broadcast:
      return expr(e.as<BroadcastNode>()->value);
    case ExprKind::Call:
      return call(*e.as<CallNode>());
    case ExprKind::Let:
      return let(*e.as<LetNode>());
    case ExprKind::Address: {
      const auto& op = *e.as<AddressNode>();
      if (!find_buffer(op.buffer, "addressed")) return {"0", kPrimary};
      return {fmt::format("&{}[{}]", base(op.buffer), offset(op.buffer, op.indices).text), kUnary};
    }
  }
  return {"0", kPrimary};
}

template <typename Node>
FunctionPrinter::Printed FunctionPrinter::binary(const Node& op, const Expr& self) {
  constexpr ExprKind kind = Node::kKind;
  DType dtype = op.a.type().dtype;
  std::string_view suffix = helper_suffix(dtype);
  auto helper_call = [&](std::string name) -> Printed {
    unit_.helpers.use(name);
    return {fmt::format("{}({}, {})", name, operand(op.a, kConditional, &op.b),
                        operand(op.b, kConditional, &op.a)),
            kPrimary};
  };
  Printed result;
  if constexpr (kind == ExprKind::Min || kind == ExprKind::Max) {
    result = helper_call(fmt::format("uma_{}_{}", kind == ExprKind::Min ? "min" : "max", suffix));
  } else if constexpr (kind == ExprKind::Div || kind == ExprKind::Mod) {
    // Floats divide truly and take the floor modulo; signed integers take floor division
    // and modulo, which C's / and % (truncating) give only for a >= 0 and b > 0.
    bool is_div = kind == ExprKind::Div;
    if (is_float(dtype) && !is_div) {
      result = helper_call(fmt::format("uma_floormod_{}", suffix));
    } else if (is_signed_int(dtype) && !(nonneg(op.a) && positive_constant(op.b))) {
      result = helper_call(fmt::format("uma_floor{}_{}", is_div ? "div" : "mod", suffix));
    }
  } else if constexpr (kind == ExprKind::And || kind == ExprKind::Or) {
    // The right operand is evaluated only when needed.
    std::string a = operand(op.a, binary_prec(kind));
    ++conditional_;
    std::string b = operand(op.b, binary_prec(kind) + 1);
    --conditional_;
    return {fmt::format("{} {} {}", a, binary_op(kind), b), binary_prec(kind)};
  }
  if (result.text.empty()) {
    int prec = binary_prec(kind);
    result = {fmt::format("{} {} {}", operand(op.a, prec, &op.b), binary_op(kind),
                          operand(op.b, prec + 1, &op.a)),
              prec};
  }
  // Narrow integers are computed in int: bring the result back to the IR's type.
  if (is_narrow_int(self.type().dtype))
    result = {fmt::format("({}){}", value_type(self.type().dtype),
                          wrap(result.text, result.prec, kUnary)),
              kUnary};
  return result;
}

FunctionPrinter::Printed FunctionPrinter::cast(const CastNode& op) {
  DataType to = op.type, from = op.value.type();
  if (to.handle) return {"(void*)" + operand(op.value, kUnary), kUnary};
  if (from.handle) {
    fail(make_error("cast of a handle to {}", to_string(to)));
    return {"0", kPrimary};
  }
  if (to.dtype == DType::boolean) {
    if (from.dtype == DType::boolean) return expr(op.value);
    return {operand(op.value, kRelational) + " != 0", kEquality};
  }
  if (to.dtype == DType::f16 || to.dtype == DType::bf16) {
    if (from.dtype == to.dtype) return expr(op.value);
    std::string helper = to.dtype == DType::f16 ? "uma_round_f16" : "uma_round_bf16";
    unit_.helpers.use(helper);
    std::string value;
    if (value_type(from.dtype) == std::string_view("float")) {
      value = text(op.value);
    } else if (from.dtype == DType::f64 || dtype_size(from.dtype) >= 4) {
      // Rounding a double (or an integer of more than 24 bits) to float to nearest and
      // then to the 16-bit format can round twice in the same direction; rounding to odd
      // first gives the correctly rounded result, as uma's own conversions do.
      unit_.helpers.use("uma_f64_to_f32_odd");
      value = fmt::format("uma_f64_to_f32_odd({})", from.dtype == DType::f64
                                                        ? text(op.value)
                                                        : "(double)" + operand(op.value, kUnary));
    } else {
      value = "(float)" + operand(op.value, kUnary);
    }
    return {fmt::format("{}({})", helper, value), kPrimary};
  }
  if (value_type(to.dtype) == value_type(from.dtype)) return expr(op.value);
  return {fmt::format("({}){}", value_type(to.dtype), operand(op.value, kUnary)), kUnary};
}

const FunctionPrinter::BufferInfo* FunctionPrinter::find_buffer(const Buffer& buffer,
                                                                std::string_view use) {
  auto it = buffers_.find(buffer->data.as<VarNode>());
  if (it != buffers_.end()) return &it->second;
  fail(make_error("buffer '{}' is {} but is neither a parameter nor allocated", buffer->name, use));
  return nullptr;
}

std::string FunctionPrinter::base(const Buffer& buffer) {
  const BufferInfo& info = buffers_.at(buffer->data.as<VarNode>());
  if (storage_type(info.dtype) == storage_type(buffer->dtype) && info.vector_lanes == 0)
    return info.name;
  return fmt::format("(({}*){})", storage_type(buffer->dtype), info.name);
}

FunctionPrinter::Printed FunctionPrinter::offset(const Buffer& buffer,
                                                 const std::vector<Expr>& indices) {
  auto term = [&](const Expr& index, const Expr& scale) -> Printed {
    if (as_const_int(scale) == 1) return expr(index);
    return {fmt::format("{} * {}", operand(index, kMul), operand(scale, kMul + 1)), kMul};
  };
  auto sum = [&](const Printed& a, const Printed& b) -> Printed {
    return {fmt::format("{} + {}", wrap(a.text, a.prec, kAdd), wrap(b.text, b.prec, kAdd + 1)),
            kAdd};
  };
  // No index: the one element of a rank-0 buffer (a scalar).
  if (indices.empty()) return {"0", kPrimary};
  // One index: a flat offset, unless it indexes a strided 1-d buffer.
  if (indices.size() == 1 && !(buffer->shape.size() == 1 && !buffer->strides.empty()))
    return expr(indices[0]);
  if (!buffer->strides.empty()) {
    Printed result = term(indices[0], buffer->strides[0]);
    for (std::size_t k = 1; k < indices.size(); ++k)
      result = sum(result, term(indices[k], buffer->strides[k]));
    return result;
  }
  // Row-major: ((i0 * s1 + i1) * s2 + i2) ..., with the constant part folded while the
  // offset so far is constant (so &a[0][1] prints as &a[1]).
  auto first = as_const_int(indices[0]);
  bool is_constant = first.has_value();
  std::int64_t constant = first.value_or(0);
  Printed result = expr(indices[0]);
  for (std::size_t k = 1; k < indices.size(); ++k) {
    auto extent = as_const_int(buffer->shape[k]), index = as_const_int(indices[k]);
    std::int64_t folded = 0;
    if (is_constant && extent && index && !__builtin_mul_overflow(constant, *extent, &folded) &&
        !__builtin_add_overflow(folded, *index, &folded)) {
      constant = folded;
      result = {int_literal(DataType::scalar(DType::i64), folded, false),
                folded < 0 ? kUnary : kPrimary};
      continue;
    }
    bool was_zero = is_constant && constant == 0;
    is_constant = false;
    if (was_zero) {
      result = expr(indices[k]);
      continue;
    }
    Printed scaled{fmt::format("{} * {}", wrap(result.text, result.prec, kMul),
                               operand(buffer->shape[k], kMul + 1)),
                   kMul};
    result = sum(scaled, expr(indices[k]));
  }
  return result;
}

FunctionPrinter::Printed FunctionPrinter::load(const LoadNode& op) {
  if (!find_buffer(op.buffer, "read")) return {"0", kPrimary};
  std::string element = fmt::format("{}[{}]", base(op.buffer), offset(op.buffer, op.indices).text);
  switch (op.buffer->dtype) {
    case DType::f16:
      unit_.helpers.use("uma_f16_to_f32");
      return {fmt::format("uma_f16_to_f32({})", element), kPrimary};
    case DType::bf16:
      unit_.helpers.use("uma_bf16_to_f32");
      return {fmt::format("uma_bf16_to_f32({})", element), kPrimary};
    case DType::boolean:
      return {element + " != 0", kEquality};
    default:
      return {element, kPrimary};
  }
}

FunctionPrinter::Printed FunctionPrinter::var(const VarNode& op) {
  // A buffer's data variable is the buffer's pointer.
  if (auto buffer = buffers_.find(&op); buffer != buffers_.end())
    return {buffer->second.name, kPrimary};
  auto it = vars_.find(&op);
  if (it == vars_.end() || it->second.empty()) {
    fail(make_error("variable '{}' is used but never bound", op.name));
    return {"0", kPrimary};
  }
  const VarInfo& info = it->second.back();
  if (info.lane_array) return {info.name + "[uma_lane]", kPrimary};
  return {info.name, kPrimary};
}

FunctionPrinter::Printed FunctionPrinter::call(const CallNode& op) {
  if (op.call_kind == CallNode::CallKind::kIntrinsic && op.name == kArrayIntrinsic)
    return array(op);
  if (op.call_kind == CallNode::CallKind::kIntrinsic) return intrinsic(op);
  return extern_call(op);
}

// A compound literal: its storage lasts to the end of the enclosing block, so for the whole
// call that takes it.
FunctionPrinter::Printed FunctionPrinter::array(const CallNode& op) {
  if (op.args.empty()) {
    fail(make_error("an array of no elements"));
    return {"0", kPrimary};
  }
  DataType element = op.args[0].type();
  std::string elements;
  for (const Expr& arg : op.args) {
    if (arg.type() != element || element.lanes != 1) {
      fail(make_error("an array's elements are {} and {}; they must be scalars of one type",
                      to_string(element), to_string(arg.type())));
      return {"0", kPrimary};
    }
    if (!elements.empty()) elements += ", ";
    elements += operand(arg, kConditional);
  }
  return {fmt::format("({}[]){{{}}}", c_type(element), elements), kPrimary};
}

FunctionPrinter::Printed FunctionPrinter::intrinsic(const CallNode& op) {
  const Intrinsic* intrinsic = find_intrinsic(op.name);
  if (intrinsic == nullptr) {
    fail(make_error("unknown intrinsic '{}'", op.name));
    return {"0", kPrimary};
  }
  if (op.args.size() != intrinsic->num_args) {
    fail(make_error("intrinsic '{}' takes {} argument(s), not {}", op.name, intrinsic->num_args,
                    op.args.size()));
    return {"0", kPrimary};
  }
  DataType arg_type = op.args[0].type();
  bool is_float_arg = !arg_type.handle && is_float(arg_type.dtype);
  bool takes = !arg_type.handle;
  if (intrinsic->takes == IntrinsicArgs::kFloats) takes &= is_float_arg;
  if (intrinsic->takes == IntrinsicArgs::kIntegers) takes &= is_integer(arg_type.dtype);
  if (!takes) {
    fail(make_error("intrinsic '{}' of a {} argument", op.name, to_string(arg_type)));
    return {"0", kPrimary};
  }
  std::string args;
  for (const Expr& arg : op.args) {
    if (!args.empty()) args += ", ";
    args += operand(arg, kConditional);
  }
  bool is_f64 = arg_type.dtype == DType::f64;
  if (!intrinsic->vector_f32.empty() && is_float_arg && !is_f64 && !unit_.options.precise_math) {
    unit_.helpers.use(intrinsic->vector_f32);
    return {fmt::format("{}({})", intrinsic->vector_f32, args), kPrimary};
  }
  std::string name;
  switch (intrinsic->form) {
    case IntrinsicForm::kLibm:
      if (is_float_arg) {
        name = fmt::format("{}{}", intrinsic->c_name, is_f64 ? "" : "f");
      } else {
        name = fmt::format("uma_{}_{}", intrinsic->c_name, helper_suffix(arg_type.dtype));
        unit_.helpers.use(name);
      }
      break;
    case IntrinsicForm::kHelper:
      name = fmt::format("uma_{}_{}", intrinsic->c_name, helper_suffix(arg_type.dtype));
      unit_.helpers.use(name);
      break;
    case IntrinsicForm::kMacro:
      name = std::string(intrinsic->c_name);
      break;
    case IntrinsicForm::kAbs:
      if (is_float_arg) {
        name = is_f64 ? "fabs" : "fabsf";
      } else if (is_unsigned(arg_type.dtype) || arg_type.dtype == DType::boolean) {
        return expr(op.args[0]);
      } else {
        name = fmt::format("uma_abs_{}", helper_suffix(arg_type.dtype));
        unit_.helpers.use(name);
      }
      break;
  }
  std::string text = fmt::format("{}({})", name, args);
  // Helpers of narrow integers compute in int: bring the result back to the IR's type.
  if (is_narrow_int(op.type.dtype))
    return {fmt::format("({}){}", value_type(op.type.dtype), text), kUnary};
  return {text, kPrimary};
}

FunctionPrinter::Printed FunctionPrinter::extern_call(const CallNode& op) {
  const CCodegenHooks& hooks = unit_.options.hooks;
  if (hooks.print_extern_call) {
    CExprPrinter printer = [this](const Expr& e) { return text(e); };
    if (auto printed = hooks.print_extern_call(op, printer)) return {*printed, kConditional};
  }
  // The core's DMA functions (lower-dma's default) are helpers of the generator.
  bool helper = op.name == kCoreDmaStart || op.name == kCoreDmaWait;
  if (helper) unit_.helpers.use(op.name);
  std::string args, prototype_args;
  for (const Expr& arg : op.args) {
    if (!args.empty()) args += ", ", prototype_args += ", ";
    args += operand(arg, kConditional);
    prototype_args += c_type(arg.type().element());
  }
  // Names that a standard header already declares, or macros of a backend's header, get
  // no prototype of ours.
  if (hooks.declare_externs && !helper && !is_reserved_name(op.name)) {
    std::string prototype = fmt::format("{} {}({});", c_type(op.type.element()), op.name,
                                        prototype_args.empty() ? "void" : prototype_args);
    auto [it, inserted] = unit_.extern_prototypes.emplace(op.name, prototype);
    if (!inserted && it->second != prototype)
      fail(make_error("extern function '{}' is called with different types: '{}' and '{}'", op.name,
                      it->second, prototype));
  }
  return {fmt::format("{}({})", op.name, args), kPrimary};
}

FunctionPrinter::Printed FunctionPrinter::let(const LetNode& op) {
  // A let inside a branch that runs conditionally is substituted, so its value (a load,
  // say) is computed only where the branch would compute it. Elsewhere it is hoisted into
  // a declaration before the statement.
  if (conditional_ > 0) return expr(substitute(op.body, {{op.var.as<VarNode>(), op.value}}));
  std::string value = text(op.value);
  std::string name = bind(op.var, nonneg(op.value));
  prelude_.push_back(fmt::format("{} = {};", const_declaration(op.value.type(), name), value));
  Printed body = expr(op.body);
  unbind(op.var);
  return body;
}

}  // namespace uma::codegen
