// Helpers shared by the schedule primitives: finding statements with their ancestors, and
// rewriting the tree while recording which block nodes were rebuilt (so that the Schedule
// can move its BlockRef tickets to the new nodes).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "uma/tir/functor.h"
#include "uma/tir/interval.h"
#include "uma/tir/schedule.h"

namespace uma::tir::sched {

// A rebuilt block's old node -> its new node.
using BlockRemap = std::unordered_map<const StmtNode*, Stmt>;

// A statement with its ancestors: the root first, the statement last.
using Path = std::vector<Stmt>;

// The statements directly under `s`, in program order.
std::vector<Stmt> children(const Stmt& s);

// Calls `f` on every statement under `root` (and on `root`) with its path, parents before
// children; `f` returns whether to go into the statement's children.
void walk(const Stmt& root, const std::function<bool(const Path&)>& f);

// The path to `node` (by identity), or nullopt when it is not under `root`.
std::optional<Path> find_stmt(const Stmt& root, const StmtNode* node);

// The path to the loop of `loop`'s variable in `func`. Errors (prefixed by `primitive`)
// when the handle is empty, when no loop has the variable (a primitive replaced it), or
// when several do.
Expected<Path> find_loop(const PrimFunc& func, const LoopRef& loop, std::string_view primitive);

// The loops in `s` (not in blocks nested in it), a loop before those in its body.
std::vector<const ForNode*> loops_in(const Stmt& s);

// A mutator that records every block it rebuilds. Primitives derive from it and change a
// block itself by overriding mutate_block.
class TrackingMutator : public Mutator {
 public:
  explicit TrackingMutator(BlockRemap& remap) : remap_(remap) {}
  using Mutator::mutate;

 protected:
  Stmt mutate(const BlockNode& op, const Stmt& self) final;
  virtual Stmt mutate_block(const BlockNode& op, const Stmt& self) {
    return Mutator::mutate(op, self);
  }

 private:
  BlockRemap& remap_;
};

// The values a loop's variable takes, as far as the bounds of its min and extent under
// `known` tell (everything when they tell nothing).
Interval loop_range(const ForNode& loop, const Bounds& known);
// The ranges of the variables of the loops on `path`, leaving out its last statement.
Bounds loop_bounds(const Path& path);

// A TrackingMutator that knows, while it rewrites a loop's body, the range of the variable
// of every loop around (from `known` outward, loop_range inward).
class BoundedMutator : public TrackingMutator {
 public:
  BoundedMutator(BlockRemap& remap, Bounds known)
      : TrackingMutator(remap), known_(std::move(known)) {}
  using TrackingMutator::mutate;

 protected:
  Stmt mutate(const ForNode& op, const Stmt& self) override;
  const Bounds& known() const { return known_; }

 private:
  Bounds known_;
};

// Records that `old` (a block) was rebuilt as `now`, when `now` is a block (a block that a
// primitive wraps or replaces is recorded by that primitive).
void record(BlockRemap& remap, const Stmt& old, const Stmt& now);

// `root` with the statement `old` (by identity) replaced by `now`.
Stmt replace(const Stmt& root, const StmtNode* old, Stmt now, BlockRemap& remap);

// `root` with the loop at the end of `path` replaced by `now`, where `map` gives the old
// loop variables in terms of the new loops' (split, fuse): the innermost block around the
// loop gets its iteration bindings and init rewritten by `map` too.
Stmt replace_loop(const Stmt& root, const Path& path, Stmt now,
                  const std::unordered_map<const VarNode*, Expr>& map, BlockRemap& remap);

// `root` with the statement `block` taken out of the sequence holding it and `moved` put
// first (or, `at_end`, last) in the body of `loop` (compute_at, reverse_compute_at).
Stmt move_into_loop(const Stmt& root, const StmtNode* block, const ForNode* loop, Stmt moved,
                    bool at_end, BlockRemap& remap);

// `s` with variables replaced (by identity), recording the blocks rebuilt.
Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map,
                BlockRemap& remap);

// `s` with every use of the buffer `old` (loads, stores, addresses, blocks' reads and
// writes) made a use of `now`.
Stmt replace_buffer(const Stmt& s, const Buffer& old, const Buffer& now, BlockRemap& remap);

// A block named `name` that copies every element of `from` into `to` (same shape), one
// loop per dimension: for (ax0, 0, d0) { ... to[ax0, ...] = from[ax0, ...] }.
Stmt copy_block(const std::string& name, const Buffer& from, const Buffer& to);

// `offset + base`, or `offset` alone when `base` is the constant 0.
Expr offset_by(const Expr& base, const Expr& offset);
// An integer constant of `like`'s type.
Expr constant_like(const Expr& like, std::int64_t value);

// Whether `e` uses a variable of `vars`, or the variable `var`.
bool uses_any(const Expr& e, const std::unordered_set<const VarNode*>& vars);
bool uses(const Expr& e, const Var& var);

// The name of the first buffer that `loop`'s body stores to at indices that do not use
// the loop's variable (or that of a loop inside whose bounds use it), leaving out buffers
// allocated inside the loop: a reduction, whose iterations must not run at once.
std::optional<std::string> reduction_store(const ForNode& loop);

// Whether `s` holds an allocation of `buffer`.
bool allocates(const Stmt& s, const Buffer& buffer);

// Every buffer a statement loads, stores or takes the address of, in order of first use,
// leaving out buffers allocated inside it.
std::vector<Buffer> accessed_buffers(const Stmt& s, bool loads, bool stores);

// The loops of a block that stores one buffer: those indexing it, by the buffer's
// dimension, and all of them in nest order (outermost first); with the store at the
// bottom of the nest. A reduction's other loops are its reduce loops.
struct StoreNest {
  std::vector<const ForNode*> nest;
  std::vector<const ForNode*> by_dimension;
  Stmt store;
};

// `block` as one loop per dimension of `buffer` around one store to `buffer` at the loop
// variables (in any order), whose bounds use none of the nest's variables; else nullopt.
std::optional<StoreNest> pointwise_nest(const BlockNode& block, const Buffer& buffer);
// The same for a reduction block: its reduce loops may be anywhere in the nest, and the
// store may read the element it writes (the accumulation); else nullopt.
std::optional<StoreNest> reduction_nest(const BlockNode& block, const Buffer& buffer);

// Bounds of index expressions over every iteration of the loops inside a statement, as
// expressions of the variables bound outside it: each variable of an inner loop is replaced
// by its first or last value, where the expression is monotonic in it.
class RegionBounder {
 public:
  explicit RegionBounder(const Stmt& body);
  // The smallest (or largest) value of `e`, or nullopt when `e` is not monotonic in the
  // inner variables in a way this knows.
  std::optional<Expr> bound(const Expr& e, bool upper) const;

 private:
  template <typename F>
  std::optional<Expr> combine(const Expr& a, bool a_upper, const Expr& b, bool b_upper, F f) const;

  std::unordered_map<const VarNode*, const ForNode*> loops_;
  std::unordered_set<const VarNode*> inner_;  // every variable bound inside
};

// The box of `buffer` that `body` reads (its loads) or writes (its stores, with `stores`)
// in one run: per dimension, the lowest and highest index over the loops inside `body`,
// as expressions of the variables bound outside it (undefined where nothing is accessed).
// An Error naming `primitive` and `loop_name` when an index cannot be bounded.
struct Region {
  std::vector<Expr> lo, hi;
};
Expected<Region> accessed_region(const Stmt& body, const Buffer& buffer, bool stores,
                                 std::string_view primitive, std::string_view loop_name);

}  // namespace uma::tir::sched
