// The loop IR (TIR): what a graph function becomes before C is generated. Buffers with a
// memory scope, loops of four kinds, loads and stores, allocations, `if`, `let`, calls to
// intrinsics and to extern C functions, and blocks named after the op they compute, so
// that passes and backends can find `conv2d_nchw` and reschedule or replace it.
//
// Nodes are immutable values behind ref-counted handles (Expr, Stmt), each made by a
// checked `make()` with named public fields; a forgotten node kind is a compile error
// because every dispatch expands UMA_FOR_EACH_TIR_EXPR / UMA_FOR_EACH_TIR_STMT.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/dtype.h"

namespace uma::tir {

// ---- Types ----

// The type of an expression: an element type with a lane count (vectors), or a handle
// (a pointer, e.g. a buffer's address passed to an extern call).
struct DataType {
  DType dtype = DType::i32;
  std::uint16_t lanes = 1;
  bool handle = false;

  static DataType scalar(DType dtype) { return {dtype, 1, false}; }
  static DataType vector(DType dtype, std::uint16_t lanes) { return {dtype, lanes, false}; }
  static DataType pointer() { return {DType::u8, 1, true}; }
  bool is_scalar() const { return lanes == 1 && !handle; }
  DataType with_lanes(std::uint16_t n) const { return {dtype, n, handle}; }
  DataType element() const { return with_lanes(1); }
  bool operator==(const DataType&) const = default;
};
std::string to_string(DataType type);  // "i32", "f32x8", "handle"

// ---- Node kinds ----

// (kind) — the binary nodes: arithmetic, comparisons and logical and/or. One BinaryNode
// template serves them all, so every place that handles binaries expands this list.
#define UMA_FOR_EACH_TIR_BINARY(X)                                   \
  X(Add)                                                             \
  X(Sub)                                                             \
  X(Mul)                                                             \
  X(Div) /* floor division for integers, true division for floats */ \
  X(Mod) /* floor modulo (result has the divisor's sign) */          \
  X(Min)                                                             \
  X(Max)                                                             \
  X(EQ)                                                              \
  X(NE)                                                              \
  X(LT)                                                              \
  X(LE)                                                              \
  X(GT)                                                              \
  X(GE)                                                              \
  X(And)                                                             \
  X(Or)

// (kind) — the expression nodes.
#define UMA_FOR_EACH_TIR_EXPR(X) \
  X(IntImm)                      \
  X(FloatImm)                    \
  X(Var)                         \
  X(Cast)                        \
  UMA_FOR_EACH_TIR_BINARY(X)     \
  X(Not)                         \
  X(Select)                      \
  X(Load)                        \
  X(Ramp)                        \
  X(Broadcast)                   \
  X(Call)                        \
  X(Let)                         \
  X(Address)

// (kind) — the statement nodes.
#define UMA_FOR_EACH_TIR_STMT(X) \
  X(LetStmt)                     \
  X(For)                         \
  X(IfThenElse)                  \
  X(Store)                       \
  X(Allocate)                    \
  X(Seq)                         \
  X(Evaluate)                    \
  X(Block)

enum class ExprKind : std::uint8_t {
#define UMA_TIR_ENUM(kind) kind,
  UMA_FOR_EACH_TIR_EXPR(UMA_TIR_ENUM)
};
enum class StmtKind : std::uint8_t { UMA_FOR_EACH_TIR_STMT(UMA_TIR_ENUM) };
#undef UMA_TIR_ENUM

std::string_view expr_kind_name(ExprKind kind);
std::string_view stmt_kind_name(StmtKind kind);

// ---- Handles ----

struct ExprNode {
  ExprNode(ExprKind kind, DataType type) : kind(kind), type(type) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  const DataType type;
};

struct StmtNode {
  explicit StmtNode(StmtKind kind) : kind(kind) {}
  virtual ~StmtNode() = default;
  const StmtKind kind;
};

// A ref-counted handle to an immutable expression. Null when default-constructed.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  // Literals, for readable construction: i * 2 + 1. Integers are i64 (the index type) and
  // floats f32; the operator helpers below give an immediate the other operand's type.
  Expr(int value);           // NOLINT: implicit by design
  Expr(std::int64_t value);  // NOLINT: implicit by design
  Expr(double value);        // NOLINT: implicit by design

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  ExprKind kind() const { return node_->kind; }
  DataType type() const { return node_->type; }
  // The node as its concrete class, or nullptr.
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }
  // Identity, not value equality (see equal() for structural equality).
  bool same_as(const Expr& other) const { return node_ == other.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  StmtKind kind() const { return node_->kind; }
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }
  bool same_as(const Stmt& other) const { return node_ == other.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

// ---- Variables and buffers ----

// A variable is identified by its node (two Vars named "i" are different variables).
struct VarNode;
using Var = Expr;  // an Expr whose kind is Var

// A buffer: a named n-d array in a memory scope. Strides empty means dense row-major.
// `data` is the handle variable holding its address.
struct BufferNode {
  std::string name;
  DType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides;
  // "global" (host memory) or a scope a backend defines ("sram", "weights", ...).
  std::string scope = "global";
  Var data;
};
using Buffer = std::shared_ptr<const BufferNode>;

// A buffer with a fresh data variable. Errors (as bugs: UMA_CHECK) on an empty name or a
// non-integer shape.
Buffer make_buffer(std::string name, DType dtype, std::vector<Expr> shape,
                   std::string scope = "global", std::vector<Expr> strides = {});

// ---- Expression nodes ----

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  std::int64_t value;
  static Expr make(DataType type, std::int64_t value);
  IntImmNode(DataType type, std::int64_t value) : ExprNode(kKind, type), value(value) {}
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  double value;
  static Expr make(DataType type, double value);
  FloatImmNode(DataType type, double value) : ExprNode(kKind, type), value(value) {}
};

struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  std::string name;
  static Var make(std::string name, DataType type = DataType::scalar(DType::i64));
  VarNode(std::string name, DataType type) : ExprNode(kKind, type), name(std::move(name)) {}
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr value;
  static Expr make(DataType type, Expr value);
  CastNode(DataType type, Expr value) : ExprNode(kKind, type), value(std::move(value)) {}
};

// Binary arithmetic and comparisons share one shape: a and b of the same type. Comparisons
// have a bool type with the operands' lanes.
template <ExprKind K>
struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = K;
  Expr a, b;
  static Expr make(Expr a, Expr b);
  BinaryNode(DataType type, Expr a, Expr b)
      : ExprNode(kKind, type), a(std::move(a)), b(std::move(b)) {}
};
#define UMA_TIR_BINARY_ALIAS(k) using k##Node = BinaryNode<ExprKind::k>;
UMA_FOR_EACH_TIR_BINARY(UMA_TIR_BINARY_ALIAS)
#undef UMA_TIR_BINARY_ALIAS

struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  Expr a;
  static Expr make(Expr a);
  NotNode(DataType type, Expr a) : ExprNode(kKind, type), a(std::move(a)) {}
};

struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr condition, true_value, false_value;
  static Expr make(Expr condition, Expr true_value, Expr false_value);
  SelectNode(DataType type, Expr c, Expr t, Expr f)
      : ExprNode(kKind, type),
        condition(std::move(c)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
};

// buffer[indices...]: one index per dimension before flattening, one after.
struct LoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  Buffer buffer;
  std::vector<Expr> indices;
  static Expr make(Buffer buffer, std::vector<Expr> indices);
  LoadNode(DataType type, Buffer buffer, std::vector<Expr> indices)
      : ExprNode(kKind, type), buffer(std::move(buffer)), indices(std::move(indices)) {}
};

// base, base + stride, ... (lanes values): vector indices.
struct RampNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  Expr base, stride;
  std::uint16_t lanes;
  static Expr make(Expr base, Expr stride, std::uint16_t lanes);
  RampNode(DataType type, Expr base, Expr stride, std::uint16_t lanes)
      : ExprNode(kKind, type), base(std::move(base)), stride(std::move(stride)), lanes(lanes) {}
};

struct BroadcastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  Expr value;
  std::uint16_t lanes;
  static Expr make(Expr value, std::uint16_t lanes);
  BroadcastNode(DataType type, Expr value, std::uint16_t lanes)
      : ExprNode(kKind, type), value(std::move(value)), lanes(lanes) {}
};

// A call: an intrinsic the code generator knows (exp, sqrt, fabs, ...: kIntrinsic) or an
// extern C function (kExtern), e.g. an accelerator's driver entry point.
struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  enum class CallKind : std::uint8_t { kIntrinsic, kExtern };
  std::string name;
  std::vector<Expr> args;
  CallKind call_kind;
  static Expr make(DataType type, std::string name, std::vector<Expr> args, CallKind call_kind);
  CallNode(DataType type, std::string name, std::vector<Expr> args, CallKind call_kind)
      : ExprNode(kKind, type), name(std::move(name)), args(std::move(args)), call_kind(call_kind) {}
};

struct LetNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Let;
  Var var;
  Expr value, body;
  static Expr make(Var var, Expr value, Expr body);
  LetNode(DataType type, Var var, Expr value, Expr body)
      : ExprNode(kKind, type),
        var(std::move(var)),
        value(std::move(value)),
        body(std::move(body)) {}
};

// &buffer[indices...]: a handle, for extern calls.
struct AddressNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Address;
  Buffer buffer;
  std::vector<Expr> indices;
  static Expr make(Buffer buffer, std::vector<Expr> indices);
  AddressNode(Buffer buffer, std::vector<Expr> indices)
      : ExprNode(kKind, DataType::pointer()),
        buffer(std::move(buffer)),
        indices(std::move(indices)) {}
};

// ---- Statement nodes ----

struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  Var var;
  Expr value;
  Stmt body;
  static Stmt make(Var var, Expr value, Stmt body);
  LetStmtNode(Var var, Expr value, Stmt body)
      : StmtNode(kKind), var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
};

enum class ForKind : std::uint8_t { kSerial, kParallel, kVectorized, kUnrolled };
std::string_view for_kind_name(ForKind kind);  // "serial", "parallel", "vectorized", "unrolled"

