// Parsing the graph IR's text form (docs/graph-text-format.md): recursive descent over
// the tokens of lexer.h.
//
// A call's result types are its callee's declared ones, and a constant's type is that
// of its tensor, which may sit in the data section at the end of the text. So the
// parser reads the text twice: first the declarations (function signatures and data
// entries, skipping bodies by their braces), then each function's body. An error in a
// declaration is therefore reported before one in an earlier body.
#include "uma/graph/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "lexer.h"
#include "uma/graph/builder.h"
// The op registry, reached through the module's context.
#include "uma/uma/context.h"

namespace uma {
namespace {

using text::Position;
using text::Token;
using text::TokenKind;

// Tuple types are the only recursive syntax; hostile input must not exhaust the stack.
// Inferred types obey the same limit, so that every printed type parses back.
constexpr int kMaxTypeNesting = 64;

// How many tensor and tuple types inference may create in all: `tuple(%a, %a)` doubles
// its operand's type, so a few lines could otherwise ask for gigabytes. Generous for
// real text, whose types are mostly written out in it.
constexpr std::size_t kTypeNodesPerByte = 4;
constexpr std::size_t kMinTypeNodes = std::size_t{1} << 16;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<std::uint64_t> to_unsigned(std::string_view digits) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::string_view kind_description(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
      return "an integer";
    case AttrKind::Float:
      return "a float";
    case AttrKind::String:
      return "a string";
    case AttrKind::Ints:
      return "a list of integers";
    case AttrKind::Floats:
      return "a list of floats";
    case AttrKind::Strings:
      return "a list of strings";
    case AttrKind::Tensor:
      return "a tensor";
  }
  return "an attribute value";
}

bool is_list_kind(AttrKind kind) {
  return kind == AttrKind::Ints || kind == AttrKind::Floats || kind == AttrKind::Strings;
}

// A local name as printed, for messages: %x, %0 or %"a b".
std::string spell_local(const Token& name) {
  if (is_digit(name.spelling[1])) return std::string(name.spelling);
  return "%" + text::spell_name(text::name_of(name));
}

std::string spell_global(std::string_view name) { return "@" + text::spell_name(name); }

// A name defined in a function: a parameter, or a node whose results are %name#i.
struct Definition {
  Value* param = nullptr;
  Node* node = nullptr;
  std::size_t num_results() const { return param != nullptr ? 1 : node->num_results(); }
  Value* result(std::size_t i) const { return param != nullptr ? param : node->result(i); }
};

// The local names of one function. Numbered and named values live apart: a value
// named "0" prints as %"0" and must not be confused with %0.
class Scope {
 public:
  static bool is_numbered(const Token& name) { return is_digit(name.spelling[1]); }

  const Definition* find(const Token& name) const {
    const auto& map = is_numbered(name) ? numbered_ : named_;
    auto it = map.find(key(name));
    return it == map.end() ? nullptr : &it->second;
  }
  void define(const Token& name, Definition definition) {
    (is_numbered(name) ? numbered_ : named_).emplace(key(name), definition);
  }

 private:
  static std::string key(const Token& name) {
    return is_numbered(name) ? std::string(name.spelling.substr(1)) : text::name_of(name);
  }
  std::unordered_map<std::string, Definition> named_;
  std::unordered_map<std::string, Definition> numbered_;
};

// The number of tensor and tuple types a type holds, and how deeply tuples nest in it.
struct TypeMeasure {
  std::size_t nodes = 0;
  int depth = 0;

  void add(const TypeMeasure& other) {
    nodes += other.nodes;
    depth = std::max(depth, other.depth);
  }
};

TypeMeasure measure(const Type& type) {
  if (type.is_tensor()) return {1, 0};
  TypeMeasure fields;
  for (const Type& field : type.tuple().fields) fields.add(measure(field));
  return {fields.nodes + 1, fields.depth + 1};
}

TypeMeasure measure(const std::vector<Type>& types) {
  TypeMeasure total;
  for (const Type& type : types) total.add(measure(type));
  return total;
}

// What the first pass learns about a function.
struct FunctionDecl {
  Function* function = nullptr;
  // As declared: a call may come before the callee's body is parsed.
  std::vector<Type> result_types;
  TypeMeasure result_measure;
  Scope scope;
  Position rest;  // at 'attributes' or at the body's '{'
};

// A number in a dense<> literal, kept as text until the tensor's dtype is known.
struct Element {
  TokenKind kind;
  std::string_view spelling;
  Position pos;
};

class Parser {
 public:
  Parser(Context& context, std::string_view text, std::string_view filename)
      : context_(context),
        lexer_(text),
        filename_(filename),
        type_budget_(kTypeNodesPerByte * text.size() + kMinTypeNodes) {}

