// The loop IR verifier: one walk over the function that keeps the variables and buffers in
// scope, after a first walk that finds where each is bound (for messages that say why a
// use is out of scope). Linear in the function's size.
#include "uma/tir/verifier.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "uma/tir/functor.h"
#include "uma/tir/state.h"

namespace uma::tir {
namespace {

bool is_index(DataType t) { return !t.handle && is_integer(t.dtype); }

// Adds the variables it sees to a set.
class SymbolCollector final : public Visitor {
 public:
  explicit SymbolCollector(std::unordered_set<const VarNode*>& vars) : vars_(vars) {}
  using Visitor::visit;

 protected:
  void visit(const VarNode& op) override { vars_.insert(&op); }

 private:
  std::unordered_set<const VarNode*>& vars_;
};

// The variables of a block's own loops (not of blocks nested in it).
class BlockLoops final : public Visitor {
 public:
  std::vector<const VarNode*> vars;
  using Visitor::visit;

 protected:
  void visit(const ForNode& op) override {
    vars.push_back(op.var.as<VarNode>());
    visit(op.body);
  }
  void visit(const BlockNode&) override {}
};

class Verifier final : public Visitor {
 public:
  explicit Verifier(const PrimFunc& func) : func_(func) {}

  Status run() {
    if (!func_.body.defined()) return make_error("func @{}: has no body", func_.name);
    find_bindings();
    for (const Buffer& param : func_.params) {
      if (param == nullptr) return make_error("func @{}: a parameter is null", func_.name);
      if (!buffers_.insert(param.get()).second)
        fail("buffer '{}' is a parameter twice", param->name);
      bind_data(param);
    }
    // A parameter's shape and strides bind the variables in them (symbolic dimensions).
    SymbolCollector symbols(vars_);
    for (const Buffer& param : func_.params) {
      for (const Expr& e : param->shape) symbols.visit(e);
      for (const Expr& e : param->strides) symbols.visit(e);
    }
    UMA_TRY(check_state());
    visit(func_.body);
    // The load-time code sees the same parameters as the body.
    if (func_.init.defined()) visit(func_.init);
    if (func_.fini.defined()) visit(func_.fini);
    if (error_) return *error_;
    return Status::success();
  }

  using Visitor::visit;

 private:
  // ---- Errors ----

  template <typename... Args>
  void fail(fmt::format_string<Args...> format, Args&&... args) {
    if (error_) return;
    std::string where = fmt::format("func @{}", func_.name);
    if (!blocks_.empty()) where += fmt::format(", block {}", blocks_.back());
    error_ = make_error(format, std::forward<Args>(args)...).with_context(where);
  }

  // At most one state (uma/tir/state.h), an output-side u8 parameter of constant size.
  Status check_state() const {
    std::size_t states = 0;
    for (std::size_t k = 0; k < func_.params.size(); ++k) {
      const Buffer& param = func_.params[k];
      if (param->scope != kStateScope) continue;
      bool constant = param->shape.size() == 1 && as_const_int(param->shape[0]).has_value();
      if (++states > 1 || k < func_.num_inputs || param->dtype != DType::u8 || !constant)
        return make_error(
            "func @{}: state '{}' is not the function's one u8 output-side parameter of "
            "constant size",
            func_.name, param->name);
    }
    return Status::success();
  }

  // ---- Scopes ----

  // Where each variable and buffer is bound anywhere in the function, to say why a use
  // out of scope is out of scope.
  void find_bindings() {
    for (const Stmt* code : {&func_.body, &func_.init, &func_.fini})
      if (code->defined()) find_bindings(*code);
  }
  void find_bindings(const Stmt& code) {
    pre_order_visit(code, [&](const ExprNode* e, const StmtNode* s) {
      if (const auto* let =
              e && e->kind == ExprKind::Let ? static_cast<const LetNode*>(e) : nullptr)
        binders_.emplace(let->var.as<VarNode>(), "let");
      if (s == nullptr) return;
      if (s->kind == StmtKind::LetStmt)
        binders_.emplace(static_cast<const LetStmtNode*>(s)->var.as<VarNode>(), "let");
      if (s->kind == StmtKind::For)
        binders_.emplace(static_cast<const ForNode*>(s)->var.as<VarNode>(), "loop");
      if (s->kind == StmtKind::Allocate) {
        const Buffer& buffer = static_cast<const AllocateNode*>(s)->buffer;
        if (buffer == nullptr) return;
        allocated_.insert(buffer.get());
        if (const auto* data = buffer->data.as<VarNode>()) data_of_.emplace(data, buffer.get());
      }
    });
  }

