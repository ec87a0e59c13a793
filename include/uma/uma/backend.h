// The UMA backend interface: one class a backend author subclasses to bring an accelerator
// or a kernel library into the compiler (DESIGN.md, "The UMA backend interface"; the
// tutorial is docs/backend-tutorial.md).
//
// A backend declares everything in its constructor, in this order:
//
//   class MyNpu : public uma::Backend {
//    public:
//     MyNpu() : Backend("my_npu") {
//       add_int_attr("dimension", 16, "the systolic array's side");         // 1. target
//       add_pattern("conv2d", conv2d_pattern(), check_conv2d);               // 2. patterns
//       add_composite_lowering("conv2d", lower_conv2d);                      //    and calls
//       add_graph_pass(GraphPhase::kPostPartitioning0, "my-npu-config", f);  // 3. graph passes
//       add_strategy("nn.conv2d", rule);                                     // 4. strategies
//       add_schedule("conv2d_nchw", tile_conv);                              //    and schedules
//       add_tir_pass(TirPhase::k0, "my-npu-tensorize", g);                   // 5. loop-IR passes
//       add_include("my_npu.h"); add_c_source("my_npu", kernel_code);        // 6. codegen
//     }
//   };
//   UMA_TRY(uma::register_backend(context, std::make_unique<MyNpu>()));
//
// register_backend creates the target kind "my_npu" (with the attributes, and those every
// accelerator's kind has: `no_fallback`, uma/uma/partition_policy.h), the partition
// target "my_npu" (composites "my_npu.conv2d", in registration order = priority), and keeps
// the rest for the build driver (uma/uma/build.h), which runs each pass and hook with the
// build's target of this kind: the attributes a user set ("my_npu --dimension=32") are
// what every callback sees. A composite lowering makes each call of its composite one
// block "my_npu.conv2d" whose body is one extern call (uma/lower/composite_lowering.h): the
// common case of a library or an accelerator driver. Passes of one phase run in
// registration order, after the core's passes of that phase. A strategy replaces an op's
// compute only inside the functions partitioned for this backend's target; other targets
// never see it.
//
// Load-time state: a loop-IR pass gives a function a state (tir::add_state, a per-executor
// buffer its calls receive) and an init and fini (PrimFunc::init, PrimFunc::fini) that the
// executor runs once when it loads the program and when it is destroyed
// (uma/tir/state.h). Backend C keeps what lives between calls there, never in a mutable
// static: one compiled library is shared by models with the same code and may run in
// several executors at once. With set_extern_status, an init's failed extern call fails
// the load, naming the function.
//
// The host is a backend too (backends/cpu/, the kind "c"): a backend that calls
// declare_host() has no patterns, and its strategies, schedules, loop-IR passes and codegen
// hooks apply to the host's functions, those no other backend takes. A Context has exactly
// one; its graph passes run after the other backends' of each phase.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "uma/codegen/c/c_codegen.h"
#include "uma/graph/ir.h"
#include "uma/lower/composite_lowering.h"
#include "uma/lower/compute.h"
#include "uma/lower/lower.h"
#include "uma/partition/partition.h"
#include "uma/pattern/pattern.h"
#include "uma/runtime/c_compiler.h"
#include "uma/runtime/compare.h"
#include "uma/sim/estimate.h"
#include "uma/tir/ir.h"
#include "uma/tiling/memory.h"
#include "uma/tiling/plan.h"
#include "uma/tir/schedule.h"
#include "uma/uma/target.h"

