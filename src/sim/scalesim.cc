// SCALE-Sim's config and topology for a simulation's layers (see uma/sim/scalesim.h).
#include "uma/sim/scalesim.h"

#include <fmt/format.h>

namespace uma::sim {
namespace {

// The node named `name` inside a composite that `function` calls, or null.
const Node* find_layer(const Module& module, const std::string& function, const std::string& name) {
  const Function* f = module.find_function(function);
  if (f == nullptr) return nullptr;
  for (const auto& node : f->nodes()) {
    if (!node->is_op("call") || node->callee() == nullptr) continue;
    for (const auto& inner : node->callee()->nodes())
      if (inner->name() == name && !inner->is_op("constant")) return inner.get();
  }
  return nullptr;
}

}  // namespace

std::string scalesim_config(const ScaleSimArray& array, const std::string& run_name) {
  return fmt::format(
      "[general]\nrun_name = {}\n\n[architecture_presets]\nArrayHeight:    {}\n"
      "ArrayWidth:     {}\nIfmapSramSzkB:   {}\nFilterSramSzkB:  {}\nOfmapSramSzkB:   {}\n"
      "IfmapOffset:    0\nFilterOffset:   10000000\nOfmapOffset:    20000000\nBandwidth : {}\n"
      "Dataflow : {}\nMemoryBanks:   1\n\n[run_presets]\nInterfaceBandwidth: CALC\n",
      run_name, array.rows, array.cols, array.ifmap_kb, array.filter_kb, array.ofmap_kb,
      array.words_per_cycle, array.dataflow);
}

Expected<std::string> scalesim_topology(const Module& module, const Simulation& simulation) {
  std::string out =
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
      "Strides,\n";
  for (const SimLayer& sim : simulation.layers) {
    const Node* layer = find_layer(module, sim.function, sim.layer);
    if (layer == nullptr)
      return make_error("layer '{}' is not in @{} of the built module", sim.layer, sim.function);
    std::string_view op = layer->op_name();
    const Shape& data = layer->operand(0)->tensor_type().shape;
    std::int64_t batch = data[0], height = 1, width = 1, kh = 1, kw = 1, stride = 1, groups = 1;
    std::int64_t channels = data[1];
    std::int64_t filters = layer->result()->tensor_type().shape[1];
    if (op == "nn.conv1d" || op == "nn.conv2d") {
      const Shape& weight = layer->operand(1)->tensor_type().shape;
      const auto& padding = layer->attrs().get_ints("padding");
      const auto& strides = layer->attrs().get_ints("strides");
      groups = layer->attrs().get_int("groups");
      for (std::int64_t d : layer->attrs().get_ints("dilation"))
        if (d != 1)
          return make_error("layer '{}' is dilated; SCALE-Sim's topology has no dilation",
                            sim.layer);
      if (op == "nn.conv1d") {
        width = data[2] + padding[0] + padding[1];
        kw = weight[2];
        stride = strides[0];
      } else {
        if (strides[0] != strides[1])
          return make_error("layer '{}' has strides {}x{}; SCALE-Sim's topology has one stride",
                            sim.layer, strides[0], strides[1]);
        height = data[2] + padding[0] + padding[2];
        width = data[3] + padding[1] + padding[3];
        kh = weight[2];
        kw = weight[3];
        stride = strides[0];
      }
    } else if (op == "nn.dense" || op == "nn.matmul") {
      // M samples of K inputs: a 1 x 1 convolution per sample.
    } else {
      continue;  // a pool: not the array's work
    }
    for (std::int64_t n = 0; n < batch; ++n)
      for (std::int64_t g = 0; g < groups; ++g) {
        std::string name = sim.layer;
        if (batch > 1) name += fmt::format("#n{}", n);
        if (groups > 1) name += fmt::format("#g{}", g);
        // A name holds no comma or line break, which would cut the row.
        for (char& c : name)
          if (c == ',' || c == '\n' || c == '\r') c = '_';
        out += fmt::format("{}, {}, {}, {}, {}, {}, {}, {},\n", name, height, width, kh, kw,
                           channels / groups, filters / groups, stride);
      }
  }
  return out;
}

}  // namespace uma::sim
