// report.html (see report_html.h).
#include "report_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "uma/graph/type.h"
#include "uma/runtime/process.h"
#include "uma/sim/simulation.h"
#include "uma/support/file.h"
#include "uma/support/printable.h"

namespace uma::tool {
namespace {

// Text from the model or the command line (a file name, node names) as HTML: valid UTF-8
// whatever bytes it holds, without control characters, and with HTML's own characters
// escaped.
std::string escape(std::string_view raw) {
  std::string text = printable_utf8(raw);
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The SVG element of `dot -Tsvg`, without the XML prolog, or a note why there is none.
std::string graph_svg(const std::string& dot_file) {
  std::string svg_file = dot_file + ".svg";
  Expected<runtime::ProcessResult> ran =
      runtime::run_process({"dot", "-Tsvg", dot_file, "-o", svg_file});
  if (!ran) return fmt::format("<p>No graph: {}.</p>", escape(ran.error().message()));
  if (ran->status != 0)
    return fmt::format("<p>No graph: dot failed ({}): {}</p>",
                       runtime::describe_status(ran->status), escape(ran->output));
  Expected<std::string> svg = read_file(svg_file);
  std::error_code ec;
  std::filesystem::remove(svg_file, ec);
  if (!svg) return fmt::format("<p>No graph: {}.</p>", escape(svg.error().message()));
  std::size_t start = svg->find("<svg");
  return start == std::string::npos ? "<p>No graph: dot wrote no SVG.</p>" : svg->substr(start);
}

constexpr std::string_view kStyle = R"(
body { font-family: Helvetica, Arial, sans-serif; margin: 1.5em; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
td.number { text-align: right; }
#graph { overflow: auto; max-height: 80vh; border: 1px solid #ccc; }
#graph g.node { cursor: pointer; }
tr.selected { background: #fff3b0; }
div.bar { display: inline-block; width: 12em; height: 0.9em; border: 1px solid #888; }
div.bar > div { height: 100%; background: #80b1d3; }
#details { min-height: 1.5em; margin: 0.5em 0 1.5em; font-family: monospace; }
div.cycles, div.dma { display: flex; width: 16em; background: #f4f4f4; }
div.cycles { height: 0.9em; }
div.dma { height: 0.3em; margin-top: 1px; }
.compute { background: #80b1d3; }
.stall { background: #fb8072; }
.dma > div, .dma-key { background: #888; }
span.key { display: inline-block; width: 0.8em; height: 0.8em; margin: 0 0.2em 0 0.6em; }
)";

// A click on a node of the graph (dot titles each node "n<id>") selects its row of the table
// and shows it above the graph.
constexpr std::string_view kScript = R"(
document.querySelectorAll('#graph g.node').forEach(function (node) {
  node.addEventListener('click', function () {
    var title = node.querySelector('title');
    if (!title || title.textContent.charAt(0) !== 'n') return;
    var row = document.getElementById('node-' + title.textContent.substring(1));
    if (!row) return;
    document.querySelectorAll('tr.selected').forEach(function (r) { r.classList.remove('selected'); });
    row.classList.add('selected');
    var cells = Array.prototype.map.call(row.cells, function (c) { return c.textContent; });
    document.getElementById('details').textContent =
        'node ' + cells[0] + ' ' + cells[2] + ': ' + cells[3] + (cells[5] ? ' (' + cells[5] + ')' : '');
  });
});
)";

// Per layer an accelerator's performance model estimated (Backend::set_estimate): a bar of
// its cycles, the array computing and then stalled on the DMA that computing does not hide,
// over a line of the DMA engine's busy cycles, all to the scale of the longest layer; its
// figures; and the totals.
std::string cycles_html(const sim::Simulation& simulation) {
  std::int64_t longest = 1;
  for (const sim::SimLayer& layer : simulation.layers)
    longest = std::max({longest, layer.estimate.cycles, layer.estimate.dma_cycles});
  auto width = [&](std::int64_t cycles) {
    return 100.0 * static_cast<double>(cycles) / static_cast<double>(longest);
  };
  auto figures = [](const sim::LayerEstimate& e) {
    return fmt::format(
        "<td class=\"number\">{}</td><td class=\"number\">{}</td><td class=\"number\">{}</td>"
        "<td class=\"number\">{}</td><td class=\"number\">{:.1f}%</td><td>{}</td>"
        "<td class=\"number\">{:.1f}</td>",
        e.cycles, e.compute_cycles, e.dma_cycles, e.stall_cycles, 100.0 * e.utilisation,
        escape(e.bound), e.energy_pj() / 1e3);
  };
  std::string out = fmt::format(
      "<h2>Simulated cycles</h2>\n<p>The cycles of each layer as its accelerator's performance "
      "model estimates them: the array<span class=\"key compute\"></span>computing, "
      "<span class=\"key stall\"></span>stalled on the DMA transfers computing does not hide "
      "(cycles = compute + stall), and under it <span class=\"key dma-key\"></span>the DMA "
      "engine busy; one scale, the longest layer's {} cycles.</p>\n"
      "<table id=\"cycles\">\n<tr><th>layer</th><th>composite</th><th>compute + stall; DMA</th>"
      "<th>cycles</th><th>compute</th><th>DMA</th><th>stall</th><th>utilisation</th>"
      "<th>bound</th><th>energy nJ</th></tr>\n",
      longest);
  for (const sim::SimLayer& layer : simulation.layers) {
    const sim::LayerEstimate& e = layer.estimate;
    out += fmt::format(
        "<tr class=\"layer\"><td>{}</td><td>{}</td><td><div class=\"cycles\">"
        "<div class=\"compute\" style=\"width: {:.2f}%\"></div>"
        "<div class=\"stall\" style=\"width: {:.2f}%\"></div></div>"
        "<div class=\"dma\"><div style=\"width: {:.2f}%\"></div></div></td>{}</tr>\n",
        escape(layer.layer.empty() ? "-" : layer.layer), escape(layer.composite),
        width(e.compute_cycles), width(e.stall_cycles), width(e.dma_cycles), figures(e));
  }
  sim::LayerEstimate total = simulation.total();
  out += fmt::format("<tr class=\"total\"><td>total</td><td>{} layer{}</td><td></td>{}</tr>\n",
                     simulation.layers.size(), simulation.layers.size() == 1 ? "" : "s",
                     figures(total));
  return out +
         fmt::format(
             "</table>\n<p id=\"cycles-total\">{} cycles, {:.1f} &micro;s at the accelerator's "
             "clock; energy {:.1f} nJ computing, {:.1f} nJ in on-chip memories, {:.1f} nJ "
             "moving host memory. The host ran {} node{} ({} MACs), not simulated.</p>\n",
             total.cycles, total.seconds * 1e6, total.compute_pj / 1e3, total.sram_pj / 1e3,
             total.dram_pj / 1e3, simulation.host_nodes, simulation.host_nodes == 1 ? "" : "s",
             simulation.host_macs);
}

// A section per tiled layer: its plan, a bar per memory (its peak against its capacity),
// and a row per operand with the numbers of its moves.
std::string tilings_html(const std::vector<TilingRecord>& tilings) {
  std::string out =
      "<h2>Tiles</h2>\n<p>The layers run in tiles of their accelerator's memories: each "
      "operand's tiles are moved by DMA, double buffered when both buffers fit.</p>\n";
  for (std::size_t i = 0; i < tilings.size(); ++i) {
    const TilingRecord& t = tilings[i];
    const tiling::TilePlan& plan = t.plan;
    out += fmt::format(
        "<section class=\"tiling\" id=\"tiling-{}\">\n<h3>{} ({} in @{})</h3>\n"
        "<p>output {}, tile {}{}, {} tile{}, {} buffered; {} bytes moved</p>\n"
        "<table class=\"memories\">\n<tr><th>memory</th><th>peak</th><th>capacity</th>"
        "<th>use</th></tr>\n",
        i, escape(t.layer.empty() ? "-" : t.layer), escape(t.composite), escape(t.function),
        to_string(plan.output), to_string(plan.tile),
        plan.cuts_reduction() ? fmt::format(" (reductions in chunks of {})", to_string(plan.chunks))
                              : "",
        plan.tiles, plan.tiles == 1 ? "" : "s", plan.double_buffered ? "double" : "single",
        plan.traffic());
    for (const tiling::MemoryUse& m : plan.memories) {
      double share = m.capacity > 0
                         ? 100.0 * static_cast<double>(m.peak) / static_cast<double>(m.capacity)
                         : 0;
      out += fmt::format(
          "<tr class=\"memory\"><td>{}</td><td class=\"number\">{}</td>"
          "<td class=\"number\">{}</td><td><div class=\"bar\">"
          "<div style=\"width: {:.1f}%\"></div></div> {:.1f}%</td></tr>\n",
          escape(m.name), m.peak, m.capacity, std::min(share, 100.0), share);
    }
    out +=
        "</table>\n<table class=\"operands\">\n<tr><th>operand</th><th>role</th>"
        "<th>memory</th><th>region</th><th>buffers</th><th>moves</th><th>transfers</th>"
        "<th>bytes</th><th>halo bytes</th></tr>\n";
    for (const tiling::OperandPlan& op : plan.operands)
      out += fmt::format(
          "<tr class=\"operand\"><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td>"
          "<td class=\"number\">{}</td><td class=\"number\">{}</td><td class=\"number\">{}</td>"
          "<td class=\"number\">{}</td><td class=\"number\">{}</td></tr>\n",
          escape(op.name), tiling::role_name(op.role), op.output ? " (out)" : "", escape(op.memory),
          to_string(op.tile), op.buffers, op.moves, op.transfers, op.bytes, op.halo_bytes);
    out += "</table>\n</section>\n";
  }
  return out;
}

}  // namespace

std::string report_html(const PartitionReport& report, const std::string& title,
                        const std::vector<std::pair<std::string, double>>& phases,
                        const std::string& dot_file) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>uma: {0}</title>\n<style>{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n",
      escape(title), kStyle);

  out +=
      "<h2>Targets</h2>\n<table id=\"summary\">\n"
      "<tr><th>target</th><th>nodes</th><th>regions</th><th>MACs</th><th>bytes</th></tr>\n";
  for (const TargetSummary& s : report.summary())
    out += fmt::format(
        "<tr><td>{}</td><td class=\"number\">{}</td><td class=\"number\">{}</td>"
        "<td class=\"number\">{}</td><td class=\"number\">{}</td></tr>\n",
        escape(s.target), s.nodes, s.target == "host" ? "-" : std::to_string(s.regions), s.macs,
        s.bytes);
  out +=
      "</table>\n<h2>Build time per phase</h2>\n<table id=\"phases\">\n"
      "<tr><th>phase</th><th>ms</th></tr>\n";
  double total = 0;
  for (const auto& [phase, ms] : phases) {
    out += fmt::format("<tr><td>{}</td><td class=\"number\">{:.3f}</td></tr>\n", escape(phase), ms);
    total += ms;
  }
  out += fmt::format("<tr><th>total</th><th class=\"number\">{:.3f}</th></tr>\n</table>\n", total);

  // The estimates alone (no run, no counters to read): this cannot fail.
  Expected<sim::Simulation> estimated = sim::simulate(report, {}, nullptr);
  if (estimated && !estimated->layers.empty()) out += cycles_html(*estimated);
  if (!report.tilings().empty()) out += tilings_html(report.tilings());

  out +=
      "<h2>Graph</h2>\n<p>One colour per target; click a node for its row.</p>\n"
      "<div id=\"details\"></div>\n<div id=\"graph\">\n" +
      graph_svg(dot_file) + "\n</div>\n";

  out +=
      "<h2>Nodes</h2>\n<table id=\"nodes\">\n<tr><th>id</th><th>name</th><th>op</th>"
      "<th>target</th><th>composite</th><th>other targets</th></tr>\n";
  for (const NodeRecord& r : report.records()) {
    std::string reasons;
    for (const Rejection& rejection : r.rejections)
      reasons += fmt::format("{}{}: {} ({})", reasons.empty() ? "" : "; ", rejection.target,
                             rejection_text(rejection.kind), rejection.detail);
    out += fmt::format(
        "<tr "
        "id=\"node-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        r.id, r.id, escape(r.name), escape(r.op), r.target.empty() ? "host" : escape(r.target),
        escape(r.composite), escape(reasons));
  }
  return out + "</table>\n<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
}

}  // namespace uma::tool