  Expected<std::unique_ptr<Module>> parse() {
    module_ = std::make_unique<Module>(context_);
    advance();
    UMA_TRY(parse_declarations());
    for (FunctionDecl& decl : decls_) UMA_TRY(parse_body(decl));
    return std::move(module_);
  }

 private:
  // ---- Tokens and errors ----

  void advance() { tok_ = lexer_.next(); }
  bool at(TokenKind kind) const { return tok_.kind == kind; }
  bool at_keyword(std::string_view word) const {
    return tok_.kind == TokenKind::bare_id && tok_.spelling == word;
  }
  bool at_number() const {
    return at(TokenKind::integer) || at(TokenKind::floating) || at_keyword("inf") ||
           at_keyword("nan");
  }

  Error error_at(Position pos, std::string_view message) const {
    return make_error("{}:{}:{}: error: {}", filename_, pos.line, pos.column(), message);
  }
  // "expected <what>, found <the current token>"; a malformed token reports itself.
  Error expected(std::string_view what) const {
    if (at(TokenKind::error)) return error_at(tok_.pos, tok_.message);
    return error_at(tok_.pos, fmt::format("expected {}, found {}", what, text::describe(tok_)));
  }
  Status consume(TokenKind kind, std::string_view what) {
    if (!at(kind)) return expected(what);
    advance();
    return Status::success();
  }

  // Parses `element (',' element)*` and then `close`; the list may be empty.
  template <typename F>
  Status parse_comma_list(TokenKind close, std::string_view close_spelling, F&& element) {
    if (!at(close)) {
      while (true) {
        UMA_TRY(element());
        if (!at(TokenKind::comma)) break;
        advance();
      }
    }
    return consume(close, fmt::format("',' or {}", close_spelling));
  }

  Expected<std::int64_t> parse_int() {
    std::int64_t value = 0;
    auto [end, ec] =
        std::from_chars(tok_.spelling.data(), tok_.spelling.data() + tok_.spelling.size(), value);
    if (ec != std::errc() || end != tok_.spelling.data() + tok_.spelling.size())
      return error_at(tok_.pos, fmt::format("integer {} does not fit in 64 bits", tok_.spelling));
    advance();
    return value;
  }

  Expected<double> parse_double() {
    double value = 0;
    auto [end, ec] =
        std::from_chars(tok_.spelling.data(), tok_.spelling.data() + tok_.spelling.size(), value);
    if (ec != std::errc() || end != tok_.spelling.data() + tok_.spelling.size())
      return error_at(tok_.pos, fmt::format("float {} is out of range", tok_.spelling));
    advance();
    return value;
  }

  // ---- Declarations (first pass) ----

  Status parse_declarations() {
    if (at_keyword("module")) {
      advance();
      if (!at(TokenKind::global_name)) return expected("a module name");
      module_->set_name(text::name_of(tok_));
      advance();
    }
    while (!at(TokenKind::eof)) {
      if (at_keyword("func"))
        UMA_TRY(parse_signature());
      else if (at_keyword("data"))
        UMA_TRY(parse_data());
      else
        return expected("'func', 'data' or end of input");
    }
    return Status::success();
  }

