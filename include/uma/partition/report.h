// The partition report: for every node of the host function, which target got it, the
// composite it is part of, and for every target that did not get it, why; and how the build
// tiled each layer into its accelerator's memories. Filled in by the partition passes when
// PartitionOptions::report is set (the tiles by build::build, BuildOptions::report); printed
// as JSON for tools, as a table for people, and as a Graphviz picture with one colour per
// target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "uma/sim/estimate.h"
#include "uma/tiling/plan.h"

namespace uma {

class Function;
class Module;
class Node;

// Why a target did not get a node.
#define UMA_FOR_EACH_REJECTION(X)                                                       \
  X(NoPatternMatched, "no pattern matched")   /* detail: the nearest miss */            \
  X(PredicateRejected, "predicate rejected")  /* detail: the predicate's reason */      \
  X(WouldCreateCycle, "would create a cycle") /* detail: the node outside the match */  \
  X(ValueEscapes, "value needed outside")     /* detail: the outside user */            \
  X(OpNotSupported, "op not supported")       /* detail: supports_op's reason */        \
  X(ClaimedByHigherPriority, "claimed by a higher-priority target") /* detail: it */    \
  X(RegionTooSmall, "region too small")                             /* detail: sizes */ \
  X(KeptOnHost, "kept on the host") /* detail: the region's function */

enum class RejectionKind : std::uint8_t {
#define UMA_REJECTION_ENUM(e, text) e,
  UMA_FOR_EACH_REJECTION(UMA_REJECTION_ENUM)
#undef UMA_REJECTION_ENUM
};
std::string_view rejection_text(RejectionKind kind);  // "no pattern matched"
std::string_view rejection_id(RejectionKind kind);    // "NoPatternMatched", for tools

struct Rejection {
  std::string target;
  RejectionKind kind;
  std::string detail;
};

// One node of a host function as it was before partitioning.
struct NodeRecord {
  std::size_t id = 0;    // position among the recorded nodes
  std::string function;  // the host function it was in
  std::string name;      // the node's name (its location in the model); may be empty
  std::string op;
  std::string target;     // empty: the host
  std::string composite;  // "<target>.<pattern>", or empty
  std::string region;     // the function partition-graph outlined it into, or empty
  // Its cost (uma/op/cost.h); a composite call's is that of its inner nodes.
  std::int64_t macs = 0;            // multiply-accumulates (convolutions, dense, matmul)
  std::int64_t bytes = 0;           // bytes of its results and of the constants it uses
  std::vector<std::size_t> inputs;  // ids of the recorded nodes it reads
  std::vector<Rejection> rejections;
};

struct TargetSummary {
  std::string target;  // "host" for what stays on the host
  std::int64_t nodes = 0;
  std::int64_t regions = 0;  // distinct NodeRecord::region values; 0 for the host
  std::int64_t macs = 0;
  std::int64_t bytes = 0;
};

// A layer an accelerator with memories runs in tiles (uma/tiling/plan.h).
struct TilingRecord {
  std::string function;   // the partitioned function holding the call
  std::string composite;  // "<target>.<pattern>"
  std::string layer;      // the name of the layer's first op (its node in the model)
  tiling::TilePlan plan;
  // The backend's performance model of the layer, when it has one (Backend::set_estimate).
  std::optional<sim::LayerEstimate> estimate;
};

class PartitionReport {
 public:
  // Records every node of the module's host functions (constants are not recorded: they
  // follow their users). Called once, before the passes run; starts a new report. Nodes
  // that earlier partitioning left (calls of Composite or Compiler functions, `uma.target`
  // attributes) are recorded as placed already.
  void begin(const Module& module, std::vector<std::string> targets);

  // ---- What the passes call ----
  // The records a current node stands for: its own, or those of the nodes a composite call
  // replaced. Empty for nodes that are not recorded.
  std::vector<NodeRecord*> records_of(const Node* node);
  // A composite call now stands for `replaced` (merge-composite).
  void replaced_by(const std::vector<Node*>& replaced, const Node* call, std::string composite);
  // `node` is about to be erased (outlined into a region): later nodes that reuse its
  // address must not inherit its records.
  void forget(const Node* node) { live_.erase(node); }
  // Adds a rejection to each record `node` stands for (once: a repeated one is dropped).
  void reject(const Node* node, std::string target, RejectionKind kind, std::string detail);

  // A call was tiled into its target's memories (the build's lowering).
  void tiled(TilingRecord record) { tilings_.push_back(std::move(record)); }

  // ---- Reading it ----
  const std::vector<std::string>& targets() const { return targets_; }
  const std::vector<NodeRecord>& records() const { return records_; }
  const std::vector<TilingRecord>& tilings() const { return tilings_; }
  // One entry per target in priority order, then "host".
  std::vector<TargetSummary> summary() const;
  // {"targets": [...], "summary": [...], "nodes": [...], "tilings": [...]}: the records and
  // the summary with the fields above; the host is target null, as are an empty composite and
  // region. "tilings" is there only when a layer was tiled (a report of a partitioning alone
  // has none): one object per TilingRecord, {"function", "composite", "layer", and of its
  // plan "output", "tile", "chunks" (per reduction the layer may cut, the chunk a tile sums),
  // "reductions" (their extents), "order" (arrays of numbers), "tiles", "double_buffered",
  // "traffic" (bytes moved, all operands), "operands": [{"name", "role" ("features",
  // "weights", ...), "output" (bool), "memory", "tile" (its region), "tile_bytes", "buffers",
  // "moves", "transfers", "bytes", "halo_bytes"}], "memories": [{"name", "peak",
  // "capacity"}] (every figure in bytes as TilePlan has it), and "estimate" when the backend
  // has a performance model (Backend::set_estimate): the layer's figures as `uma sim --json`
  // prints them}.
  std::string to_json() const;
  // One line per node (id, name, op, target or host, composite, the other targets'
  // rejections), then the summary with each target's share of the totals; then, when layers
  // were tiled, the section "tiles": a line per layer (its output, tile and number of tiles,
  // single or double buffered, each memory's peak/capacity), and under it a line per operand
  // (role, memory, region, buffers, moves, transfers, bytes, halo bytes).
  std::string to_table() const;
  // Graphviz: one box per node filled with its target's colour (the host white), edges
  // from its inputs, one cluster per region, and a legend.
  std::string to_dot() const;

 private:
  std::vector<std::string> targets_;
  std::vector<NodeRecord> records_;
  std::vector<TilingRecord> tilings_;
  std::unordered_map<const Node*, std::vector<std::size_t>> live_;
};

}  // namespace uma
