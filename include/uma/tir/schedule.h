// Schedule primitives: rewrites of a loop-IR function that change how it computes, never
// what (the order of loops, their kinds, where a producer is computed, which memory a
// buffer lives in), and the one that hands a block to an accelerator: replace its loop nest
// by an extern call. One primitive per file in src/tir/schedule/.
//
// A Schedule owns a PrimFunc and rewrites it in place, one primitive at a time; each
// primitive either succeeds completely or fails with an Error and leaves the function as it
// was. Messages start with the primitive and name the loop or block at fault:
// "vectorize: loop 'k' has extent n, not a constant".
//
// ## Handles
//
// Nodes are immutable, so a primitive builds new loop and block nodes; the handles below
// name what the user thinks of as "the same" loop or block across those rebuilds:
//
// - A LoopRef is the loop's variable (by identity, like every Var). Every primitive that
//   keeps a loop keeps its variable: reorder, parallel, vectorize, unroll, fuse and split of
//   other loops, compute_at (the consumer's loops, and the producer's, which get a new
//   range), cache_read, cache_write, pad and transform_layout. split, fuse, tile and
//   partition replace the loops they act on by loops with new variables and return handles
//   to those; replace_with_extern removes the loops of its block. A handle to a loop that
//   no longer exists gives an Error when used ("split: loop 'i' is not in function @f; a
//   split, fuse, tile, partition or replace_with_extern removed it").
// - A BlockRef is a ticket of this Schedule: the Schedule keeps, for each ticket, the
//   block's current node, and every primitive that rebuilds a block (because a loop inside
//   it changed, or it moved) moves the ticket to the new node. So a BlockRef stays valid
//   as long as the block exists (no primitive removes one), wherever it moves; it belongs
//   to the Schedule that made it (copies of a Schedule share its tickets). partition
//   copies the blocks inside the loop: a ticket follows the first copy.
// - A Buffer is named by its node. pad and transform_layout replace the buffer they act on
//   by a new node (of the same name) and return it; the old one is no longer used.
//
// ## Loops of a block
//
// Lowering gives each block its own loop nest inside it (`block conv2d_nchw { for n { for k
// ...`). get_loops lists the loops that enclose the block (after compute_at put it under a
// consumer's loop), outermost first, then the loops inside the block in program order
// (a loop before the loops in its body, loops side by side in a sequence in their order),
// leaving out loops of blocks nested in it.
//
// What primitives do not check: whether the iterations of a loop made parallel or
// vectorized are independent beyond the obvious case of a reduction (a store that does not
// depend on the loop's variable, which is an Error), and whether the index map given to
// transform_layout is one-to-one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "uma/support/error.h"
#include "uma/tir/ir.h"

namespace uma::tir {

// A block of a Schedule (see "Handles" above).
class BlockRef {
 public:
  bool operator==(const BlockRef&) const = default;

 private:
  friend class Schedule;
  explicit BlockRef(std::size_t id) : id_(id) {}
  std::size_t id_ = 0;
};

// A loop, named by its variable (see "Handles" above).
struct LoopRef {
  Var var;
};

// What split does when the factor does not divide the loop's extent (or the extent is not
// a constant).
enum class TailStrategy : std::uint8_t {
  kGuard,  // the outer loop rounds up and an `if` skips the iterations past the extent
  kError,  // an Error: the caller wanted an exact split
};

// A buffer's new layout, as a function of its indices: the element at indices `src` (one
// variable per dimension of the buffer, of its index type) moves to indices `dst`,
// expressions of `src` (e.g. {n, c, h, w} -> {n, h, w, c}, or {o, i, h, w} ->
// {o / 16, h, w, i, o % 16}).
struct IndexMap {
  std::vector<Var> src;
  std::vector<Expr> dst;
};

class Schedule {
 public:
  explicit Schedule(PrimFunc func);

  // The function as scheduled so far.
  const PrimFunc& func() const { return func_; }