  Status parse_signature() {
    advance();
    if (!at(TokenKind::global_name)) return expected("a function name");
    std::string name = text::name_of(tok_);
    if (module_->find_function(name) != nullptr)
      return error_at(tok_.pos, fmt::format("redefinition of function {}", spell_global(name)));
    decl_index_.emplace(name, decls_.size());
    FunctionDecl& decl = decls_.emplace_back();
    decl.function = module_->add_function(std::move(name)).value();
    advance();

    UMA_TRY(consume(TokenKind::l_paren, "'('"));
    UMA_TRY(parse_comma_list(TokenKind::r_paren, "')'", [&]() -> Status {
      if (!at(TokenKind::local_name)) return expected("a parameter name");
      Token param = tok_;
      if (decl.scope.find(param) != nullptr)
        return error_at(param.pos, fmt::format("redefinition of value {}", spell_local(param)));
      advance();
      UMA_TRY(consume(TokenKind::colon, "':'"));
      UMA_TRY_ASSIGN(Type type, parse_type());
      std::string param_name = Scope::is_numbered(param) ? "" : text::name_of(param);
      TypeMeasure param_measure = measure(type);
      Value* value = decl.function->add_param(std::move(type), param_name);
      measures_.emplace(value, param_measure);
      decl.scope.define(param, {.param = value});
      return Status::success();
    }));

    UMA_TRY(consume(TokenKind::arrow, "'->'"));
    UMA_TRY(consume(TokenKind::l_paren, "'('"));
    UMA_TRY(parse_comma_list(TokenKind::r_paren, "')'", [&]() -> Status {
      UMA_TRY_ASSIGN(Type type, parse_type());
      decl.result_types.push_back(std::move(type));
      return Status::success();
    }));
    decl.result_measure = measure(decl.result_types);

    // Attributes may name data entries further down, so they wait for the second pass.
    decl.rest = tok_.pos;
    bool has_attributes = at_keyword("attributes");
    if (has_attributes) {
      advance();
      if (!at(TokenKind::l_brace)) return expected("'{'");
      skip_braces();
    }
    if (!at(TokenKind::l_brace)) return expected(has_attributes ? "'{'" : "'attributes' or '{'");
    skip_braces();
    return Status::success();
  }

  // Skips from '{' to its matching '}'. Malformed tokens are left for the second pass to
  // report in order. A body that never closes ends before the next declaration, so that
  // the declarations after it are still known when the second pass reports the brace.
  void skip_braces() {
    int depth = 0;
    while (!at(TokenKind::eof)) {
      if (depth > 0 && (at_keyword("func") || at_keyword("data"))) {
        Position after = lexer_.position();
        bool starts_declaration = lexer_.next().kind == TokenKind::global_name;
        lexer_.reset(after);
        if (starts_declaration) return;
      }
      if (at(TokenKind::l_brace)) ++depth;
      if (at(TokenKind::r_brace) && --depth == 0) {
        advance();
        return;
      }
      advance();
    }
  }

  Status parse_data() {
    advance();
    if (!at(TokenKind::global_name)) return expected("a data name");
    std::string name = text::name_of(tok_);
    if (data_.count(name) != 0)
      return error_at(tok_.pos, fmt::format("redefinition of data {}", spell_global(name)));
    advance();
    UMA_TRY(consume(TokenKind::colon, "':'"));
    UMA_TRY_ASSIGN(TensorType type, parse_tensor_type());
    UMA_TRY(consume(TokenKind::equal, "'='"));
    std::shared_ptr<Tensor> tensor;
    if (at_keyword("elided")) {
      tensor = Tensor::without_data(std::move(type));
    } else if (at(TokenKind::string)) {
      UMA_TRY_ASSIGN(tensor, decode_hex(type, name));
    } else {
      return expected("a hex string or 'elided'");
    }
    advance();
    tensor->name = name;
    data_.emplace(std::move(name), std::move(tensor));
    return Status::success();
  }

  // The current string token as the bytes of a tensor of `type`. The length is checked
  // before anything is allocated, so a huge claimed shape costs nothing.
  Expected<std::shared_ptr<Tensor>> decode_hex(const TensorType& type, const std::string& name) {
    std::string_view body = tok_.spelling.substr(1, tok_.spelling.size() - 2);
    if (!body.starts_with("0x"))
      return error_at(tok_.pos, fmt::format("expected a hex string starting with 0x, found {}",
                                            text::describe(tok_)));
    std::string_view digits = body.substr(2);
    auto bytes = static_cast<std::uint64_t>(type.num_bytes());
    if (digits.size() % 2 != 0 || digits.size() / 2 != bytes)
      return error_at(
          tok_.pos, fmt::format("data {} has {} hex digit(s), but {} takes {}", spell_global(name),
                                digits.size(), to_string(type), bytes * 2));
    auto tensor = std::make_shared<Tensor>(type);
    std::span<std::byte> out = tensor->bytes();
    for (std::size_t i = 0; i < digits.size(); i += 2) {
      int high = text::hex_digit_value(digits[i]);
      int low = text::hex_digit_value(digits[i + 1]);
      if (high < 0 || low < 0) {
        std::size_t bad = high < 0 ? i : i + 1;
        Position pos = tok_.pos;
        pos.offset += 3 + bad;  // past '"0x'; strings hold no line breaks
        return error_at(pos, fmt::format("invalid hex digit {} in data {}",
                                         text::describe(TokenKind::string, digits.substr(bad, 1)),
                                         spell_global(name)));
      }
      out[i / 2] = static_cast<std::byte>(high * 16 + low);
    }
    return tensor;
  }

