// Statements of the loop IR as C statements, and the function around them.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "c_types.h"
#include "function_printer.h"
#include "uma/tir/functor.h"
#include "vector_types.h"

namespace uma::codegen {

using namespace tir;
using namespace prec;

namespace {

// Whether evaluating `e` may read `data`'s buffer (a load of it, or any extern call).
class ReadsBuffer : public Visitor {
 public:
  explicit ReadsBuffer(const VarNode* data) : data_(data) {}
  bool found = false;
  using Visitor::visit;

 protected:
  void visit(const LoadNode& op) override {
    if (op.buffer->data.as<VarNode>() == data_) found = true;
    Visitor::visit(op);
  }
  void visit(const CallNode& op) override {
    if (op.call_kind == CallNode::CallKind::kExtern) found = true;
    Visitor::visit(op);
  }

 private:
  const VarNode* data_;
};

// Whether every read of `data`'s buffer in an expression is of the elements a store at
// `indices` writes, lane for lane, as `acc[ramp] = acc[ramp] + ...` reads: then each lane
// reads only what it writes itself. An extern call could read anything.
class ReadsOnlyItsOwnLane : public Visitor {
 public:
  ReadsOnlyItsOwnLane(const VarNode* data, DType dtype, const std::vector<Expr>& indices)
      : data_(data), dtype_(dtype), indices_(indices) {}
  bool ok = true;
  using Visitor::visit;

 protected:
  void visit(const LoadNode& op) override {
    if (op.buffer->data.as<VarNode>() != data_) return Visitor::visit(op);
    ok &= op.buffer->dtype == dtype_ && op.indices.size() == indices_.size();
    for (std::size_t k = 0; ok && k < indices_.size(); ++k) ok &= equal(op.indices[k], indices_[k]);
  }
  void visit(const CallNode& op) override {
    if (op.call_kind == CallNode::CallKind::kExtern) ok = false;
    Visitor::visit(op);
  }

 private:
  const VarNode* data_;
  DType dtype_;
  const std::vector<Expr>& indices_;
};

// Whether the lanes of a store at `indices` into a dense buffer write distinct elements:
// one index is a ramp of nonzero constant stride, the others are scalars.
bool lanes_write_distinct_elements(const Buffer& buffer, const std::vector<Expr>& indices) {
  if (!buffer->strides.empty()) return false;
  int ramps = 0;
  for (const Expr& index : indices) {
    if (index.type().lanes == 1) continue;
    const auto* ramp = index.as<RampNode>();
    std::optional<std::int64_t> stride = ramp ? as_const_int(ramp->stride) : std::nullopt;
    if (!stride || *stride == 0) return false;
    ++ramps;
  }
  return ramps == 1;
}

bool has_parallel_loop(const Stmt& s) {
  bool found = false;
  pre_order_visit(s, [&](const ExprNode*, const StmtNode* node) {
    found |= node != nullptr && node->kind == StmtKind::For &&
             static_cast<const ForNode*>(node)->for_kind == ForKind::kParallel;
  });
  return found;
}

// Whether the iterations of an innermost loop are independent: no loop inside it, each
// store at indices that use its variable, and no buffer it stores to read in it (so no
// iteration reads what another writes). GCC cannot see this inside an `omp parallel for`,
// whose outlined body reaches the function's pointers without their `restrict`, and then
// leaves the loop scalar; `#pragma GCC ivdep` tells it.
bool independent_iterations(const ForNode& loop) {
  const VarNode* var = loop.var.as<VarNode>();
  auto uses_var = [&](const Expr& e) {
    bool found = false;
    pre_order_visit(EvaluateNode::make(e),
                    [&](const ExprNode* node, const StmtNode*) { found |= node == var; });
    return found;
  };
  bool ok = true;
  std::vector<const BufferNode*> stored, loaded;
  pre_order_visit(loop.body, [&](const ExprNode* e, const StmtNode* node) {
    if (node != nullptr && node->kind == StmtKind::For) ok = false;
    if (node != nullptr && node->kind == StmtKind::Store) {
      const auto& store = *static_cast<const StoreNode*>(node);
      ok &= std::any_of(store.indices.begin(), store.indices.end(), uses_var);
      stored.push_back(store.buffer.get());
    }
    if (e != nullptr && e->kind == ExprKind::Load)
      loaded.push_back(static_cast<const LoadNode*>(e)->buffer.get());
  });
  for (const BufferNode* buffer : stored)
    ok &= std::find(loaded.begin(), loaded.end(), buffer) == loaded.end();
  return ok && !stored.empty();
}

bool has_extern_call(const Stmt& s) {
  bool found = false;
  pre_order_visit(s, [&](const ExprNode* e, const StmtNode*) {
    found |= e != nullptr && e->kind == ExprKind::Call &&
             static_cast<const CallNode*>(e)->call_kind == CallNode::CallKind::kExtern;
  });
  return found;
}

// Whether a function body can run as one `omp parallel` region: its parallel loops (two
// or more, else `omp parallel for` is the same) are reached through sequences, blocks and
// lets only, and no extern call runs outside them (a driver call stays outside any
// parallel region, as it is outside parallel loops).
class OneRegion {
 public:
  explicit OneRegion(const Stmt& body) { visit(body); }
  bool applies() const { return ok_ && parallel_loops_ >= 2; }

