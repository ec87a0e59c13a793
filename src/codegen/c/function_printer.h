// Prints one PrimFunc as C: its typed body function and the uniform entry point. The
// C emitter (c_codegen.cc) owns one per function and the state they share (UnitState).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "code_writer.h"
#include "helpers.h"
#include "names.h"
#include "uma/codegen/c/c_codegen.h"

namespace uma::codegen {

// C operator precedence, higher binds tighter.
namespace prec {
constexpr int kPrimary = 16;  // names, literals, calls, subscripts
constexpr int kUnary = 15;    // casts, !, unary -
constexpr int kMul = 13;
constexpr int kAdd = 12;
constexpr int kRelational = 10;
constexpr int kEquality = 9;
constexpr int kLogicalAnd = 5;
constexpr int kLogicalOr = 4;
constexpr int kConditional = 3;

}  // namespace prec

// What the functions of one translation unit share.
struct UnitState {
  explicit UnitState(const CCodegenOptions& options) : options(options) {}
  const CCodegenOptions& options;
  NameTable globals;  // function symbols, extern functions
  HelperSet helpers;
  std::map<std::string, std::string> extern_prototypes;  // by name, so output is sorted
};

class FunctionPrinter {
 public:
  FunctionPrinter(const tir::PrimFunc& func, std::string symbol, std::string impl_name,
                  UnitState& unit);
  // Appends the typed body function and the entry point to `out`.
  Status print(CodeWriter& out);

 private:
  // A C expression and the precedence of its outermost operator (higher binds tighter).
  struct Printed {
    std::string text;
    int prec;
  };
  struct VarInfo {
    std::string name;
    bool nonneg = false;        // provably >= 0 (loop counters from 0, ...)
    bool lane_array = false;    // a vector let: an array indexed by the lane
    bool vector_value = false;  // a vector let of a GCC vector type (also indexed by the lane)
  };
  struct BufferInfo {
    std::string name;
    DType dtype;  // the dtype it is declared with
    // A stack array of GCC vectors of this many lanes (0: of scalars), so that a register
    // tile stays in registers; every access to it is a whole vector at a multiple of lanes.
    int vector_lanes = 0;
  };

  // ---- expressions (expr_printer.cc) ----
  Printed expr(const tir::Expr& e);
  std::string text(const tir::Expr& e) { return expr(e).text; }
  std::string operand(const tir::Expr& e, int min_prec, const tir::Expr* other = nullptr);
  template <typename Node>
  Printed binary(const Node& op, const tir::Expr& self);
  Printed cast(const tir::CastNode& op);
  Printed load(const tir::LoadNode& op);
  Printed var(const tir::VarNode& op);
  Printed call(const tir::CallNode& op);
  Printed intrinsic(const tir::CallNode& op);
  Printed array(const tir::CallNode& op);
  Printed extern_call(const tir::CallNode& op);
  Printed let(const tir::LetNode& op);
  // The element offset of `indices` into `buffer` (row-major from its shape, or strides).
  Printed offset(const tir::Buffer& buffer, const std::vector<tir::Expr>& indices);
  // `name` or `((T*)name)` when the access views the buffer with another dtype.
  std::string base(const tir::Buffer& buffer);
  const BufferInfo* find_buffer(const tir::Buffer& buffer, std::string_view use);
  bool nonneg(const tir::Expr& e) const;

  // ---- whole vectors (vector_printer.cc) ----
  // Whether `e` prints as a GCC vector value (contiguous loads, splats, arithmetic, min,
  // max, fma, a select of one condition, and an f32 sigmoid of those).
  bool vector_form(const tir::Expr& e) const;
  // An f32 sigmoid that prints as uma_vsigmoid (when the options allow fast math helpers).
  bool is_vector_sigmoid(const tir::CallNode& op) const;
  // `e`, for which vector_form holds, as a vector value.
  Printed vector_expr(const tir::Expr& e);
  // A load that is not contiguous, gathered lane by lane into a vector declared before the
  // statement; its name.
  Printed gather(const tir::Expr& load);
  // Prints a vector store as one vector statement when its access is contiguous and its
  // value has a vector form; false (and nothing printed) otherwise.
  bool vector_statement(const tir::StoreNode& op, CodeWriter& out);
  // The lanes of the vectors a stack allocation can be declared as: those of its every
  // access, when each is a whole contiguous vector starting at a multiple of them; else 0.
  int vector_array_lanes(const tir::AllocateNode& op) const;
  // The element index, in vectors, of a whole-vector access to a vector array.
  tir::Expr vector_index(const tir::Buffer& buffer, const std::vector<tir::Expr>& start) const;

  // ---- statements (stmt_printer.cc) ----
  void stmt(const tir::Stmt& s, CodeWriter& out);
  void for_loop(const tir::ForNode& op, CodeWriter& out);
  void if_then_else(const tir::IfThenElseNode& op, CodeWriter& out);
  void store(const tir::StoreNode& op, CodeWriter& out);
  void vector_store(const tir::StoreNode& op, CodeWriter& out);
  void allocate(const tir::AllocateNode& op, CodeWriter& out);
  void let_stmt(const tir::LetStmtNode& op, CodeWriter& out);
  void evaluate(const tir::EvaluateNode& op, CodeWriter& out);
  void block(const tir::BlockNode& op, CodeWriter& out);
  // The statements of a sequence at the top of the function's parallel region: those
  // without a parallel loop run on one thread (`omp single`, consecutive ones together).
  void region_sequence(const tir::SeqNode& op, CodeWriter& out);
  // Writes the declarations that expressions printed so far hoisted (let expressions).
  void flush_prelude(CodeWriter& out);
  // The value to store, converted to the buffer's storage type.
  std::string stored_value(const tir::Buffer& buffer, const tir::Expr& value);
  // A C value computed in float converted to f16/bf16 storage; other types stay as they are.
  std::string to_storage(DType dtype, const std::string& value);

  // ---- scopes ----
  std::string bind(const tir::Var& v, bool nonneg, bool lane_array = false,
                   bool vector_value = false);
  void unbind(const tir::Var& v);

  void fail(Error error);

  const tir::PrimFunc& func_;
  std::string symbol_, impl_name_;
  UnitState& unit_;
  NameTable locals_;
  std::unordered_map<const tir::VarNode*, std::vector<VarInfo>> vars_;  // innermost last
  std::unordered_map<const tir::VarNode*, BufferInfo> buffers_;         // by data variable
  std::vector<std::string> prelude_;
  bool in_lane_ = false;      // printing one lane of a vector expression
  int conditional_ = 0;       // inside a branch that is evaluated conditionally
  bool in_parallel_ = false;  // inside an `omp parallel for`, or the function's region
  // Printing the top level of the function's one `omp parallel` region, where parallel
  // loops are `omp for` and other statements `omp single`.
  bool region_top_ = false;
  bool uses_status_ = false;  // a heap allocation may fail
  int gathers_ = 0;           // vectors gathered so far (uma_gather0, ...)
  std::optional<Error> error_;
};

}  // namespace uma::codegen