  // ---- Types ----

  Expected<Type> parse_type(int depth = 0) {
    if (at_keyword("tensor")) {
      UMA_TRY_ASSIGN(TensorType tensor, parse_tensor_type());
      return Type(std::move(tensor));
    }
    if (!at_keyword("tuple")) return expected("a type");
    if (depth >= kMaxTypeNesting)
      return error_at(tok_.pos, fmt::format("types nest deeper than {} levels", kMaxTypeNesting));
    advance();
    UMA_TRY(consume(TokenKind::less, "'<'"));
    TupleType tuple;
    UMA_TRY(parse_comma_list(TokenKind::greater, "'>'", [&]() -> Status {
      UMA_TRY_ASSIGN(Type field, parse_type(depth + 1));
      tuple.fields.push_back(std::move(field));
      return Status::success();
    }));
    return Type(std::move(tuple));
  }

  Expected<TensorType> parse_tensor_type() {
    if (!at_keyword("tensor")) return expected("'tensor'");
    Position type_pos = tok_.pos;
    advance();
    if (!at(TokenKind::less)) return expected("'<'");
    // The lexer stands just after '<'.
    Token shape = lexer_.next_shape();
    TensorType type;
    UMA_TRY(parse_shape(shape, type));
    advance();
    UMA_TRY(consume(TokenKind::greater, "'>'"));
    if (auto count = type.checked_num_elements(); !count)
      return error_at(type_pos, count.error().message());
    return type;
  }

  // "1x3x8x8xf32": dimensions, each followed by 'x', then the dtype.
  Status parse_shape(const Token& shape, TensorType& type) {
    std::string_view s = shape.spelling;
    auto at_index = [&](std::size_t i) {
      Position pos = shape.pos;
      pos.offset += i;
      return pos;
    };
    std::size_t i = 0;
    while (i < s.size() && (is_digit(s[i]) || s[i] == '-')) {
      std::size_t start = i;
      ++i;
      while (i < s.size() && is_digit(s[i])) ++i;
      std::string_view dim = s.substr(start, i - start);
      std::int64_t value = 0;
      auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
      if (ec == std::errc::result_out_of_range)
        return error_at(at_index(start), fmt::format("dimension {} does not fit in 64 bits", dim));
      if (ec != std::errc() || end != dim.data() + dim.size())
        return error_at(at_index(start), fmt::format("expected a dimension, found {}",
                                                     text::describe(TokenKind::shape, dim)));
      type.shape.push_back(value);
      if (i >= s.size() || s[i] != 'x')
        return error_at(at_index(i), fmt::format("expected 'x' after a dimension, found {}",
                                                 describe_from(shape, i)));
      ++i;
    }
    std::optional<DType> dtype = parse_dtype(s.substr(i));
    if (!dtype)
      return error_at(at_index(i), fmt::format("expected a dtype ({}), found {}", dtype_names(),
                                               describe_from(shape, i)));
    type.dtype = *dtype;
    return Status::success();
  }

  // What follows offset `i` of a shape token: the rest of it, or the token after it.
  std::string describe_from(const Token& shape, std::size_t i) const {
    if (i < shape.spelling.size())
      return text::describe(TokenKind::shape, shape.spelling.substr(i));
    text::Lexer probe = lexer_;
    return text::describe(probe.next());
  }

  // ---- Function bodies (second pass) ----

  Status parse_body(FunctionDecl& decl) {
    lexer_.reset(decl.rest);
    advance();
    Function& function = *decl.function;
    if (at_keyword("attributes")) {
      advance();
      UMA_TRY(parse_attr_dict(function.mutable_attrs(), nullptr));
    }
    UMA_TRY(consume(TokenKind::l_brace, "'{'"));
    while (at(TokenKind::local_name)) UMA_TRY(parse_node(decl));
    if (!at_keyword("return")) return expected("a node or 'return'");
    Position return_pos = tok_.pos;
    advance();
    std::vector<Value*> outputs;
    std::vector<Position> output_pos;
    if (!at(TokenKind::local_name) && !at(TokenKind::r_brace)) return expected("a value or '}'");
    UMA_TRY(parse_comma_list(TokenKind::r_brace, "'}'", [&]() -> Status {
      output_pos.push_back(tok_.pos);
      UMA_TRY_ASSIGN(Value * value, parse_use(decl.scope));
      outputs.push_back(value);
      return Status::success();
    }));
    std::string name = spell_global(function.name());
    if (outputs.size() != decl.result_types.size())
      return error_at(return_pos,
                      fmt::format("{} returns {} value(s), but its signature declares {}", name,
                                  outputs.size(), decl.result_types.size()));
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (!(outputs[i]->type() == decl.result_types[i]))
        return error_at(
            output_pos[i],
            fmt::format("type mismatch: {} returns {} as result {}, but its signature "
                        "declares {}",
                        name, to_string(outputs[i]->type()), i, to_string(decl.result_types[i])));
    function.set_outputs(std::move(outputs));
    return Status::success();
  }