  // ---- Lookup ----

  // The block named `name`; an Error when there is none or more than one.
  Expected<BlockRef> get_block(std::string_view name);
  // Every block named `name`, in program order; an Error when there is none.
  Expected<std::vector<BlockRef>> get_blocks(std::string_view name);
  // The block's name (an Error when the ticket is not this Schedule's).
  Expected<std::string> block_name(const BlockRef& block) const;
  // The loops of the block, outermost first (see "Loops of a block" above).
  Expected<std::vector<LoopRef>> get_loops(const BlockRef& block) const;
  // The block's current node, to read what a schedule depends on (its buffers' shapes,
  // its loops' extents); an Error naming `primitive` when the ticket is unknown or the
  // block is no longer in the function.
  Expected<Stmt> block_stmt(const BlockRef& block, std::string_view primitive) const;

  // ---- Loop transformations ----

  // for (v, min, extent) body becomes
  //   for (v_outer, 0, ceil(extent / factor)) { for (v_inner, 0, factor) { body } }
  // with v = min + v_outer * factor + v_inner; when factor does not divide a constant
  // extent, or the extent is not constant, `if (v_outer * factor + v_inner < extent)`
  // guards the body (kGuard) or the split fails (kError). The outer loop keeps the loop's
  // kind, the inner one is serial. Returns {outer, inner}.
  Expected<std::array<LoopRef, 2>> split(const LoopRef& loop, std::int64_t factor,
                                         TailStrategy tail = TailStrategy::kGuard);
  // Permutes loops of one perfect nest (each loop's body is the next loop, from the
  // outermost given to the innermost given): the given loops take the places the given
  // loops held, in the order given; loops between them that are not given stay where they
  // are. An Error when they are not nested in one another, when something other than a
  // loop lies between them, or when a loop's bounds would use the variable of a loop
  // moved inside it.
  Status reorder(const std::vector<LoopRef>& loops);
  // for (i, ...) { for (j, ...) { body } } (j the whole body of i) becomes one loop
  // `i_j_fused` over extent(i) * extent(j), with i = min_i + fused / extent(j) and
  // j = min_j + fused % extent(j). Both loops must have the same kind.
  Expected<LoopRef> fuse(const LoopRef& outer, const LoopRef& inner);
  // split(x, fx), split(y, fy), then reorder(x_outer, y_outer, x_inner, y_inner); y must be
  // nested in x. Returns {x_outer, y_outer, x_inner, y_inner}.
  Expected<std::array<LoopRef, 4>> tile(const LoopRef& x, const LoopRef& y, std::int64_t fx,
                                        std::int64_t fy, TailStrategy tail = TailStrategy::kGuard);
  // for (v, min, extent) body becomes two loops one after the other, of the loop's kind:
  //   for (v_main, min, at - min) { body } for (v_tail, at, min + extent - at) { body' }
  // where body' is a copy of the body with new variables for the loops and lets in it and
  // new buffers for its allocations (the main part keeps them, so handles to loops inside
  // the body name the main part's). In each part, an `if` whose condition the part's range
  // (and the constant ranges of the loops around and inside it) shows always true or
  // always false with an else is replaced by its branch. `at` is a value of the loop's
  // variable, which must be shown to lie strictly inside (min, min + extent). Returns
  // {main, tail}. After split(v, f) with a guard, partition(v_outer, extent / f) gives a
  // main part without the guard and the guarded tail; vectorized loops must keep constant
  // extents. A loop bound to iteration variables of its block must be the block's whole
  // body (reorder it outermost first): the block is copied with it, each copy bound to its
  // own part; for a reduce loop only the main part's copy keeps the init.
  Expected<std::array<LoopRef, 2>> partition(const LoopRef& loop, const Expr& at);

  // ---- Loop kinds ----
  // An Error when the loop carries a reduction (a store in it, to a buffer allocated
  // outside it, at indices that do not use the loop's variable).
  Status parallel(const LoopRef& loop);
  // Also an Error when the extent is not a constant.
  Status vectorize(const LoopRef& loop);
  // An Error when the extent is not a constant.
  Status unroll(const LoopRef& loop);

