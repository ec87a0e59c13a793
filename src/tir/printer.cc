// Printing the loop IR in its text form (docs/loop-ir.md).
#include "uma/tir/printer.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "../graph/lexer.h"
#include "uma/tir/functor.h"

namespace uma::tir {
namespace {

bool is_c_identifier(std::string_view name) {
  auto is_start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (name.empty() || !is_start(name[0])) return false;
  for (char c : name)
    if (!is_start(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

// A name made a C identifier: bytes other than letters and digits become '_', and a
// leading digit gets a '_' in front.
std::string sanitize(std::string_view name) {
  std::string out;
  for (char c : name)
    out += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(0, "_");
  return out;
}

// Unsigned immediates hold their bits in an int64_t.
bool is_unsigned_integer(DType dtype) { return is_integer(dtype) && dtype_name(dtype)[0] == 'u'; }

// The suffix of a float literal of each type: 1.5f (f32), 1.5d (f64), 1.5h (f16), 1.5bf.
std::string_view float_suffix(DType dtype) {
  if (dtype == DType::f16) return "h";
  if (dtype == DType::bf16) return "bf";
  return dtype_size(dtype) == 8 ? "d" : "f";
}

// Words a variable may not print as, because a literal is spelled that way.
bool is_reserved(std::string_view name) {
  if (name == "true" || name == "false" || name == "let" || name == "in") return true;
  for (std::string_view special : {"nan", "inf"}) {
    if (name.substr(0, 3) != special) continue;
    std::string_view suffix = name.substr(3);
    if (suffix.empty() || suffix == "f" || suffix == "d" || suffix == "h" || suffix == "bf")
      return true;
  }
  return false;
}

// Names an intrinsic may not print as bare, because a built-in form is spelled that way:
// casts (f32(x)), broadcasts (x8(v)), ramp, select, min, max.
bool is_builtin_form(std::string_view name) {
  if (name == "ramp" || name == "select" || name == "min" || name == "max") return true;
  if (name.size() > 1 && name[0] == 'x' &&
      name.find_first_not_of("0123456789", 1) == std::string_view::npos)
    return true;
  std::string_view element = name.substr(0, name.find('x'));
  return parse_dtype(element).has_value();
}

// A function, block or callee name: bare when it is a C identifier, quoted otherwise.
std::string spell_global(std::string_view name) {
  return is_c_identifier(name) ? std::string(name) : text::quote(name);
}

template <typename T>
std::string shortest(T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string out(buffer, result.ptr);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string format_float(DataType type, double value) {
  std::string_view suffix = float_suffix(type.dtype);
  if (std::isnan(value)) return fmt::format("nan{}", suffix);
  if (std::isinf(value)) return fmt::format("{}inf{}", value < 0 ? "-" : "", suffix);
  // Each type prints the shortest text that reads back to its own precision.
  std::string digits =
      dtype_size(type.dtype) == 8 ? shortest(value) : shortest(static_cast<float>(value));
  return digits + std::string(suffix);
}

// Binding strength, C's order; 8 is an atom (literal, name, call, load, ...).
int precedence(ExprKind kind) {
  switch (kind) {
    case ExprKind::Or:
      return 1;
    case ExprKind::And:
      return 2;
    case ExprKind::EQ:
    case ExprKind::NE:
      return 3;
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return 4;
    case ExprKind::Add:
    case ExprKind::Sub:
      return 5;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
      return 6;
    case ExprKind::Not:
      return 7;
    default:
      return 8;
  }
}

std::string_view infix(ExprKind kind) {
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
      return "";
  }
}

// Finds the buffers below a node, so that a buffer's data variable prints as the buffer
// even when it is met before the buffer itself.
class BufferCollector final : public Visitor {
 public:
  using Visitor::visit;
  std::unordered_map<const VarNode*, const BufferNode*> by_data;

  void add(const Buffer& buffer) {
    if (buffer != nullptr && buffer->data.as<VarNode>() != nullptr)
      by_data.emplace(buffer->data.as<VarNode>(), buffer.get());
  }

 protected:
  void visit_buffer(const Buffer& buffer) override {
    add(buffer);
    if (buffer != nullptr) Visitor::visit_buffer(buffer);
  }
  void visit(const BlockNode& op) override {
    for (const Buffer& b : op.reads) add(b);
    for (const Buffer& b : op.writes) add(b);
    Visitor::visit(op);
  }
};

class Printer {
 public:
  explicit Printer(std::ostream& os) : os_(os) {}

  // Collects the buffers below the nodes about to be printed.
  void scan(const Expr& e) { buffers_.visit(e); }
  void scan(const Stmt& s) { buffers_.visit(s); }
  void scan(const Buffer& b) { buffers_.add(b); }

  void print_function(const PrimFunc& func) {
    os_ << "func @" << spell_global(func.name) << '(';
    std::size_t num_inputs = std::min(func.num_inputs, func.params.size());
    for (std::size_t i = 0; i < num_inputs; ++i) {
      if (i) os_ << ", ";
      print_buffer_decl(func.params[i]);
    }
    os_ << ") -> (";
    for (std::size_t i = num_inputs; i < func.params.size(); ++i) {
      if (i > num_inputs) os_ << ", ";
      print_buffer_decl(func.params[i]);
    }
    os_ << ')';
    print_attrs(func.attrs);
    os_ << " {\n";
    indent_ = 1;
    print(func.body);
    os_ << "}";
    // Load-time code after the body it prepares for.
    for (const auto& [keyword, code] : {std::pair{"init", &func.init}, {"fini", &func.fini}}) {
      if (!code->defined()) continue;
      os_ << " " << keyword << " {\n";
      indent_ = 1;
      print(*code);
      os_ << "}";
    }
    os_ << "\n";
  }

  void print(const Expr& e, int min_precedence = 0) {
    if (!e.defined()) {
      os_ << "<undefined>";
      return;
    }
    int p = precedence(e.kind());
    if (p < min_precedence) os_ << '(';
    switch (e.kind()) {
#define UMA_TIR_PRINT_EXPR(k)     \
  case ExprKind::k:               \
    print_node(*e.as<k##Node>()); \
    break;
      UMA_FOR_EACH_TIR_EXPR(UMA_TIR_PRINT_EXPR)
#undef UMA_TIR_PRINT_EXPR
    }
    if (p < min_precedence) os_ << ')';
  }

  void print(const Stmt& s) {
    if (!s.defined()) {
      line() << "<undefined>\n";
      return;
    }
    switch (s.kind()) {
#define UMA_TIR_PRINT_STMT(k)     \
  case StmtKind::k:               \
    print_node(*s.as<k##Node>()); \
    break;
      UMA_FOR_EACH_TIR_STMT(UMA_TIR_PRINT_STMT)
#undef UMA_TIR_PRINT_STMT
    }
  }

 private:
  // ---- Names ----

  static std::string unique(std::string_view raw, std::unordered_set<std::string>& used) {
    std::string base = sanitize(raw);
    std::string name = base;
    for (int n = 1; used.count(name) || is_reserved(name); ++n)
      name = fmt::format("{}_{}", base, n);
    used.insert(name);
    return name;
  }

  const std::string& var_name(const VarNode& var) {
    auto it = var_names_.find(&var);
    if (it == var_names_.end()) it = var_names_.emplace(&var, unique(var.name, used_vars_)).first;
    return it->second;
  }

  std::string buffer_name(const BufferNode* buffer) {
    if (buffer == nullptr) return "%<null>";
    auto it = buffer_names_.find(buffer);
    if (it == buffer_names_.end())
      it = buffer_names_.emplace(buffer, unique(buffer->name, used_buffers_)).first;
    return "%" + it->second;
  }
  std::string buffer_name(const Buffer& buffer) { return buffer_name(buffer.get()); }

  // ---- Pieces ----

  std::ostream& line() {
    for (int i = 0; i < indent_; ++i) os_ << "  ";
    return os_;
  }

  void print_list(const std::vector<Expr>& items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) os_ << ", ";
      print(items[i]);
    }
  }

  // %name: f32[4, n] strides [n, 1] in "sram"
  void print_buffer_decl(const Buffer& buffer) {
    os_ << buffer_name(buffer) << ": ";
    if (buffer == nullptr) return;
    os_ << dtype_name(buffer->dtype) << '[';
    print_list(buffer->shape);
    os_ << ']';
    if (!buffer->strides.empty()) {
      os_ << " strides [";
      print_list(buffer->strides);
      os_ << ']';
    }
    if (buffer->scope != "global") os_ << " in " << text::quote(buffer->scope);
  }

  void print_access(const Buffer& buffer, const std::vector<Expr>& indices) {
    os_ << buffer_name(buffer) << '[';
    print_list(indices);
    os_ << ']';
  }

  void print_attrs(const AttrMap& attrs) {
    if (attrs.empty()) return;
    os_ << " attributes {";
    const char* separator = "";
    for (const auto& [name, value] : attrs) {
      os_ << separator << spell_global(name) << " = ";
      print_attr(value);
      separator = ", ";
    }
    os_ << '}';
  }

  template <typename T, typename F>
  void print_attr_list(const std::vector<T>& items, F&& format) {
    os_ << '[';
    for (std::size_t i = 0; i < items.size(); ++i) os_ << (i ? ", " : "") << format(items[i]);
    os_ << ']';
  }

  void print_attr(const Attribute& value) {
    auto as_float = [](double x) { return shortest(x); };
    switch (attr_kind(value)) {
      case AttrKind::Int:
        os_ << std::get<std::int64_t>(value);
        break;
      case AttrKind::Float:
        os_ << as_float(std::get<double>(value));
        break;
      case AttrKind::String:
        os_ << text::quote(std::get<std::string>(value));
        break;
      case AttrKind::Ints:
        print_attr_list(std::get<std::vector<std::int64_t>>(value), [](auto x) { return x; });
        break;
      case AttrKind::Floats:
        print_attr_list(std::get<std::vector<double>>(value), as_float);
        break;
      case AttrKind::Strings:
        print_attr_list(std::get<std::vector<std::string>>(value),
                        [](const std::string& x) { return text::quote(x); });
        break;
      case AttrKind::Tensor: {
        // The loop IR does not carry weights; a tensor attribute shows its type only.
        const TensorPtr& tensor = std::get<TensorPtr>(value);
        os_ << (tensor == nullptr ? std::string("<<null tensor>>") : to_string(tensor->type()));
        break;
      }
    }
  }

  // ---- Expressions ----

  void print_node(const IntImmNode& op) {
    DataType element = op.type.element();
    if (op.type.lanes > 1) os_ << to_string(op.type) << '(';
    if (element.dtype == DType::boolean)
      os_ << (op.value != 0 ? "true" : "false");
    else if (is_unsigned_integer(element.dtype))
      os_ << static_cast<std::uint64_t>(op.value) << dtype_name(element.dtype);
    else
      os_ << op.value << (element.dtype == DType::i64 ? "" : dtype_name(element.dtype));
    if (op.type.lanes > 1) os_ << ')';
  }

  void print_node(const FloatImmNode& op) {
    if (op.type.lanes > 1) os_ << to_string(op.type) << '(';
    os_ << format_float(op.type, op.value);
    if (op.type.lanes > 1) os_ << ')';
  }

  void print_node(const VarNode& op) {
    // A buffer's data variable is the buffer's address: it prints as the buffer.
    auto it = buffers_.by_data.find(&op);
    if (it != buffers_.by_data.end())
      os_ << buffer_name(it->second);
    else
      os_ << var_name(op);
  }

  void print_node(const CastNode& op) {
    os_ << to_string(op.type) << '(';
    print(op.value);
    os_ << ')';
  }

  template <ExprKind K>
  void print_node(const BinaryNode<K>& op) {
    if constexpr (K == ExprKind::Min || K == ExprKind::Max) {
      os_ << (K == ExprKind::Min ? "min(" : "max(");
      print(op.a);
      os_ << ", ";
      print(op.b);
      os_ << ')';
    } else {
      int p = precedence(K);
      // Left-associative; the operands of a comparison are never bare comparisons, so
      // (a < b) == (c < d) reads as it means.
      bool comparison = p == 3 || p == 4;
      print(op.a, comparison ? 5 : p);
      os_ << ' ' << infix(K) << ' ';
      print(op.b, comparison ? 5 : p + 1);
    }
  }

  void print_node(const NotNode& op) {
    os_ << '!';
    print(op.a, precedence(ExprKind::Not));
  }

  void print_node(const SelectNode& op) {
    os_ << "select(";
    print_list({op.condition, op.true_value, op.false_value});
    os_ << ')';
  }

  void print_node(const LoadNode& op) { print_access(op.buffer, op.indices); }

  void print_node(const RampNode& op) {
    os_ << "ramp(";
    print_list({op.base, op.stride});
    os_ << ", " << op.lanes << ')';
  }

  void print_node(const BroadcastNode& op) {
    os_ << 'x' << op.lanes << '(';
    print(op.value);
    os_ << ')';
  }

  void print_node(const CallNode& op) {
    if (op.call_kind == CallNode::CallKind::kExtern)
      os_ << "@extern " << spell_global(op.name);
    else
      os_ << (is_builtin_form(op.name) || !is_c_identifier(op.name) ? text::quote(op.name)
                                                                    : op.name);
    // The result type shows when it is not the first argument's.
    if (op.args.empty() || !op.args[0].defined() || op.args[0].type() != op.type)
      os_ << '<' << to_string(op.type) << '>';
    os_ << '(';
    print_list(op.args);
    os_ << ')';
  }

  void print_node(const LetNode& op) {
    os_ << "(let ";
    print(op.var);
    os_ << " = ";
    print(op.value);
    os_ << " in ";
    print(op.body);
    os_ << ')';
  }

  void print_node(const AddressNode& op) {
    os_ << '&';
    print_access(op.buffer, op.indices);
  }

  // ---- Statements ----

  void open_body(const Stmt& body) {
    os_ << " {\n";
    ++indent_;
    print(body);
    --indent_;
    line() << "}\n";
  }

  void print_node(const LetStmtNode& op) {
    line() << "let ";
    print(op.var);
    os_ << " = ";
    print(op.value);
    open_body(op.body);
  }

  void print_node(const ForNode& op) {
    line();
    if (op.for_kind != ForKind::kSerial) os_ << for_kind_name(op.for_kind) << ' ';
    os_ << "for (";
    print_list({op.var, op.min, op.extent});
    os_ << ')';
    open_body(op.body);
  }

  void print_node(const IfThenElseNode& op) {
    line() << "if (";
    print(op.condition);
    os_ << ") {\n";
    ++indent_;
    print(op.then_case);
    --indent_;
    if (op.else_case.defined()) {
      line() << "} else {\n";
      ++indent_;
      print(op.else_case);
      --indent_;
    }
    line() << "}\n";
  }

  void print_node(const StoreNode& op) {
    line();
    print_access(op.buffer, op.indices);
    os_ << " = ";
    print(op.value);
    os_ << '\n';
  }

  void print_node(const AllocateNode& op) {
    line() << "allocate ";
    print_buffer_decl(op.buffer);
    open_body(op.body);
  }

  void print_node(const SeqNode& op) {
    for (const Stmt& s : op.stmts) print(s);
  }

  void print_node(const EvaluateNode& op) {
    line();
    print(op.value);
    os_ << '\n';
  }

  void print_node(const BlockNode& op) {
    line() << "block " << spell_global(op.name) << '(';
    auto buffers = [&](std::string_view label, const std::vector<Buffer>& list) {
      os_ << label << ": ";
      for (std::size_t i = 0; i < list.size(); ++i) os_ << (i ? ", " : "") << buffer_name(list[i]);
    };
    if (!op.reads.empty()) buffers("reads", op.reads);
    if (!op.reads.empty() && !op.writes.empty()) os_ << "; ";
    if (!op.writes.empty()) buffers("writes", op.writes);
    os_ << ')';
    // iters {n: spatial(1) = n, rc: reduce(3) = rc_outer * 4 + rc_inner}
    if (!op.iter_vars.empty()) {
      os_ << " iters {";
      for (std::size_t i = 0; i < op.iter_vars.size(); ++i) {
        const IterVar& iv = op.iter_vars[i];
        os_ << (i ? ", " : "") << sanitize(iv.name) << ": " << iter_kind_name(iv.kind) << '(';
        print(iv.extent);
        os_ << ") = ";
        print(iv.binding);
      }
      os_ << '}';
    }
    print_attrs(op.attrs);
    os_ << " {\n";
    ++indent_;
    if (op.init.defined()) {
      line() << "init";
      open_body(op.init);
    }
    print(op.body);
    --indent_;
    line() << "}\n";
  }

  std::ostream& os_;
  int indent_ = 0;
  BufferCollector buffers_;
  std::unordered_map<const VarNode*, std::string> var_names_;
  std::unordered_map<const BufferNode*, std::string> buffer_names_;
  std::unordered_set<std::string> used_vars_, used_buffers_;
};

}  // namespace

std::string to_string(const Expr& e) {
  std::ostringstream os;
  Printer printer(os);
  printer.scan(e);
  printer.print(e);
  return os.str();
}

std::string to_string(const Stmt& s) {
  std::ostringstream os;
  Printer printer(os);
  printer.scan(s);
  printer.print(s);
  return os.str();
}

void print(std::ostream& os, const PrimFunc& func) {
  Printer printer(os);
  for (const Buffer& param : func.params) printer.scan(param);
  printer.scan(func.body);
  if (func.init.defined()) printer.scan(func.init);
  if (func.fini.defined()) printer.scan(func.fini);
  printer.print_function(func);
}

std::string to_string(const PrimFunc& func) {
  std::ostringstream os;
  print(os, func);
  return os.str();
}

}  // namespace uma::tir