  // results '=' op-name ['@callee'] ['(' uses ')'] [attr-dict] [':' types] [loc]
  Status parse_node(FunctionDecl& decl) {
    Token result = tok_;
    if (decl.scope.find(result) != nullptr)
      return error_at(result.pos, fmt::format("redefinition of value {}", spell_local(result)));
    advance();
    std::uint64_t result_count = 1;
    Position count_pos = result.pos;
    if (at(TokenKind::colon)) {
      advance();
      std::optional<std::uint64_t> count;
      if (at(TokenKind::integer)) count = to_unsigned(tok_.spelling);
      if (!count) return expected("a result count");
      result_count = *count;
      count_pos = tok_.pos;
      advance();
    }
    UMA_TRY(consume(TokenKind::equal, "'='"));

    if (!at(TokenKind::bare_id)) return expected("an op name");
    Token op_token = tok_;
    const OpDef* op = context_.ops().find(op_token.spelling);
    if (op == nullptr)
      return error_at(op_token.pos, fmt::format("unknown op {}", text::describe(op_token)));
    advance();
    Function* callee = nullptr;
    if (op->name == "call") {
      if (!at(TokenKind::global_name)) return expected("a function name");
      callee = module_->find_function(text::name_of(tok_));
      if (callee == nullptr)
        return error_at(tok_.pos,
                        fmt::format("undefined function {}", spell_global(text::name_of(tok_))));
      advance();
    }

    std::vector<Value*> operands;
    if (at(TokenKind::l_paren)) {
      advance();
      UMA_TRY(parse_comma_list(TokenKind::r_paren, "')'", [&]() -> Status {
        UMA_TRY_ASSIGN(Value * operand, parse_use(decl.scope));
        operands.push_back(operand);
        return Status::success();
      }));
    }
    AttrMap attrs;
    if (at(TokenKind::l_brace)) UMA_TRY(parse_attr_dict(attrs, op));

    std::vector<std::pair<Type, Position>> written;
    if (at(TokenKind::colon)) {
      advance();
      while (true) {
        Position pos = tok_.pos;
        UMA_TRY_ASSIGN(Type type, parse_type());
        written.emplace_back(std::move(type), pos);
        if (!at(TokenKind::comma)) break;
        advance();
      }
    }
    std::string location;
    if (at_keyword("loc")) {
      advance();
      UMA_TRY(consume(TokenKind::l_paren, "'('"));
      if (!at(TokenKind::string)) return expected("a string");
      location = text::unquote(tok_.spelling);
      advance();
      UMA_TRY(consume(TokenKind::r_paren, "')'"));
    }

    std::string where = fmt::format("node {} ({})", spell_local(result), op->name);
    std::vector<TypeMeasure> result_measures;
    UMA_TRY_ASSIGN(std::vector<Type> types,
                   infer_types(*op, callee, operands, attrs, op_token.pos, where, result_measures));
    if (result_count != types.size())
      return error_at(count_pos, fmt::format("{} has {} result(s), but the text names {}", where,
                                             types.size(), result_count));
    if (!written.empty() && written.size() != types.size())
      return error_at(written[0].second,
                      fmt::format("{} has {} result(s), but {} type(s) are written", where,
                                  types.size(), written.size()));
    for (std::size_t i = 0; i < written.size(); ++i)
      if (!(written[i].first == types[i]))
        return error_at(
            written[i].second,
            fmt::format("type mismatch: {} result {} is inferred as {}, but written as {}", where,
                        i, to_string(types[i]), to_string(written[i].first)));

    Node* node = decl.function->insert_node(nullptr, op, std::move(operands), std::move(attrs),
                                            std::move(types));
    node->set_callee(callee);
    node->set_name(std::move(location));
    for (std::size_t i = 0; i < result_measures.size(); ++i)
      measures_.emplace(node->result(i), result_measures[i]);
    if (!Scope::is_numbered(result) && node->num_results() > 0)
      node->result(0)->set_name(text::name_of(result));
    decl.scope.define(result, {.node = node});
    return Status::success();
  }

