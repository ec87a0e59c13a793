// The list of core loop-IR passes, by command-line name, with their options.
#include "uma/tir/passes.h"

namespace uma::tir {
namespace {

// A non-negative integer option.
Expected<std::int64_t> get_count(PassOptions& options, std::string_view key,
                                 std::int64_t fallback) {
  UMA_TRY_ASSIGN(std::int64_t value, options.get_int(key, fallback));
  if (value < 0) return make_error("pass option '{}' must not be negative, not {}", key, value);
  return value;
}

}  // namespace

void register_core_passes(FuncPassRegistry& registry) {
  auto add = [&](const char* name, const char* summary, auto factory) {
    UMA_CHECK(registry.add(name, summary, std::move(factory)).ok(), "pass {} registered twice",
              name);
  };
  add("simplify", "simplify every expression and statement", simplify_pass);
  add("decompose-reductions",
      "move the init of every reduction block into a block of its own before its reduce loops, "
      "and the pointwise block after it that reads its result into its innermost spatial loop",
      decompose_reductions_pass);
  add("compact-buffers",
      "move each allocation into the loop whose iterations each use their own box of it, "
      "shrunk to the box",
      compact_buffers_pass);
  add("parallelize-blocks",
      "make each block's outer loop parallel where its iterations are independent and the "
      "block does at least min-work stores",
      [](PassOptions& options) -> Expected<FuncPass> {
        UMA_TRY_ASSIGN(std::int64_t min_work, get_count(options, "min-work", 0));
        return parallelize_blocks_pass(min_work);
      });
  add("flatten-buffers", "make every buffer one-dimensional and dense, with flat indices",
      flatten_buffers_pass);
  add("hoist-padding-guards",
      "test the conjuncts of padding guards that outer loops decide once per iteration of "
      "the loop around the accumulation",
      hoist_padding_guards_pass);
  add("vectorize",
      "turn loops marked vectorized into vector stores (serial, with a reason, when not)",
      [](PassOptions& options) -> Expected<FuncPass> {
        VectorizeOptions read;
        UMA_TRY_ASSIGN(read.max_lanes, get_count(options, "max-lanes", read.max_lanes));
        return vectorize_pass(read);
      });
  add("unroll", "copy the body of loops marked unrolled (and small serial loops, when asked)",
      [](PassOptions& options) -> Expected<FuncPass> {
        UnrollOptions read;
        UMA_TRY_ASSIGN(read.auto_max_extent,
                       get_count(options, "auto-max-extent", read.auto_max_extent));
        UMA_TRY_ASSIGN(read.max_extent, get_count(options, "max-extent", read.max_extent));
        return unroll_pass(read);
      });
  add("pipeline-dma", "overlap the move of each next tile with the compute of this one",
      pipeline_dma_pass);
  add("remove-no-op", "remove statements that do nothing", remove_no_op_pass);
  add("storage-rewrite", "share allocations whose lifetimes do not overlap", storage_rewrite_pass);
  add("lift-allocations",
      "make the global allocations around the body of at least min-bytes workspace parameters",
      [](PassOptions& options) -> Expected<FuncPass> {
        UMA_TRY_ASSIGN(std::int64_t min_bytes, get_count(options, "min-bytes", 0));
        return lift_allocations_pass(min_bytes);
      });
}

}  // namespace uma::tir