  // ---- Where a block computes ----

  // Moves `block` (the producer) to the start of `loop`'s body (a loop of its consumer)
  // and shrinks its loops to the region of its buffer that the loop's body reads in one
  // iteration (clamped to what the producer computed before). Supported: a producer that
  // writes one buffer in a pointwise nest (one loop per dimension around one store at the
  // loop variables, like a cache copy or an elementwise, padding or layout op) and that
  // comes before the loop in one sequence; a consumer that reads the buffer at indices
  // bounded by monotonic arithmetic of its loop variables (affine, floor division or
  // modulo by constants, min, max); and no other reader or writer of the buffer, which
  // must not be a function output. The producer's loops keep their variables and become
  // serial.
  Status compute_at(const BlockRef& block, const LoopRef& loop);

  // ---- Reductions ----

  // Moves the init of `block` (a reduction block) into a new block `<name>_init` placed
  // right before `loop`, a loop of the block that no loop of a reduce iteration variable
  // encloses (at the innermost, the first reduce loop). The init runs in copies (variables
  // `<var>_init`, same ranges and kinds) of the spatial loops of `loop`'s perfect nest,
  // `loop` included; the new block has the block's spatial iteration variables, bound
  // through the copies. The block keeps its iteration variables and loses its init.
  // Returns the init block. An Error when the block has no init, when `loop` is not the
  // block's own, when a reduce loop encloses it, when a loop under it is bound to both a
  // spatial and a reduce iteration variable, or when a spatial loop under it is outside
  // its perfect nest (the init could not run once per point).
  Expected<BlockRef> decompose_reduction(const BlockRef& block, const LoopRef& loop);

  // Moves `block` (a consumer) to the end of `loop`'s body (a loop of its producer) and
  // shrinks its loops to the region of the buffer it reads that one iteration of the loop
  // writes (clamped to what the consumer computed before): an epilogue computed as soon as
  // a reduction finishes each output point or tile. Supported: a consumer that writes one
  // buffer in a pointwise nest and reads the loop's buffer at the indices it writes, after
  // the loop in one sequence, with nothing between them using either buffer; a loop whose
  // stores of the buffer are bounded by monotonic arithmetic of its inner loops, in a
  // region of constant size that every iteration of the loop, and of the loops around it
  // that are not around the consumer, moves past (so that no later iteration writes it
  // again: the loop must not be inside a reduction's loops). The consumer's loops keep
  // their variables and become serial.
  Status reverse_compute_at(const BlockRef& block, const LoopRef& loop);

  // Factors the reduction of `block` over `loop` (one of its loops, bound to reduce
  // iteration variables only, of constant extent L) into partial results, as in TensorIR:
  // the block becomes
  //   allocate %<out>_rf: <out's shape> x [L] in `scope` {
  //     block <name>_rf: the block's nest, accumulating into %<out>_rf[<out's indices>, v]
  //       (v the loop's variable, now a spatial iteration variable, so the loop may be
  //       vectorized); init: the combiner's identity (0, 1, -inf or +inf)
  //     block <name>: copies of the spatial loops around `for (v, 0, L)` combining the
  //       partials into %<out>; init: the block's init }
  // The loop and the block's other loops stay in <name>_rf; the ticket follows <name>.
  // Returns <name>_rf. With split(k, L) first, rfactor(block, k_inner) gives L vector
  // partial sums and a lane reduction. An Error unless the block's body has one store,
  // %out[I] = combine(%out[I], value) with combine +, *, min or max, `value` not reading
  // %out and I using no reduce loop, inside loops and `if`s that use no spatial loop.
  Expected<BlockRef> rfactor(const BlockRef& block, const LoopRef& loop,
                             const std::string& scope = "global");

  // ---- Memory scopes ----