  // The result types of a node: inferred from the op, or the callee's declared ones.
  // Charges them to the type budget and measures each for later nodes.
  Expected<std::vector<Type>> infer_types(const OpDef& op, Function* callee,
                                          const std::vector<Value*>& operands, AttrMap& attrs,
                                          Position op_pos, const std::string& where,
                                          std::vector<TypeMeasure>& result_measures) {
    std::vector<Type> operand_types;
    TypeMeasure operand_measure;
    for (const Value* operand : operands) {
      operand_types.push_back(operand->type());
      operand_measure.add(measures_.at(operand));
    }
    // A result type is at most as large as its operands' (tuple) or declared (call) types,
    // so checking those first keeps inference itself from allocating too much.
    auto too_large = [&] {
      return error_at(op_pos,
                      fmt::format("{}: types grow too large for the size of the text", where));
    };
    std::vector<Type> types;
    if (callee != nullptr) {
      // Checks the arguments against the parameters; the results are the declared ones.
      auto checked = infer_call_types(*callee, operand_types);
      if (!checked)
        return error_at(op_pos, fmt::format("{}: {}", where, checked.error().message()));
      const FunctionDecl& callee_decl = decls_[decl_index_.at(callee->name())];
      if (callee_decl.result_measure.nodes > type_budget_) return too_large();
      types = callee_decl.result_types;
    } else {
      if (operand_measure.nodes > type_budget_) return too_large();
      auto inferred = infer_node_types(op, operand_types, attrs);
      if (!inferred)
        return error_at(op_pos, fmt::format("{}: {}", where, inferred.error().message()));
      types = std::move(inferred.value());
    }
    std::size_t result_nodes = 0;
    for (const Type& type : types) {
      result_measures.push_back(measure(type));
      result_nodes += result_measures.back().nodes;
      if (result_measures.back().depth > kMaxTypeNesting)
        return error_at(op_pos,
                        fmt::format("{}: its result type nests tuples deeper than {} levels", where,
                                    kMaxTypeNesting));
    }
    if (result_nodes > type_budget_) return too_large();
    type_budget_ -= result_nodes;
    return types;
  }

  // %x, or %x#i for result i of a node with several results.
  Expected<Value*> parse_use(const Scope& scope) {
    if (!at(TokenKind::local_name)) return expected("a value");
    Token name = tok_;
    const Definition* definition = scope.find(name);
    if (definition == nullptr)
      return error_at(name.pos, fmt::format("undefined value {}", spell_local(name)));
    advance();
    std::size_t count = definition->num_results();
    if (!at(TokenKind::hash)) {
      if (count == 1) return definition->result(0);
      if (count == 0)
        return error_at(name.pos, fmt::format("{} has no results", spell_local(name)));
      return error_at(name.pos, fmt::format("{} has {} results; name one as {}#<index>",
                                            spell_local(name), count, spell_local(name)));
    }
    advance();
    if (!at(TokenKind::integer)) return expected("a result number");
    std::optional<std::uint64_t> index = to_unsigned(tok_.spelling);
    if (!index || *index >= count)
      return error_at(tok_.pos,
                      fmt::format("{}#{} is out of range: {} has {} result(s)", spell_local(name),
                                  tok_.spelling, spell_local(name), count));
    advance();
    return definition->result(*index);
  }

  // ---- Attributes ----

  // `op` is the schema of a node's attributes; function attributes have none.
  Status parse_attr_dict(AttrMap& attrs, const OpDef* op) {
    UMA_TRY(consume(TokenKind::l_brace, "'{'"));
    return parse_comma_list(TokenKind::r_brace, "'}'", [&]() -> Status {
      if (!at(TokenKind::bare_id) && !at(TokenKind::string)) return expected("an attribute name");
      Position name_pos = tok_.pos;
      std::string name =
          at(TokenKind::string) ? text::unquote(tok_.spelling) : std::string(tok_.spelling);
      if (attrs.has(name))
        return error_at(name_pos,
                        fmt::format("attribute '{}' is given twice", text::spell_name(name)));
      std::optional<AttrKind> kind;
      if (op != nullptr && !is_discardable_attr(name)) {
        const AttrDef* def = op->find_attr(name);
        if (def == nullptr)
          return error_at(name_pos, fmt::format("unknown attribute '{}' for op {}",
                                                text::spell_name(name), op->name));
        kind = def->kind;
      }
      advance();
      UMA_TRY(consume(TokenKind::equal, "'='"));
      UMA_TRY_ASSIGN(Attribute value, parse_attr_value(kind));
      attrs.set(std::move(name), std::move(value));
      return Status::success();
    });
  }