namespace uma {

class Context;
class CostPolicy;

// Where a backend's graph pass runs (DESIGN.md, "Phase semantics").
enum class GraphPhase : std::uint8_t {
  kPrePartitioning,    // the whole graph, before merge-composite
  kPostPartitioning0,  // right after partition-graph
  kPostPartitioning1,  // after the host's ops are fused: every function self-contained
};
inline constexpr std::size_t kNumGraphPhases = 3;
std::string_view graph_phase_name(GraphPhase phase);  // "PRE_PARTITIONING", ...

// Where a backend's loop-IR pass runs: TIR_PHASE_0..3 (uma/tir/phases.h).
enum class TirPhase : std::uint8_t { k0, k1, k2, k3 };

// ---- What a backend declares ----

// A pattern's predicate: accepts a match or rejects it with the reason the partition
// report shows.
using BackendPredicate = std::function<Status(const Match&, const Target&)>;
// Checks a target's attributes together (ranges, combinations) when a build's targets are
// parsed: an error says what is wrong ("dimension must be between 1 and 64, not 0").
using BackendTargetCheck = std::function<Status(const Target&)>;
// Whether the target runs a single op (outside any composite) by itself.
using BackendOpSupport = std::function<Status(const Node&, const Target&)>;
// A graph pass: whether it changed the module.
using BackendGraphPass = std::function<Expected<bool>(Module&, const Target&)>;
// A loop-IR pass: runs on each function partitioned for the backend's target (the host's
// functions, for the host's backend). Returns the function as given when it changes nothing.
using BackendTirPass = std::function<Expected<tir::PrimFunc>(const tir::PrimFunc&, const Target&)>;
// A composite's lowering to one extern call (lower::CompositeLowering with the target).
using BackendCompositeLowering =
    std::function<Expected<lower::ExternCall>(const lower::CompositeOperands&, const Target&)>;
// A strategy's compute: lower::ComputeRule with the target.
using BackendComputeRule = std::function<Expected<std::vector<lower::Stage>>(
    const Node&, const std::vector<lower::TensorView>&, lower::ComputeBuilder&, const Target&)>;
// A strategy's schedule: runs on each function of the target that holds the op, right
// after lowering (before the TIR_PHASE_0 passes).
using BackendSchedule = std::function<Status(tir::Schedule&, const Target&)>;
// A schedule of one block: runs on each block of its name in the functions of the target,
// right after lowering and the strategies' schedules (before the TIR_PHASE_0 passes).
using BackendBlockSchedule =
    std::function<Status(tir::Schedule&, const tir::BlockRef&, const Target&)>;
// What one layer the backend runs in tiles (its composite, its plan) costs, by its
// performance model (uma/sim/estimate.h).
using BackendEstimate = std::function<Expected<sim::LayerEstimate>(
    const Function& composite, const tiling::TilePlan& plan, const Target&)>;
// What one call of a composite costs on a target, as its backend estimates it.
struct CompositeCost {
  double seconds = 0;           // one call, moving its data included
  double transfer_seconds = 0;  // the part of `seconds` that moving data in and out costs
};
// A backend's estimate for a composite of its own (a Function as merge-composite makes it:
// attribute Composite = "<target>.<pattern>", the match's inputs its parameters) on `target`;
// the host's backend estimates what the same ops cost on the host. The partitioner's cost
// policy compares the two (uma/uma/partition_policy.h).
using BackendCost =
    std::function<Expected<CompositeCost>(const Function& composite, const Target& target)>;
// Prints an extern call as C, or nullopt for the default `name(args...)`.
using BackendExternPrinter = std::function<std::optional<std::string>(
    const tir::CallNode&, const codegen::CExprPrinter&, const Target&)>;

struct BackendPattern {
  std::string name;  // the composite is "<target>.<name>"
  PatternPtr pattern;
  BackendPredicate predicate;  // may be empty
};

struct BackendCompositeLoweringEntry {
  std::string pattern;  // a pattern of the backend's: the composite "<target>.<pattern>"
  BackendCompositeLowering lower;
};

struct BackendGraphPassEntry {
  GraphPhase phase;
  std::string name;
  BackendGraphPass run;
};

struct BackendTirPassEntry {
  TirPhase phase;
  std::string name;
  BackendTirPass run;
};

struct BackendBlockScheduleEntry {
  std::string block;  // the block's name, as lowering gives it ("conv2d_nchw", "dense")
  BackendBlockSchedule run;
};

struct BackendStrategy {
  std::string op;
  BackendComputeRule compute;
  BackendSchedule schedule;  // may be empty
};

// C a backend adds to its functions' code and to the link.
struct BackendCodegen {
  std::vector<std::string> includes;          // "npu.h" or <npu/npu.h>
  std::vector<std::string> include_dirs;      // -I for the generated code
  std::vector<runtime::CSourceFile> sources;  // compiled and linked with the functions
  std::vector<std::string> source_files;      // paths, read when a build needs them
  std::vector<std::string> libraries;         // link arguments: "-lnpu", "/path/libnpu.a"
  BackendExternPrinter print_extern_call;     // may be empty
  bool declare_externs = true;                // see codegen::CCodegenHooks
  bool extern_status = false;                 // see codegen::CCodegenHooks
};

// Everything a backend declared.
struct BackendSpec {
  std::string target_name;
  bool host = false;  // the host's backend (see Backend::declare_host)
  std::vector<TargetAttrDef> attrs;
  BackendTargetCheck check_target;  // may be empty
  std::vector<BackendPattern> patterns;
  std::vector<BackendCompositeLoweringEntry> composite_lowerings;
  std::set<std::string, std::less<>> whole_reductions;  // patterns (keep_reductions_whole)
  BackendOpSupport supports_op;  // may be empty: composites only
  std::vector<BackendGraphPassEntry> graph_passes;
  std::vector<BackendStrategy> strategies;
  std::vector<BackendBlockScheduleEntry> schedules;
  std::vector<BackendTirPassEntry> tir_passes;
  BackendCodegen codegen;
  // The accelerator's memories and DMA engine (uma/tiling/memory.h): with memories, every
  // composite with a lowering is tiled into them (uma/tiling/lower_tiled.h).
  std::vector<tiling::MemoryDecl> memories;
  std::optional<tiling::DmaDecl> dma;
  // Constants of at most this many elements are written into the code of the target's
  // functions as immediates; larger ones are buffers (lower::LowerOptions).
  std::int64_t max_immediate_elements = kMaxImmediateElements;
  // What a composite costs on the target; may be empty (see Backend::set_cost).
  BackendCost cost;
  // The tolerances its results are checked by, per dtype (default_tolerance for the rest).
  std::map<DType, Tolerance> tolerances;
  // Simulation (Backend::set_estimate, Backend::count_events).
  BackendEstimate estimate;  // may be empty
  std::vector<std::string> events;           // names of the counted events
  std::vector<std::string> event_functions;  // the C functions that count them
  Tolerance tolerance(DType dtype) const;
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const std::string& target_name() const { return spec_.target_name; }
  const BackendSpec& spec() const { return spec_; }