  void bind_data(const Buffer& buffer) {
    if (const auto* data = buffer->data.as<VarNode>()) vars_.insert(data);
  }

  // Visits `body` with `var` bound.
  template <typename Body>
  void with_var(const Var& var, const Body& body) {
    const auto* node = var.as<VarNode>();
    if (node == nullptr) return fail("a let binds a non-variable");
    if (!vars_.insert(node).second)
      return fail("variable '{}' is bound again inside its own scope", node->name);
    visit(body);
    vars_.erase(node);
  }

  bool check_buffer(const Buffer& buffer, std::string_view use) {
    if (buffer == nullptr) {
      fail("{} names no buffer", use);
      return false;
    }
    if (buffers_.count(buffer.get())) return true;
    if (allocated_.count(buffer.get()))
      fail("buffer '{}' is used outside its allocation", buffer->name);
    else
      fail("buffer '{}' is neither a parameter nor allocated", buffer->name);
    return false;
  }

  void check_access(const Buffer& buffer, const std::vector<Expr>& indices, std::string_view use) {
    if (!check_buffer(buffer, use)) return;
    std::size_t rank = buffer->shape.size();
    if (indices.size() != rank && indices.size() != 1)
      return fail("buffer '{}' has {} dimension(s) but {} index(es) are given", buffer->name, rank,
                  indices.size());
    for (const Expr& index : indices) {
      if (!index.defined()) return fail("an index of buffer '{}' is undefined", buffer->name);
      if (!is_index(index.type()))
        return fail("an index of buffer '{}' is {}, not an integer", buffer->name,
                    to_string(index.type()));
      visit(index);
    }
  }

  // ---- Expressions ----

  void visit(const VarNode& op) override {
    if (vars_.count(&op)) return;
    if (auto it = data_of_.find(&op); it != data_of_.end())
      return fail("buffer '{}' is used outside its allocation", it->second->name);
    if (auto it = binders_.find(&op); it != binders_.end())
      return fail("variable '{}' is used outside its {}", op.name, it->second);
    fail("variable '{}' is not bound", op.name);
  }

  void visit(const LoadNode& op) override { check_access(op.buffer, op.indices, "a load"); }
  void visit(const AddressNode& op) override { check_access(op.buffer, op.indices, "an address"); }

  void visit(const LetNode& op) override {
    visit(op.value);
    with_var(op.var, op.body);
  }

  // ---- Statements ----

  void visit(const LetStmtNode& op) override {
    visit(op.value);
    with_var(op.var, op.body);
  }

  void visit(const ForNode& op) override {
    const auto* var = op.var.as<VarNode>();
    if (var == nullptr) return fail("a loop binds a non-variable");
    for (const auto& [what, bound] : {std::pair{"min", &op.min}, std::pair{"extent", &op.extent}}) {
      if (!bound->defined()) return fail("loop '{}' has no {}", var->name, what);
      if (!is_index(bound->type()) || bound->type() != op.var.type())
        return fail("the {} of loop '{}' is {}, not the loop variable's type {}", what, var->name,
                    to_string(bound->type()), to_string(op.var.type()));
    }
    if (op.for_kind == ForKind::kVectorized && !as_const_int(op.extent))
      return fail("vectorized loop '{}' has a non-constant extent", var->name);
    visit(op.min);
    visit(op.extent);
    with_var(op.var, op.body);
  }

  void visit(const IfThenElseNode& op) override {
    if (!op.condition.defined() || op.condition.type() != DataType::scalar(DType::boolean))
      return fail("an if condition is {}, not bool",
                  op.condition.defined() ? to_string(op.condition.type()) : "undefined");
    Visitor::visit(op);
  }

  void visit(const StoreNode& op) override {
    check_access(op.buffer, op.indices, "a store");
    if (error_) return;
    if (!op.value.defined()) return fail("a store into buffer '{}' has no value", op.buffer->name);
    std::uint16_t lanes = 1;
    for (const Expr& index : op.indices) lanes = std::max(lanes, index.type().lanes);
    DataType expected = DataType::vector(op.buffer->dtype, lanes);
    if (op.value.type() != expected)
      return fail("a store of {} into buffer '{}' needs {}", to_string(op.value.type()),
                  op.buffer->name, to_string(expected));
    visit(op.value);
  }