  // `kind` comes from the op's schema; without one the literal decides.
  Expected<Attribute> parse_attr_value(std::optional<AttrKind> kind) {
    auto accepts = [&](AttrKind k) { return !kind || *kind == k; };
    std::string_view what = kind ? kind_description(*kind) : "an attribute value";
    if (at(TokenKind::l_square)) {
      if (kind && !is_list_kind(*kind)) return expected(what);
      return parse_list(kind);
    }
    if (at(TokenKind::global_name) || at_keyword("dense")) {
      if (!accepts(AttrKind::Tensor)) return expected(what);
      UMA_TRY_ASSIGN(TensorPtr tensor, parse_tensor_literal());
      return Attribute(std::move(tensor));
    }
    if (at(TokenKind::string) && accepts(AttrKind::String)) {
      std::string value = text::unquote(tok_.spelling);
      advance();
      return Attribute(std::move(value));
    }
    if (at(TokenKind::integer) && accepts(AttrKind::Int)) {
      UMA_TRY_ASSIGN(std::int64_t value, parse_int());
      return Attribute(value);
    }
    if (at_number() && accepts(AttrKind::Float)) {
      UMA_TRY_ASSIGN(double value, parse_double());
      return Attribute(value);
    }
    return expected(what);
  }

  // Without a schema, the elements decide: all integers (or none) make ints, any float
  // makes floats, strings make strings.
  Expected<Attribute> parse_list(std::optional<AttrKind> kind) {
    advance();
    AttrKind list_kind = kind.value_or(AttrKind::Ints);
    bool decided = kind.has_value();
    std::vector<std::int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    for (bool more = !at(TokenKind::r_square); more;) {
      if (at(TokenKind::string) && (!decided || list_kind == AttrKind::Strings)) {
        list_kind = AttrKind::Strings;
        strings.push_back(text::unquote(tok_.spelling));
        advance();
      } else if (at(TokenKind::integer) && (!decided || list_kind == AttrKind::Ints)) {
        list_kind = AttrKind::Ints;
        UMA_TRY_ASSIGN(std::int64_t value, parse_int());
        ints.push_back(value);
      } else if (at_number() && (list_kind == AttrKind::Floats ||
                                 (!kind && (!decided || list_kind == AttrKind::Ints)))) {
        if (list_kind == AttrKind::Ints) floats.assign(ints.begin(), ints.end());
        list_kind = AttrKind::Floats;
        UMA_TRY_ASSIGN(double value, parse_double());
        floats.push_back(value);
      } else if (!decided) {
        return expected("an integer, float or string");
      } else {
        return expected(list_kind == AttrKind::Strings           ? "a string"
                        : list_kind == AttrKind::Floats || !kind ? "a number"
                                                                 : "an integer");
      }
      decided = true;
      more = at(TokenKind::comma);
      if (more) advance();
    }
    UMA_TRY(consume(TokenKind::r_square, "',' or ']'"));
    if (list_kind == AttrKind::Strings) return Attribute(std::move(strings));
    if (list_kind == AttrKind::Floats) return Attribute(std::move(floats));
    return Attribute(std::move(ints));
  }

  // @name of a data entry, or dense<[...]> : tensor<...>.
  Expected<TensorPtr> parse_tensor_literal() {
    if (at(TokenKind::global_name)) {
      auto it = data_.find(text::name_of(tok_));
      if (it == data_.end())
        return error_at(tok_.pos,
                        fmt::format("undefined data {}", spell_global(text::name_of(tok_))));
      advance();
      return it->second;
    }
    Position dense_pos = tok_.pos;
    advance();
    UMA_TRY(consume(TokenKind::less, "'<'"));
    UMA_TRY(consume(TokenKind::l_square, "'['"));
    std::vector<Element> elements;
    UMA_TRY(parse_comma_list(TokenKind::r_square, "']'", [&]() -> Status {
      if (!at(TokenKind::integer) && !at(TokenKind::floating) && !at(TokenKind::bare_id))
        return expected("a number");
      elements.push_back({tok_.kind, tok_.spelling, tok_.pos});
      advance();
      return Status::success();
    }));
    UMA_TRY(consume(TokenKind::greater, "'>'"));
    UMA_TRY(consume(TokenKind::colon, "':'"));
    UMA_TRY_ASSIGN(TensorType type, parse_tensor_type());
    // The type was checked, so the count is exact; compare before allocating.
    if (static_cast<std::uint64_t>(type.num_elements()) != elements.size())
      return error_at(dense_pos,
                      fmt::format("dense<> has {} element(s), but {} has {}", elements.size(),
                                  to_string(type), type.num_elements()));
    auto tensor = std::make_shared<Tensor>(type);
    for (std::size_t i = 0; i < elements.size(); ++i)
      UMA_TRY(set_element(*tensor, static_cast<std::int64_t>(i), elements[i]));
    return TensorPtr(std::move(tensor));
  }