 protected:
  explicit Backend(std::string target_name) { spec_.target_name = std::move(target_name); }

  // This backend is the host's: its target kind runs what no other backend takes, and its
  // declarations apply to those functions. It declares no patterns.
  void declare_host();

  // 1. Target attributes, with their defaults.
  void add_string_attr(std::string name, std::string default_value, std::string help = {});
  void add_int_attr(std::string name, std::int64_t default_value, std::string help = {});
  void add_bool_attr(std::string name, bool default_value, std::string help = {});
  void set_target_check(BackendTargetCheck check);
  // 2. Patterns, highest priority first.
  void add_pattern(std::string name, PatternPtr pattern, BackendPredicate predicate = {});
  void set_op_support(BackendOpSupport supports_op);
  // A pattern's composite lowered to one extern call, with operands and attributes from the
  // graph (one per pattern).
  void add_composite_lowering(std::string pattern, BackendCompositeLowering lower);
  // With memories: the lowering of `pattern` takes a layer's reductions whole, so the core
  // never cuts them into chunks for it, even where a memory holds accumulators (a pool's
  // call, which cannot resume a max or an average from partial results).
  void keep_reductions_whole(std::string pattern);
  // On-chip memories, each sized by a target attribute "<name>_kb" it creates, and the DMA
  // engine that fills them (its attributes "dma_bytes_per_cycle", "dma_setup_cycles",
  // "dma_dims"). A backend with memories gets each call of a composite with a lowering
  // tiled to fit them: the lowering is called per tile, on a copy of the composite with the
  // tile's shapes, and its operands are the tiles in the memories (uma/tiling/). A layer
  // whose smallest tile does not fit stays on the host, with the reason in the report.
  void add_memory(tiling::MemoryDecl memory);
  void set_dma(tiling::DmaDecl dma);
  // 3. Graph passes.
  void add_graph_pass(GraphPhase phase, std::string name, BackendGraphPass pass);
  // 4. Lowering: constants of at most `count` elements become immediates in the code (8,
  // the host's, by default); 0 for a backend whose calls read every operand from memory.
  void set_max_immediate_elements(std::int64_t count);
  // Operator strategies (one per op). The op keeps its fusion category (OpDef::fusion).
  void add_strategy(std::string op, BackendComputeRule compute, BackendSchedule schedule = {});
  //    Schedules by block name (one per name), whatever compute made the block.
  void add_schedule(std::string block_name, BackendBlockSchedule schedule);
  // 5. Loop-IR passes.
  void add_tir_pass(TirPhase phase, std::string name, BackendTirPass pass);
  // 6. Codegen hooks.
  void add_include(std::string header);
  void add_include_dir(std::string dir);
  void add_c_source(std::string name, std::string code);
  void add_c_source_file(std::string path);
  void add_library(std::string link_argument);
  void set_extern_printer(BackendExternPrinter printer);
  void set_declare_externs(bool declare);
  // Extern calls return a status, 0 for success; the generated function returns a failure.
  void set_extern_status(bool returns_status);
  // 7. Cost: what a call of a composite costs on the target, moving its data included. With
  // `--partition=cost`, the partitioner keeps on the host each match that costs more here
  // than the host's backend says it costs there; a target without a cost is offloaded
  // whatever it costs. The host's backend gives the host's cost (backends/cpu/: a roofline
  // of the machine's measured peak).
  void set_cost(BackendCost cost);
  // 8. Checking: its results in `dtype` match the reference interpreter's within `tolerance`
  // (uma run --check, uma test-backend); default_tolerance(dtype) when not declared.
  void set_tolerance(DType dtype, Tolerance tolerance);
  // 9. Simulation, for a backend with memories whose C is a model of its hardware: a
  // performance model per tiled layer (uma sim prints it; the build report records it), and
  // the events its functional model counts as the layer runs. Each call of one of
  // `functions` inside a tiled layer gets, as its last argument, an int64_t* to that
  // layer's counters, events.size() of them in the order given, in the function's load-time
  // state (zeroed when the executor is made, summed over its runs); the estimate predicts
  // them (sim::LayerEstimate::events) and `uma sim` checks that the two agree.
  void set_estimate(BackendEstimate estimate);
  void count_events(std::vector<std::string> events, std::vector<std::string> functions);

