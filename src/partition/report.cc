// The partition report: the records the passes fill, and its three printed forms.
#include "uma/partition/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "../sim/estimate_json.h"
#include "annotations.h"
#include "uma/graph/ir.h"
#include "uma/op/cost.h"
#include "uma/partition/partition.h"
#include "uma/support/printable.h"

namespace uma {
namespace {

std::string string_attr(const AttrMap& attrs, std::string_view name) {
  return attrs.string_or_none(name).value_or("");
}

// The targets of the summary: the report's, in priority order, then any other a record
// names (placed by an earlier partitioning), in order of first appearance.
std::vector<std::string> summary_targets(const std::vector<std::string>& targets,
                                         const std::vector<NodeRecord>& records) {
  std::vector<std::string> all = targets;
  for (const NodeRecord& r : records)
    if (!r.target.empty() && std::find(all.begin(), all.end(), r.target) == all.end())
      all.push_back(r.target);
  return all;
}

std::string format_rejection(const Rejection& r) {
  std::string text = fmt::format("{}: {}", r.target, rejection_text(r.kind));
  if (!r.detail.empty()) text += fmt::format(" ({})", r.detail);
  return text;
}

// The rejections of the targets that did not get the record, joined by `separator`; each
// made printable (a detail may quote a name from the model).
std::string other_targets(const NodeRecord& record, std::string_view separator) {
  std::string text;
  for (const Rejection& r : record.rejections) {
    if (r.target == record.target) continue;
    if (!text.empty()) text += separator;
    text += printable(format_rejection(r));
  }
  return text;
}

// Rows of cells as columns two spaces apart, one line each (without its newline); the last
// column is not padded. Cells are made printable: names come from the model and must not
// drive the terminal.
std::vector<std::string> aligned_lines(std::vector<std::vector<std::string>> rows) {
  for (auto& row : rows)
    for (std::string& cell : row) cell = printable(cell);
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::vector<std::string> lines;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string format_columns(std::vector<std::vector<std::string>> rows) {
  std::string out;
  for (const std::string& line : aligned_lines(std::move(rows))) out += line + "\n";
  return out;
}

// A tile's shape, and the chunks of the reductions it cuts: "1x27x5, chunks of 7".
std::string tile_text(const tiling::TilePlan& plan) {
  std::string text = to_string(plan.tile);
  for (std::size_t r = 0; r < plan.chunks.size(); ++r)
    if (plan.chunks[r] < plan.reductions[r]) text += fmt::format(", chunks of {}", plan.chunks[r]);
  return text;
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

// "12 (40.0%)": a figure and its share of the total.
std::string with_share(std::int64_t value, std::int64_t total) {
  double share = total > 0 ? 100.0 * static_cast<double>(value) / static_cast<double>(total) : 0;
  return fmt::format("{} ({:.1f}%)", value, share);
}

// The memories the tiled layers use, in order of first appearance: one column each.
std::vector<std::string> tiling_memories(const std::vector<TilingRecord>& tilings) {
  std::vector<std::string> names;
  for (const TilingRecord& t : tilings)
    for (const tiling::MemoryUse& m : t.plan.memories)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
  return names;
}

// The section "tiles": a line per tiled layer, and under it, indented, a line per operand.
// Layers and operands are two tables, each aligned on its own, their lines interleaved under
// a two-line header.
std::string tilings_table(const std::vector<TilingRecord>& tilings) {
  std::vector<std::string> memories = tiling_memories(tilings);
  std::vector<std::vector<std::string>> layers = {
      {"layer", "composite", "output", "tile", "tiles", "buffering"}};
  for (const std::string& m : memories) layers[0].push_back(m + " peak/capacity");
  std::vector<std::vector<std::string>> operands = {{"  operand", "role", "memory", "region",
                                                     "buffers", "moves", "transfers", "bytes",
                                                     "halo bytes"}};
  for (const TilingRecord& t : tilings) {
    const tiling::TilePlan& plan = t.plan;
    std::vector<std::string> row = {
        or_dash(t.layer),           t.composite,
        to_string(plan.output),     tile_text(plan),
        std::to_string(plan.tiles), plan.double_buffered ? "double" : "single"};
    for (const std::string& name : memories) {
      auto use = std::find_if(plan.memories.begin(), plan.memories.end(),
                              [&](const tiling::MemoryUse& m) { return m.name == name; });
      row.push_back(use == plan.memories.end() ? "-"
                                               : fmt::format("{}/{}", use->peak, use->capacity));
    }
    layers.push_back(std::move(row));
    for (const tiling::OperandPlan& op : plan.operands)
      operands.push_back(
          {"  " + or_dash(op.name),
           fmt::format("{}{}", tiling::role_name(op.role), op.output ? " (out)" : ""), op.memory,
           to_string(op.tile), std::to_string(op.buffers), std::to_string(op.moves),
           std::to_string(op.transfers), std::to_string(op.bytes), std::to_string(op.halo_bytes)});
  }
  std::vector<std::string> layer_lines = aligned_lines(std::move(layers));
  std::vector<std::string> operand_lines = aligned_lines(std::move(operands));
  std::string out = "tiles\n" + layer_lines[0] + "\n" + operand_lines[0] + "\n";
  std::size_t next = 1;
  for (std::size_t i = 0; i < tilings.size(); ++i) {
    out += layer_lines[i + 1] + "\n";
    for (std::size_t k = 0; k < tilings[i].plan.operands.size(); ++k)
      out += operand_lines[next++] + "\n";
  }
  return out;
}

nlohmann::json string_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json tilings_json(const std::vector<TilingRecord>& tilings) {
  using nlohmann::json;
  json out = json::array();
  for (const TilingRecord& t : tilings) {
    const tiling::TilePlan& plan = t.plan;
    json operands = json::array();
    for (const tiling::OperandPlan& op : plan.operands)
      operands.push_back({{"name", op.name},
                          {"role", tiling::role_name(op.role)},
                          {"output", op.output},
                          {"memory", op.memory},
                          {"tile", op.tile},
                          {"tile_bytes", op.tile_bytes},
                          {"buffers", op.buffers},
                          {"moves", op.moves},
                          {"transfers", op.transfers},
                          {"bytes", op.bytes},
                          {"halo_bytes", op.halo_bytes}});
    json memories = json::array();
    for (const tiling::MemoryUse& m : plan.memories)
      memories.push_back({{"name", m.name}, {"peak", m.peak}, {"capacity", m.capacity}});
    out.push_back({{"function", t.function},
                   {"composite", t.composite},
                   {"layer", t.layer},
                   {"output", plan.output},
                   {"tile", plan.tile},
                   {"chunks", plan.chunks},
                   {"reductions", plan.reductions},
                   {"order", plan.order},
                   {"tiles", plan.tiles},
                   {"double_buffered", plan.double_buffered},
                   {"traffic", plan.traffic()},
                   {"operands", std::move(operands)},
                   {"memories", std::move(memories)}});
    if (t.estimate) out.back()["estimate"] = sim::estimate_json(*t.estimate);
  }
  return out;
}

// A string as a Graphviz quoted string. Names come from models, so every backslash and
// quote is escaped; newlines become Graphviz's centred line breaks.
std::string dot_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += {'\\', c};
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

// One pastel colour per target (ColorBrewer Set3), repeated when there are more targets.
std::string_view target_colour(std::size_t index) {
  static constexpr std::string_view kColours[] = {"#8dd3c7", "#fdb462", "#bebada", "#fb8072",
                                                  "#80b1d3", "#b3de69", "#fccde5", "#ffffb3",
                                                  "#bc80bd", "#ccebc5"};
  return kColours[index % std::size(kColours)];
}

// The host is light grey: white would not stand out from the background.
constexpr std::string_view kHostFill = "#eeeeee";

}  // namespace

std::string_view rejection_text(RejectionKind kind) {
  switch (kind) {
#define UMA_REJECTION_TEXT(e, text) \
  case RejectionKind::e:            \
    return text;
    UMA_FOR_EACH_REJECTION(UMA_REJECTION_TEXT)
#undef UMA_REJECTION_TEXT
  }
  UMA_CHECK(false, "unknown rejection kind {}", static_cast<int>(kind));
  return "";
}

std::string_view rejection_id(RejectionKind kind) {
  switch (kind) {
#define UMA_REJECTION_ID(e, text) \
  case RejectionKind::e:          \
    return #e;
    UMA_FOR_EACH_REJECTION(UMA_REJECTION_ID)
#undef UMA_REJECTION_ID
  }
  UMA_CHECK(false, "unknown rejection kind {}", static_cast<int>(kind));
  return "";
}

void PartitionReport::begin(const Module& module, std::vector<std::string> targets) {
  targets_ = std::move(targets);
  records_.clear();
  tilings_.clear();
  live_.clear();
  // Ids are positions in records_, which does not grow after this: the pointers
  // records_of hands out stay valid.
  std::unordered_map<const Node*, std::size_t> ids;
  for (const Function* function : module.functions()) {
    if (!annotations::is_host_function(*function)) continue;
    for (const auto& node : function->nodes()) {
      if (node->is_op("constant")) continue;
      NodeRecord record;
      record.id = records_.size();
      record.function = function->name();
      record.name = node->name();
      record.op = node->op_name();
      record.target = string_attr(node->attrs(), kTargetAttr);
      if (const Function* callee = node->callee()) {
        record.composite = string_attr(callee->attrs(), kCompositeAttr);
        // A call of an outlined region: the region's target got it.
        if (std::string compiler = string_attr(callee->attrs(), kCompilerAttr); !compiler.empty()) {
          record.target = compiler;
          record.region = callee->name();
        }
      }
      // A call of another host function: that function's nodes are recorded themselves.
      const Function* callee = node->callee();
      NodeCost cost = callee != nullptr && annotations::is_host_function(*callee)
                          ? own_cost(*node)
                          : node_cost(*node);
      record.macs = cost.macs;
      record.bytes = cost.bytes;
      for (const Value* operand : node->operands()) {
        auto it = ids.find(operand->producer());
        if (it != ids.end() && std::find(record.inputs.begin(), record.inputs.end(), it->second) ==
                                   record.inputs.end())
          record.inputs.push_back(it->second);
      }
      ids.emplace(node.get(), record.id);
      live_[node.get()].push_back(record.id);
      records_.push_back(std::move(record));
    }
  }
}

std::vector<NodeRecord*> PartitionReport::records_of(const Node* node) {
  std::vector<NodeRecord*> records;
  auto it = live_.find(node);
  if (it == live_.end()) return records;
  for (std::size_t id : it->second) records.push_back(&records_[id]);
  return records;
}

void PartitionReport::replaced_by(const std::vector<Node*>& replaced, const Node* call,
                                  std::string composite) {
  std::vector<std::size_t> ids;
  for (const Node* node : replaced) {
    auto it = live_.find(node);
    if (it == live_.end()) continue;
    ids.insert(ids.end(), it->second.begin(), it->second.end());
    // The replaced nodes are erased next; their addresses may be reused by new nodes.
    live_.erase(it);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (std::size_t id : ids) records_[id].composite = composite;
  live_[call] = std::move(ids);
}

void PartitionReport::reject(const Node* node, std::string target, RejectionKind kind,
                             std::string detail) {
  for (NodeRecord* record : records_of(node)) {
    bool repeated =
        std::any_of(record->rejections.begin(), record->rejections.end(), [&](const Rejection& r) {
          return r.target == target && r.kind == kind && r.detail == detail;
        });
    if (!repeated) record->rejections.push_back({target, kind, detail});
  }
}

std::vector<TargetSummary> PartitionReport::summary() const {
  std::vector<TargetSummary> summary;
  for (const std::string& target : summary_targets(targets_, records_)) {
    TargetSummary s{.target = target};
    std::set<std::string_view> regions;
    for (const NodeRecord& r : records_) {
      if (r.target != target) continue;
      ++s.nodes;
      s.macs = saturating_add(s.macs, r.macs);
      s.bytes = saturating_add(s.bytes, r.bytes);
      if (!r.region.empty()) regions.insert(r.region);
    }
    s.regions = static_cast<std::int64_t>(regions.size());
    summary.push_back(std::move(s));
  }
  TargetSummary host{.target = "host"};
  for (const NodeRecord& r : records_) {
    if (!r.target.empty()) continue;
    ++host.nodes;
    host.macs = saturating_add(host.macs, r.macs);
    host.bytes = saturating_add(host.bytes, r.bytes);
  }
  summary.push_back(std::move(host));
  return summary;
}

std::string PartitionReport::to_json() const {
  using nlohmann::json;
  json summary = json::array();
  std::vector<TargetSummary> figures = this->summary();
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const TargetSummary& s = figures[i];
    bool host = i + 1 == figures.size();
    summary.push_back({{"target", host ? json(nullptr) : json(s.target)},
                       {"nodes", s.nodes},
                       {"regions", s.regions},
                       {"macs", s.macs},
                       {"bytes", s.bytes}});
  }
  json nodes = json::array();
  for (const NodeRecord& r : records_) {
    json rejections = json::array();
    for (const Rejection& x : r.rejections)
      rejections.push_back({{"target", x.target},
                            {"kind", rejection_id(x.kind)},
                            {"reason", rejection_text(x.kind)},
                            {"detail", x.detail}});
    nodes.push_back({{"id", r.id},
                     {"function", r.function},
                     {"name", r.name},
                     {"op", r.op},
                     {"target", string_or_null(r.target)},
                     {"composite", string_or_null(r.composite)},
                     {"region", string_or_null(r.region)},
                     {"macs", r.macs},
                     {"bytes", r.bytes},
                     {"inputs", r.inputs},
                     {"rejections", std::move(rejections)}});
  }
  json report = {
      {"targets", targets_}, {"summary", std::move(summary)}, {"nodes", std::move(nodes)}};
  if (!tilings_.empty()) report["tilings"] = tilings_json(tilings_);
  // Names come from models and need not be valid UTF-8: replace bad bytes, never throw.
  return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string PartitionReport::to_table() const {
  std::vector<std::vector<std::string>> rows = {
      {"id", "name", "op", "target", "composite", "other targets"}};
  for (const NodeRecord& r : records_)
    rows.push_back({std::to_string(r.id), or_dash(r.name), r.op,
                    r.target.empty() ? "host" : r.target, or_dash(r.composite),
                    other_targets(r, "; ")});
  std::string out = format_columns(rows);

  std::vector<TargetSummary> figures = summary();
  TargetSummary total{.target = "total"};
  for (const TargetSummary& s : figures) {
    total.nodes += s.nodes;
    total.regions += s.regions;
    total.macs = saturating_add(total.macs, s.macs);
    total.bytes = saturating_add(total.bytes, s.bytes);
  }
  rows = {{"target", "nodes", "regions", "MACs", "bytes"}};
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const TargetSummary& s = figures[i];
    bool host = i + 1 == figures.size();
    rows.push_back({s.target, with_share(s.nodes, total.nodes),
                    host ? "-" : std::to_string(s.regions), with_share(s.macs, total.macs),
                    with_share(s.bytes, total.bytes)});
  }
  rows.push_back({total.target, std::to_string(total.nodes), std::to_string(total.regions),
                  std::to_string(total.macs), std::to_string(total.bytes)});
  out += "\n" + format_columns(rows);
  if (!tilings_.empty()) out += "\n" + tilings_table(tilings_);
  return out;
}

std::string PartitionReport::to_dot() const {
  std::vector<std::string> targets = summary_targets(targets_, records_);
  auto fill = [&](const std::string& target) -> std::string_view {
    if (target.empty()) return kHostFill;
    auto at = std::find(targets.begin(), targets.end(), target);
    return target_colour(static_cast<std::size_t>(at - targets.begin()));
  };
  std::string out =
      "digraph partition {\n"
      "  graph [fontname=\"Helvetica\"];\n"
      "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n";
  for (const NodeRecord& r : records_) {
    std::string label = std::to_string(r.id);
    if (!r.name.empty()) label += " " + printable(r.name);
    label += "\n" + r.op;
    if (!r.composite.empty()) label += "\n" + printable(r.composite);
    out += fmt::format("  n{} [label={}, fillcolor=\"{}\"", r.id, dot_quote(label), fill(r.target));
    if (std::string why = other_targets(r, "\n"); !why.empty())
      out += fmt::format(", tooltip={}", dot_quote(why));
    out += "];\n";
  }
  for (const NodeRecord& r : records_)
    for (std::size_t input : r.inputs) out += fmt::format("  n{} -> n{};\n", input, r.id);

  // One dashed cluster per region, in order of first appearance.
  std::vector<std::string_view> regions;
  for (const NodeRecord& r : records_)
    if (!r.region.empty() && std::find(regions.begin(), regions.end(), r.region) == regions.end())
      regions.push_back(r.region);
  for (std::size_t i = 0; i < regions.size(); ++i) {
    out += fmt::format("  subgraph cluster_{} {{\n    label={};\n    style=dashed;\n    ", i,
                       dot_quote(printable(regions[i])));
    for (const NodeRecord& r : records_)
      if (r.region == regions[i]) out += fmt::format("n{}; ", r.id);
    out.pop_back();
    out += "\n  }\n";
  }

  out += "  subgraph cluster_legend {\n    label=\"legend\";\n";
  for (std::size_t i = 0; i < targets.size(); ++i)
    out += fmt::format("    legend_{} [label={}, fillcolor=\"{}\"];\n", i, dot_quote(targets[i]),
                       target_colour(i));
  out += fmt::format("    legend_host [label=\"host\", fillcolor=\"{}\"];\n", kHostFill);
  return out + "  }\n}\n";
}

}  // namespace uma