  Status set_element(Tensor& tensor, std::int64_t i, const Element& element) {
    DType dtype = tensor.dtype();
    auto expected_here = [&](std::string_view what) {
      return error_at(element.pos, fmt::format("expected {}, found {}", what,
                                               text::describe(element.kind, element.spelling)));
    };
    auto out_of_range = [&] {
      return error_at(element.pos, fmt::format("{} is out of range for {}", element.spelling,
                                               dtype_name(dtype)));
    };
    const char* begin = element.spelling.data();
    const char* end = begin + element.spelling.size();
    if (dtype == DType::boolean) {
      if (element.spelling != "true" && element.spelling != "false")
        return expected_here("'true' or 'false'");
      tensor.data<std::uint8_t>()[i] = element.spelling == "true" ? 1 : 0;
      return Status::success();
    }
    if (is_float(dtype)) {
      bool is_number = element.kind != TokenKind::bare_id || element.spelling == "inf" ||
                       element.spelling == "nan";
      if (!is_number) return expected_here("a number");
      if (dtype == DType::f64) {
        double value = 0;
        auto [stop, ec] = std::from_chars(begin, end, value);
        if (ec != std::errc() || stop != end) return out_of_range();
        tensor.data<double>()[i] = value;
        return Status::success();
      }
      float value = 0;
      auto [stop, ec] = std::from_chars(begin, end, value);
      if (ec != std::errc() || stop != end) return out_of_range();
      if (dtype == DType::f32) {
        tensor.data<float>()[i] = value;
        return Status::success();
      }
      std::uint16_t bits = dtype == DType::f16 ? f32_to_f16(value) : f32_to_bf16(value);
      float stored = dtype == DType::f16 ? f16_to_f32(bits) : bf16_to_f32(bits);
      if (std::isinf(stored) && !std::isinf(value)) return out_of_range();
      tensor.data<std::uint16_t>()[i] = bits;
      return Status::success();
    }
    if (element.kind != TokenKind::integer) return expected_here("an integer");
    if (dtype == DType::u64) {  // beyond int64's range: read it as unsigned
      std::uint64_t value = 0;
      auto [stop, ec] = std::from_chars(begin, end, value);
      if (ec != std::errc() || stop != end) return out_of_range();
      tensor.data<std::uint64_t>()[i] = value;
      return Status::success();
    }
    std::int64_t value = 0;
    auto [stop, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || stop != end) return out_of_range();
    auto store = [&]<typename T>(T*) -> Status {
      if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max())
        return out_of_range();
      tensor.data<T>()[i] = static_cast<T>(value);
      return Status::success();
    };
    switch (dtype) {
      case DType::i8:
        return store(static_cast<std::int8_t*>(nullptr));
      case DType::i16:
        return store(static_cast<std::int16_t*>(nullptr));
      case DType::i32:
        return store(static_cast<std::int32_t*>(nullptr));
      case DType::u8:
        return store(static_cast<std::uint8_t*>(nullptr));
      case DType::u16:
        return store(static_cast<std::uint16_t*>(nullptr));
      case DType::u32:
        return store(static_cast<std::uint32_t*>(nullptr));
      default:
        return store(static_cast<std::int64_t*>(nullptr));
    }
  }

  Context& context_;
  text::Lexer lexer_;
  std::string_view filename_;
  Token tok_;
  std::unique_ptr<Module> module_;
  std::vector<FunctionDecl> decls_;
  std::unordered_map<std::string, std::size_t> decl_index_;
  std::unordered_map<std::string, TensorPtr> data_;
  std::unordered_map<const Value*, TypeMeasure> measures_;
  std::size_t type_budget_;  // type nodes inference may still create
};

}  // namespace

Expected<std::unique_ptr<Module>> parse_module(Context& context, std::string_view text,
                                               std::string_view filename) {
  return Parser(context, text, filename).parse();
}

}  // namespace uma