// for (var = min; var < min + extent; ++var) body
struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  Var var;
  Expr min, extent;
  ForKind for_kind;
  Stmt body;
  static Stmt make(Var var, Expr min, Expr extent, ForKind for_kind, Stmt body);
  ForNode(Var var, Expr min, Expr extent, ForKind for_kind, Stmt body)
      : StmtNode(kKind),
        var(std::move(var)),
        min(std::move(min)),
        extent(std::move(extent)),
        for_kind(for_kind),
        body(std::move(body)) {}
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  Expr condition;
  Stmt then_case, else_case;  // else_case may be undefined
  static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind),
        condition(std::move(c)),
        then_case(std::move(t)),
        else_case(std::move(e)) {}
};

struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
  static Stmt make(Buffer buffer, Expr value, std::vector<Expr> indices);
  StoreNode(Buffer buffer, Expr value, std::vector<Expr> indices)
      : StmtNode(kKind),
        buffer(std::move(buffer)),
        value(std::move(value)),
        indices(std::move(indices)) {}
};

// A buffer that lives for `body` (in the buffer's scope).
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  Buffer buffer;
  Stmt body;
  static Stmt make(Buffer buffer, Stmt body);
  AllocateNode(Buffer buffer, Stmt body)
      : StmtNode(kKind), buffer(std::move(buffer)), body(std::move(body)) {}
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  std::vector<Stmt> stmts;
  // One statement stays itself; nested sequences are flattened.
  static Stmt make(std::vector<Stmt> stmts);
  explicit SeqNode(std::vector<Stmt> stmts) : StmtNode(kKind), stmts(std::move(stmts)) {}
};

struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  Expr value;
  static Stmt make(Expr value);
  explicit EvaluateNode(Expr value) : StmtNode(kKind), value(std::move(value)) {}
};

// How an iteration variable of a block iterates: over the points of the output (spatial),
// or over the values combined into one point (reduce).
enum class IterKind : std::uint8_t { kSpatial, kReduce };
std::string_view iter_kind_name(IterKind kind);  // "spatial", "reduce"

// One iteration variable of a block: the block computes, for each value in [0, extent),
// one point (spatial) or one step of a reduction (reduce). `binding` is its value as an
// expression of the loop variables of the block (and of the loops around it): the loop
// variable itself after lowering, `o * f + i` after a split, `f / e` after a fuse.
struct IterVar {
  std::string name;
  Expr extent;
  IterKind kind = IterKind::kSpatial;
  Expr binding;
};

// A named unit of computation (the op it computes: "conv2d_nchw", "dense", "add"): what
// schedule primitives and backends' passes look for. `reads`/`writes` name the buffers.
// A block contains its loops. A reduction block lists its iteration variables and has an
// `init`: for each spatial point it runs before the first reduce iteration (every reduce
// binding 0), so the spatial and reduce loops of the body form one nest that may be
// reordered freely. The init is written with the loop variables of the spatial iteration
// variables; decompose_reduction moves it out into a block of its own before code is
// generated. Blocks without iteration variables (pointwise, extern calls) leave both empty.
struct BlockNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  std::string name;
  std::vector<Buffer> reads, writes;
  Stmt body;
  AttrMap attrs;  // e.g. the graph op's attributes (strides, padding) for backends to read
  std::vector<IterVar> iter_vars;
  Stmt init;  // may be undefined
  static Stmt make(std::string name, std::vector<Buffer> reads, std::vector<Buffer> writes,
                   Stmt body, AttrMap attrs = {}, std::vector<IterVar> iter_vars = {},
                   Stmt init = Stmt());
  BlockNode(std::string name, std::vector<Buffer> reads, std::vector<Buffer> writes, Stmt body,
            AttrMap attrs, std::vector<IterVar> iter_vars, Stmt init)
      : StmtNode(kKind),
        name(std::move(name)),
        reads(std::move(reads)),
        writes(std::move(writes)),
        body(std::move(body)),
        attrs(std::move(attrs)),
        iter_vars(std::move(iter_vars)),
        init(std::move(init)) {}
};

// ---- Functions ----

// A function of the loop IR: buffer parameters in the graph function's parameter order,
// then outputs; a body; attributes (global_symbol, target, Compiler, ...).
struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  std::size_t num_inputs = 0;  // params[0, num_inputs) are inputs, the rest outputs
  Stmt body;
  AttrMap attrs;
  // Load-time code (uma/tir/state.h): `init` runs once when an executor loads the program,
  // before any run, `fini` when the executor is destroyed; both see the parameters (inputs
  // and outputs null) and the function's state. Undefined: none.
  Stmt init, fini;
};

// ---- Expression helpers ----
// Operands must have the same type, except that an immediate takes the other operand's
// type; any other mismatch is a compiler bug (UMA_CHECK).

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // floor division for integers
Expr operator%(Expr a, Expr b);  // floor modulo for integers
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

// Structural equality: same kinds, types, values; variables and buffers by identity.
bool equal(const Expr& a, const Expr& b);
// The constant value of an integer immediate, if `e` is one.
std::optional<std::int64_t> as_const_int(const Expr& e);

}  // namespace uma::tir