  void visit(const AllocateNode& op) override {
    if (op.buffer == nullptr) return fail("an allocation names no buffer");
    if (std::find(func_.params.begin(), func_.params.end(), op.buffer) != func_.params.end())
      return fail("buffer '{}' is a parameter and is allocated", op.buffer->name);
    if (buffers_.count(op.buffer.get()))
      return fail("buffer '{}' is allocated inside its own scope", op.buffer->name);
    for (const Expr& e : op.buffer->shape) visit(e);
    for (const Expr& e : op.buffer->strides) visit(e);
    buffers_.insert(op.buffer.get());
    with_var(op.buffer->data, op.body);
    buffers_.erase(op.buffer.get());
  }

  void visit(const BlockNode& op) override {
    if (op.name.empty()) return fail("a block has no name");
    blocks_.push_back(op.name);
    for (const Buffer& b : op.reads) check_buffer(b, "a block's read");
    for (const Buffer& b : op.writes) check_buffer(b, "a block's write");
    check_iterations(op);
    visit(op.body);
    blocks_.pop_back();
  }

  // The loop variables of the block's own loops, not already in scope.
  std::vector<const VarNode*> block_loop_vars(const BlockNode& op) {
    BlockLoops loops;
    loops.visit(op.body);
    std::vector<const VarNode*> found;
    for (const VarNode* var : loops.vars)
      if (var != nullptr && !vars_.count(var)) found.push_back(var);
    return found;
  }

  // Iteration variables: bound to the block's loops (and those around it); an init only
  // with a reduce iteration variable, and using no loop of one.
  void check_iterations(const BlockNode& op) {
    if (op.iter_vars.empty() && !op.init.defined()) return;
    std::vector<const VarNode*> loops = block_loop_vars(op);
    std::unordered_set<const VarNode*> spatial, reduce;
    std::unordered_set<std::string_view> names;
    bool has_reduce = false;
    for (const IterVar& iv : op.iter_vars) {
      if (iv.name.empty()) return fail("an iteration variable has no name");
      if (!names.insert(iv.name).second)
        return fail("iteration variable '{}' is declared twice", iv.name);
      for (const auto& [what, e] :
           {std::pair{"extent", &iv.extent}, std::pair{"binding", &iv.binding}}) {
        if (!e->defined()) return fail("iteration variable '{}' has no {}", iv.name, what);
        if (!is_index(e->type()))
          return fail("the {} of iteration variable '{}' is {}, not an integer", what, iv.name,
                      to_string(e->type()));
      }
      visit(iv.extent);
      std::unordered_set<const VarNode*> used;
      SymbolCollector(used).visit(iv.binding);
      for (const VarNode* var : used) {
        bool own = std::find(loops.begin(), loops.end(), var) != loops.end();
        if (!own && !vars_.count(var))
          return fail("iteration variable '{}' is bound to variable '{}', not a loop of the block",
                      iv.name, var->name);
        if (own) (iv.kind == IterKind::kReduce ? reduce : spatial).insert(var);
      }
      has_reduce |= iv.kind == IterKind::kReduce;
    }
    if (error_ || !op.init.defined()) return;
    if (!has_reduce) return fail("the block has an init but no reduce iteration variable");
    std::unordered_set<const VarNode*> used;
    SymbolCollector(used).visit(op.init);
    for (const VarNode* var : used)
      if (reduce.count(var))
        return fail("the init uses variable '{}' of a reduce iteration variable", var->name);
    std::vector<const VarNode*> bound;
    for (const VarNode* var : spatial)
      if (vars_.insert(var).second) bound.push_back(var);
    visit(op.init);
    for (const VarNode* var : bound) vars_.erase(var);
  }

  // Buffers are checked where they are used; their shapes where they are declared.
  void visit_buffer(const Buffer&) override {}

  const PrimFunc& func_;
  std::optional<Error> error_;
  std::vector<std::string_view> blocks_;
  std::unordered_set<const VarNode*> vars_;
  std::unordered_set<const BufferNode*> buffers_;
  std::unordered_map<const VarNode*, std::string_view> binders_;
  std::unordered_set<const BufferNode*> allocated_;
  std::unordered_map<const VarNode*, const BufferNode*> data_of_;
};

}  // namespace

Status verify(const PrimFunc& func) { return Verifier(func).run(); }

}  // namespace uma::tir