  // Copies `buffer`, which `block` reads, into a new buffer `<name>_<scope>` of `scope`
  // before the block (in a new block of the same name, with one loop per dimension), and
  // makes the block read the copy. The copy's allocation wraps the two blocks. Returns the
  // copy block. An Error when the block does not read the buffer or also writes it.
  Expected<BlockRef> cache_read(const BlockRef& block, const Buffer& buffer,
                                const std::string& scope);
  // Makes `block` write (and read back) a new buffer `<name>_<scope>` of `scope` instead of
  // `buffer`, and copies it to `buffer` after the block in a new block. The block must
  // write every element of the buffer it reads before reading it (as a reduction that
  // initializes its accumulator does). Returns the copy block.
  Expected<BlockRef> cache_write(const BlockRef& block, const Buffer& buffer,
                                 const std::string& scope);

  // ---- Buffer layouts ----

  // Grows a buffer the function allocates by `padding[d]` elements at the end of each
  // dimension d (none negative); accesses are unchanged, so the padding is neither read nor
  // written unless later primitives make it so (e.g. a guard dropped from a vector tail).
  // Returns the new buffer. An Error for a parameter (its size is the caller's; see
  // transform_layout) or a buffer with explicit strides.
  Expected<Buffer> pad(const Buffer& buffer, const std::vector<std::int64_t>& padding);
  // Changes a buffer's layout: the buffer becomes one of the same name whose dimension k
  // has extent max(map.dst[k]) + 1 over the old shape (so a split that does not divide
  // pads the buffer), and every load and store at indices I becomes one at map.dst with
  // map.src := I, simplified knowing the ranges of the loops around it. Returns the new
  // buffer. For a parameter this changes the function's calling convention: the caller
  // passes (or receives) the data in the new layout; the function's attribute
  // `layout_transform.<buffer name>` lists, in the order applied, each map as text
  // "(n, c, h, w) -> (n, h, w, c)", so a caller can tell. An Error when the shape is not
  // constant, the buffer has strides or is passed by address (to an extern call), or the
  // map has not one variable per dimension, uses other variables, or may give a negative
  // index.
  Expected<Buffer> transform_layout(const Buffer& buffer, const IndexMap& map);

  // ---- Handing a block to a backend ----

  // Replaces the block's body (its loop nest) by one statement, the extern call
  //   function_name(&read0[r0, ...], ..., &write0[w0, ...], ..., scalars...)
  // of type i32, whose buffer arguments are the block's reads then writes (each once), each
  // at the origin of the region the block accesses (0 below a padded read; the buffer's
  // origin when no bound is found): a block that compute_at moved under a tile loop hands
  // the call its tile, a block over a whole buffer the buffer,
  // and whose scalars are `scalars`, or by default the extents of the block's own loops
  // (get_loops order, outermost first). The block keeps its name, buffers and attributes,
  // so later passes still find it. An Error when the name is empty (the C code generator
  // checks that it is a C identifier, unless a backend's hook prints the call), when the
  // block contains another block, when its body accesses a buffer it does not list in its
  // reads or writes, or when an argument uses a variable bound inside the block.
  Status replace_with_extern(const BlockRef& block, const std::string& function_name,
                             std::optional<std::vector<Expr>> scalars = std::nullopt);

 private:
  // A ticket for a block of the current function.
  BlockRef track(const Stmt& block);
  // Installs a rewritten body; `remap` maps each rebuilt block's old node to its new one.
  void commit(Stmt body, const std::unordered_map<const StmtNode*, Stmt>& remap);
  // Sets a loop's kind (parallel, vectorize, unroll), after their checks.
  Status set_loop_kind(const LoopRef& loop, ForKind kind, std::string_view primitive);

  PrimFunc func_;
  // Ticket id -> the block's current node. Holding the node keeps its address from being
  // reused by another node while the ticket exists.
  std::vector<Stmt> blocks_;
};

}  // namespace uma::tir