 private:
  BackendSpec spec_;
};

// Registered backends by target name. Belongs to a Context; safe to use from several
// threads.
class BackendRegistry {
 public:
  // The backend, or null.
  std::shared_ptr<const Backend> find(std::string_view target_name) const;
  std::vector<std::string> names() const;

 private:
  friend Status register_backend(Context& context, std::unique_ptr<Backend> backend);
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const Backend>, std::less<>> backends_;
};

// The backend's patterns as a partition target whose predicates see `target`. A match its
// predicate accepts is offloaded only if its tiles fit the target's memories (when it has
// memories and a lowering for the pattern) and, with `costs` (the cost policy of a build)
// and a cost of the backend, if it costs no more offloaded than on the host.
PartitionTarget partition_target(const BackendSpec& spec, const Target& target,
                                 std::shared_ptr<const CostPolicy> costs = nullptr);
// The memories and DMA engine of `target`, a target of the backend (tiling::resolve).
Expected<tiling::MemoryModel> memory_model(const BackendSpec& spec, const Target& target);

// The backend's composite lowerings with `target`, by composite name, as lowering takes them.
// Their errors name the backend.
lower::CompositeLowerings composite_lowerings(const BackendSpec& spec, const Target& target);

// Wires a backend into `context`: its target kind, its partition target and the backend
// itself (a host's backend gets no partition target). Errors (and registers nothing) when
// the declarations are inconsistent: a kind or partition target of that name exists, an
// attribute is invalid, shadows a standard one or an accelerator's (no_fallback), two patterns or
// two strategies share a name or op, two schedules a block name, a composite lowering names no
// pattern of the backend or a pattern lowered already, the immediates' limit is negative, a
// strategy's op is not an op of the context, a strategy, schedule or pass lacks its function, a
// host's backend declares patterns, or the context has a host's backend already.
Status register_backend(Context& context, std::unique_ptr<Backend> backend);

}  // namespace uma