 private:
  void visit(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::Seq:
        for (const Stmt& child : s.as<SeqNode>()->stmts) visit(child);
        return;
      case StmtKind::Block:
        return visit(s.as<BlockNode>()->body);
      case StmtKind::LetStmt: {
        const auto& op = *s.as<LetStmtNode>();
        ok_ &= !has_extern_call(EvaluateNode::make(op.value));
        return visit(op.body);
      }
      case StmtKind::For:
        if (s.as<ForNode>()->for_kind == ForKind::kParallel) {
          ++parallel_loops_;
          return;
        }
        break;
      default:
        break;
    }
    ok_ &= !has_parallel_loop(s) && !has_extern_call(s);
  }

  bool ok_ = true;
  int parallel_loops_ = 0;
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

// GCC accepts unroll counts up to this.
constexpr std::int64_t kMaxUnroll = 65534;

}  // namespace

FunctionPrinter::FunctionPrinter(const PrimFunc& func, std::string symbol, std::string impl_name,
                                 UnitState& unit)
    : func_(func),
      symbol_(std::move(symbol)),
      impl_name_(std::move(impl_name)),
      unit_(unit),
      locals_(unit.globals) {}

std::string FunctionPrinter::bind(const Var& v, bool nonneg, bool lane_array, bool vector_value) {
  const auto* node = v.as<VarNode>();
  std::string name = locals_.unique(node->name);
  vars_[node].push_back({name, nonneg, lane_array, vector_value});
  return name;
}

void FunctionPrinter::unbind(const Var& v) { vars_[v.as<VarNode>()].pop_back(); }

void FunctionPrinter::flush_prelude(CodeWriter& out) {
  for (const std::string& line : prelude_) out.line(line);
  prelude_.clear();
}

Status FunctionPrinter::print(CodeWriter& out) {
  std::vector<std::string> params, args;
  for (std::size_t k = 0; k < func_.params.size(); ++k) {
    const Buffer& buffer = func_.params[k];
    const auto* data = buffer->data.as<VarNode>();
    if (buffers_.count(data) != 0)
      return make_error("function '{}': buffer '{}' is a parameter twice", func_.name,
                        buffer->name);
    std::string name = locals_.unique(buffer->name);
    buffers_[data] = {name, buffer->dtype};
    std::string_view type = storage_type(buffer->dtype);
    params.push_back(fmt::format("{}* restrict {}", type, name));
    args.push_back(fmt::format("({}*)args[{}]", type, k));
  }
  CodeWriter body(1);
  if (func_.body.defined()) {
    // One team of threads for the whole function rather than one per parallel loop.
    if (unit_.options.openmp && OneRegion(func_.body).applies()) {
      body.line("#pragma omp parallel");
      body.open("");
      region_top_ = in_parallel_ = true;
      stmt(func_.body, body);
      region_top_ = in_parallel_ = false;
      body.close();
    } else {
      stmt(func_.body, body);
    }
  }
  if (error_) return *error_;

  out.line(fmt::format("// {}", comment_text(func_.name)));
  out.open(fmt::format("static inline int32_t {}({})", impl_name_,
                       params.empty() ? "void" : join(params)));
  if (uses_status_) out.line("int32_t uma_status = 0;");
  out.append(body.str());
  out.line(uses_status_ ? "return uma_status;" : "return 0;");
  out.close();
  out.line("");
  out.open(fmt::format("int32_t {}(void* const* args)", symbol_));
  if (args.empty()) out.line("(void)args;");
  out.line(fmt::format("return {}({});", impl_name_, join(args)));
  out.close();
  return Status::success();
}

void FunctionPrinter::stmt(const Stmt& s, CodeWriter& out) {
  if (region_top_ && s.kind() == StmtKind::Seq) return region_sequence(*s.as<SeqNode>(), out);
  if (region_top_ && !has_parallel_loop(s)) {
    out.line("#pragma omp single");
    out.open("");
    region_top_ = false;
    stmt(s, out);
    region_top_ = true;
    out.close();
    return;
  }
  switch (s.kind()) {
    case StmtKind::LetStmt:
      return let_stmt(*s.as<LetStmtNode>(), out);
    case StmtKind::For:
      return for_loop(*s.as<ForNode>(), out);
    case StmtKind::IfThenElse:
      return if_then_else(*s.as<IfThenElseNode>(), out);
    case StmtKind::Store:
      return store(*s.as<StoreNode>(), out);
    case StmtKind::Allocate:
      return allocate(*s.as<AllocateNode>(), out);
    case StmtKind::Seq:
      for (const Stmt& child : s.as<SeqNode>()->stmts) stmt(child, out);
      return;
    case StmtKind::Evaluate:
      return evaluate(*s.as<EvaluateNode>(), out);
    case StmtKind::Block:
      return block(*s.as<BlockNode>(), out);
  }
}

void FunctionPrinter::region_sequence(const SeqNode& op, CodeWriter& out) {
  const std::vector<Stmt>& stmts = op.stmts;
  for (std::size_t k = 0; k < stmts.size();) {
    if (has_parallel_loop(stmts[k])) {
      stmt(stmts[k++], out);
      continue;
    }
    out.line("#pragma omp single");
    out.open("");
    region_top_ = false;
    while (k < stmts.size() && !has_parallel_loop(stmts[k])) stmt(stmts[k++], out);
    region_top_ = true;
    out.close();
  }
}

void FunctionPrinter::for_loop(const ForNode& op, CodeWriter& out) {
  auto min = as_const_int(op.min), extent = as_const_int(op.extent);
  std::string begin = text(op.min), end;
  if (min && extent)
    end = int_literal(op.var.type(), *min + *extent, false);
  else if (min == 0)
    end = operand(op.extent, kRelational + 1);
  else
    end = operand(op.min + op.extent, kRelational + 1);
  flush_prelude(out);

  bool region_loop = region_top_ && op.for_kind == ForKind::kParallel;
  bool parallel = op.for_kind == ForKind::kParallel && unit_.options.openmp && !in_parallel_;
  if (parallel) out.line("#pragma omp parallel for");
  if (region_loop) out.line("#pragma omp for");
  if (op.for_kind == ForKind::kVectorized ||
      (in_parallel_ && op.for_kind == ForKind::kSerial && independent_iterations(op)))
    out.line("#pragma GCC ivdep");
  if (op.for_kind == ForKind::kUnrolled && extent && *extent > 0 && *extent <= kMaxUnroll)
    out.line(fmt::format("#pragma GCC unroll {}", *extent));

  std::string name = bind(op.var, nonneg(op.min));
  out.open(fmt::format("for ({} {} = {}; {} < {}; ++{})", c_type(op.var.type()), name, begin, name,
                       end, name));
  if (parallel) in_parallel_ = true;
  region_top_ = false;
  stmt(op.body, out);
  region_top_ = region_loop;
  if (parallel) in_parallel_ = false;
  out.close();
  unbind(op.var);
}

void FunctionPrinter::if_then_else(const IfThenElseNode& op, CodeWriter& out) {
  std::string condition = text(op.condition);
  flush_prelude(out);
  out.open(fmt::format("if ({})", condition));
  stmt(op.then_case, out);
  if (op.else_case.defined()) {
    out.reopen("} else {");
    stmt(op.else_case, out);
  }
  out.close();
}

std::string FunctionPrinter::to_storage(DType dtype, const std::string& value) {
  if (dtype != DType::f16 && dtype != DType::bf16) return value;
  std::string helper = dtype == DType::f16 ? "uma_f32_to_f16" : "uma_f32_to_bf16";
  unit_.helpers.use(helper);
  return fmt::format("{}({})", helper, value);
}

std::string FunctionPrinter::stored_value(const Buffer& buffer, const Expr& value) {
  // Storing rounds already: a cast from f32 to the buffer's 16-bit type need not round first.
  const auto* cast = value.as<CastNode>();
  bool is_16_bit = buffer->dtype == DType::f16 || buffer->dtype == DType::bf16;
  if (is_16_bit && cast && cast->type.dtype == buffer->dtype &&
      cast->value.type().dtype == DType::f32)
    return to_storage(buffer->dtype, text(cast->value));
  return to_storage(buffer->dtype, text(value));
}

void FunctionPrinter::store(const StoreNode& op, CodeWriter& out) {
  if (op.value.type().lanes > 1) return vector_store(op, out);
  if (!find_buffer(op.buffer, "written")) return;
  std::string offset_text = offset(op.buffer, op.indices).text;
  std::string value = stored_value(op.buffer, op.value);
  flush_prelude(out);
  out.line(fmt::format("{}[{}] = {};", base(op.buffer), offset_text, value));
}

// A vector store, one lane per iteration of a loop the C compiler vectorizes. When the
// value may read the buffer being stored to, all lanes are computed before any is stored,
// as a vector store would; unless each lane reads only the element it writes (an
// accumulator's `acc[ramp] = acc[ramp] + ...`), where storing lane by lane is the same.
void FunctionPrinter::vector_store(const StoreNode& op, CodeWriter& out) {
  if (!find_buffer(op.buffer, "written")) return;
  if (vector_statement(op, out)) return;
  std::uint16_t lanes = op.value.type().lanes;
  const auto* data = op.buffer->data.as<VarNode>();
  ReadsBuffer reads(data);
  for (const Expr& index : op.indices) reads.visit(index);
  if (!reads.found) {
    ReadsOnlyItsOwnLane own_lane(data, op.buffer->dtype, op.indices);
    own_lane.visit(op.value);
    if (!own_lane.ok || !lanes_write_distinct_elements(op.buffer, op.indices))
      reads.visit(op.value);
  }

  in_lane_ = true;
  std::string offset_text = offset(op.buffer, op.indices).text;
  std::string value = reads.found ? text(op.value) : stored_value(op.buffer, op.value);
  in_lane_ = false;
  std::string lane_loop =
      fmt::format("for (int64_t uma_lane = 0; uma_lane < {}; ++uma_lane)", lanes);
  if (!reads.found) {
    out.line("#pragma GCC ivdep");
    out.open(lane_loop);
    flush_prelude(out);
    out.line(fmt::format("{}[{}] = {};", base(op.buffer), offset_text, value));
    out.close();
    return;
  }
  out.open("");
  out.line(fmt::format("{} uma_value[{}];", value_type(op.buffer->dtype), lanes));
  out.line(fmt::format("int64_t uma_index[{}];", lanes));
  out.open(lane_loop);
  flush_prelude(out);
  out.line(fmt::format("uma_value[uma_lane] = {};", value));
  out.line(fmt::format("uma_index[uma_lane] = {};", offset_text));
  out.close();
  out.open(lane_loop);
  std::string stored = to_storage(op.buffer->dtype, "uma_value[uma_lane]");
  out.line(fmt::format("{}[uma_index[uma_lane]] = {};", base(op.buffer), stored));
  out.close();
  out.close();
}

void FunctionPrinter::allocate(const AllocateNode& op, CodeWriter& out) {
  const Buffer& buffer = op.buffer;
  const auto* data = buffer->data.as<VarNode>();
  if (buffers_.count(data) != 0) {
    fail(make_error("buffer '{}' is allocated while it already exists", buffer->name));
    return;
  }
  // The size, if constant.
  std::optional<std::int64_t> elements = 1;
  for (const Expr& dim : buffer->shape) {
    auto extent = as_const_int(dim);
    if (!extent) {
      elements.reset();
      break;
    }
    if (*extent < 0 || __builtin_mul_overflow(*elements, *extent, &*elements)) {
      fail(make_error("buffer '{}' has an invalid size", buffer->name));
      return;
    }
  }
  std::int64_t bytes = 0;
  if (elements && __builtin_mul_overflow(
                      *elements, static_cast<std::int64_t>(dtype_size(buffer->dtype)), &bytes)) {
    fail(make_error("buffer '{}' is too large", buffer->name));
    return;
  }
  std::string_view type = storage_type(buffer->dtype);
  std::string scope =
      buffer->scope == "global" ? "" : fmt::format("  // scope {}", comment_text(buffer->scope));

  if (elements && static_cast<std::uint64_t>(bytes) <= unit_.options.stack_alloc_limit) {
    std::string name = locals_.unique(buffer->name);
    int lanes = vector_array_lanes(op);
    if (lanes > 0) {
      std::string vector = use_vector_type(
          unit_.helpers, DataType{buffer->dtype, static_cast<std::uint16_t>(lanes), false});
      out.line(fmt::format("{} {}[{}];{}", vector, name, *elements / lanes, scope));
    } else {
      out.line(
          fmt::format("{} {}[{}];{}", type, name, std::max<std::int64_t>(*elements, 1), scope));
    }
    buffers_[data] = {name, buffer->dtype, lanes};
    stmt(op.body, out);
    buffers_.erase(data);
    return;
  }

  std::string size;
  if (elements) {
    size = fmt::format("{}", bytes);
  } else {
    std::vector<std::string> dims;
    for (const Expr& dim : buffer->shape) dims.push_back(operand(dim, kMul + 1));
    size = "(size_t)";
    for (std::size_t k = 0; k < dims.size(); ++k) size += (k ? " * " : "(") + dims[k];
    size += fmt::format(") * sizeof({})", type);
  }
  flush_prelude(out);
  std::string name = locals_.unique(buffer->name);
  unit_.helpers.use("uma_alloc");
  uses_status_ = true;
  out.line(fmt::format("{0}* restrict {1} = ({0}*)uma_alloc({2});{3}", type, name, size, scope));
  out.open(fmt::format("if ({} == NULL)", name));
  if (in_parallel_) out.line("#pragma omp atomic write");
  out.line("uma_status = -1;");
  out.reopen("} else {");
  buffers_[data] = {name, buffer->dtype};
  stmt(op.body, out);
  buffers_.erase(data);
  out.line(fmt::format("free({});", name));
  out.close();
}

void FunctionPrinter::let_stmt(const LetStmtNode& op, CodeWriter& out) {
  DataType type = op.value.type();
  bool value_nonneg = nonneg(op.value);
  if (type.lanes > 1 && vector_form(op.value)) {
    // A GCC vector value.
    std::string value = vector_expr(op.value).text;
    std::string name = bind(op.var, value_nonneg, true, true);
    flush_prelude(out);
    out.line(fmt::format("const {} {} = {};", use_vector_type(unit_.helpers, type), name, value));
  } else if (type.lanes > 1) {
    // A vector value: an array with one element per lane.
    in_lane_ = true;
    std::string value = text(op.value);
    in_lane_ = false;
    std::string name = bind(op.var, value_nonneg, true);
    out.line(fmt::format("{} {}[{}];", value_type(type.dtype), name, type.lanes));
    out.line("#pragma GCC ivdep");
    out.open(fmt::format("for (int64_t uma_lane = 0; uma_lane < {}; ++uma_lane)", type.lanes));
    flush_prelude(out);
    out.line(fmt::format("{}[uma_lane] = {};", name, value));
    out.close();
  } else {
    std::string value = text(op.value);
    std::string name = bind(op.var, value_nonneg);
    flush_prelude(out);
    out.line(fmt::format("{} = {};", const_declaration(type, name), value));
  }
  stmt(op.body, out);
  unbind(op.var);
}

void FunctionPrinter::evaluate(const EvaluateNode& op, CodeWriter& out) {
  if (op.value.as<IntImmNode>()) return;  // a no-op
  std::string value = text(op.value);
  flush_prelude(out);
  const auto* call = op.value.as<CallNode>();
  if (call == nullptr) {
    out.line(fmt::format("(void)({});", value));
  } else if (call->call_kind == CallNode::CallKind::kExtern && unit_.options.hooks.extern_status) {
    // A backend's driver call: its failure becomes the function's result.
    uses_status_ = true;
    out.open("");
    out.line(fmt::format("const int32_t uma_call_status = {};", value));
    if (in_parallel_) {
      out.open("if (uma_call_status != 0)");
      out.line("#pragma omp atomic write");
      out.line("uma_status = uma_call_status;");
      out.close();
    } else {
      out.line("if (uma_call_status != 0 && uma_status == 0) uma_status = uma_call_status;");
    }
    out.close();
  } else {
    out.line(value + ";");
  }
}

void FunctionPrinter::block(const BlockNode& op, CodeWriter& out) {
  // An init has no place in C until decompose_reduction gives it one.
  if (op.init.defined())
    fail(make_error("block '{}' still has an init (decompose-reductions did not run)", op.name));
  out.open_commented("block " + comment_text(op.name));
  stmt(op.body, out);
  out.close();
}

}  // namespace uma::codegen
