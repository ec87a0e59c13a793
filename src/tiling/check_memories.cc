// check-memories: what each memory holds at once fits it (see uma/tiling/passes.h).
#include <map>

#include "uma/tiling/passes.h"
#include "uma/tir/functor.h"

namespace uma::tiling {
namespace {

using namespace tir;

class Peaks {
 public:
  explicit Peaks(const MemoryModel& model) : model_(model) {}

  Status visit(const Stmt& s) {
    if (!s.defined()) return Status::success();
    if (const auto* block = s.as<BlockNode>()) {
      bool outermost = block_.empty();
      if (outermost) block_ = block->name;
      Status ok = visit_children(s);
      if (outermost) block_.clear();
      return ok;
    }
    if (const auto* allocate = s.as<AllocateNode>()) {
      const Memory* memory = model_.find(allocate->buffer->scope);
      if (memory == nullptr) return visit(allocate->body);
      std::int64_t elements = 1;
      for (const Expr& dim : allocate->buffer->shape) {
        std::optional<std::int64_t> extent = as_const_int(dim);
        if (!extent)
          return make_error("buffer %{} in memory '{}' has a size that is not a constant",
                            allocate->buffer->name, memory->name);
        elements *= *extent;
      }
      std::int64_t bytes = memory->footprint(
          elements * static_cast<std::int64_t>(dtype_size(allocate->buffer->dtype)));
      std::int64_t& live = live_[memory->name];
      live += bytes;
      if (live > memory->capacity)
        return make_error("memory '{}' would hold {} bytes at once in block '{}', more than its {}",
                          memory->name, live, block_.empty() ? "?" : block_, memory->capacity);
      UMA_TRY(visit(allocate->body));
      live -= bytes;
      return Status::success();
    }
    return visit_children(s);
  }

 private:
  Status visit_children(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::Seq:
        for (const Stmt& child : s.as<SeqNode>()->stmts) UMA_TRY(visit(child));
        return Status::success();
      case StmtKind::For:
        return visit(s.as<ForNode>()->body);
      case StmtKind::LetStmt:
        return visit(s.as<LetStmtNode>()->body);
      case StmtKind::IfThenElse:
        UMA_TRY(visit(s.as<IfThenElseNode>()->then_case));
        return visit(s.as<IfThenElseNode>()->else_case);
      case StmtKind::Block:
        UMA_TRY(visit(s.as<BlockNode>()->init));
        return visit(s.as<BlockNode>()->body);
      case StmtKind::Allocate:
        return visit(s.as<AllocateNode>()->body);
      default:
        return Status::success();
    }
  }

  const MemoryModel& model_;
  std::map<std::string, std::int64_t> live_;
  std::string block_;
};

}  // namespace

tir::FuncPass check_memories_pass(const MemoryModel& model) {
  return {"check-memories", [model](const PrimFunc& func) -> Expected<PrimFunc> {
            UMA_TRY(Peaks(model).visit(func.body));
            return func;
          }};
}

}  // namespace uma::tiling
