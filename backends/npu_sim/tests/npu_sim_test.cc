// npu_sim's functional model against the reference interpreter and across designs, and its
// performance model against what the run counts.
#include <fmt/format.h>

#include "backends/npu_sim/tests/npu_sim_test_util.h"

namespace uma::backends::npu_sim::test {
namespace {

// Designs from one tile per layer down to memories of 1 KiB (tiles, chunks of input
// channels) and arrays of 3 x 5 PEs, in every dataflow.
const std::vector<std::string> kDesigns = {
    "npu_sim",
    "npu_sim --rows=4 --cols=4 --dataflow=os --ifmap_kb=1 --filter_kb=1 --ofmap_kb=1",
    "npu_sim --rows=3 --cols=5 --dataflow=is --ifmap_kb=2 --filter_kb=2 --ofmap_kb=1",
    "npu_sim --rows=64 --cols=8 --dataflow=ws --filter_kb=1 --dma_bytes_per_cycle=2",
};

std::size_t offloaded(const PartitionReport& report) {
  std::size_t n = 0;
  for (const NodeRecord& record : report.records()) n += record.target == "npu_sim";
  return n;
}

// Every output is summed in one order whatever the design, so every design computes the same
// bits; and what each layer's run counted is what its estimate predicted.
void check_designs(NpuSimTest& t, const Module& module, std::size_t layers, std::uint64_t seed) {
  std::vector<TensorPtr> inputs = random_inputs(*module.find_function("main"), seed);
  auto reference = interpret(module, inputs);
  ASSERT_TRUE(reference.ok()) << reference.error().message();
  Tolerance tolerance = t.ctx.backends().find("npu_sim")->spec().tolerance(DType::f32);
  std::vector<TensorPtr> first;
  bool tiled = false, chunked = false;
  for (const std::string& design : kDesigns) {
    SCOPED_TRACE(design);
    SimRun run = t.simulate(module, design, inputs);
    ASSERT_EQ(run.outputs.size(), reference->size());
    EXPECT_EQ(run.simulation.layers.size(), layers);
    for (std::size_t i = 0; i < run.outputs.size(); ++i) {
      TensorComparison vs_reference =
          compare_scaled(*run.outputs[i], *(*reference)[i], tolerance.rtol, tolerance.atol);
      EXPECT_TRUE(vs_reference.ok()) << "output " << i << ": " << vs_reference.mismatches
                                     << " mismatch(es), max abs error "
                                     << vs_reference.max_abs_error;
      if (!first.empty()) {
        EXPECT_TRUE(compare_tensors(*run.outputs[i], *first[i], 0, 0).ok())
            << "output " << i << " is not the bits of " << kDesigns[0];
      }
    }
    if (first.empty()) first = run.outputs;
    for (const sim::SimLayer& layer : run.simulation.layers) {
      EXPECT_TRUE(layer.counted.has_value()) << layer.layer;
      std::string differ;
      for (const std::string& d : layer.disagreements()) differ += "\n  " + d;
      EXPECT_TRUE(differ.empty()) << layer.layer << " (" << layer.plan << "):" << differ;
    }
    for (const TilingRecord& record : run.report.tilings()) {
      tiled |= record.plan.tiles > 1;
      chunked |= record.plan.cuts_reduction();
    }
  }
  EXPECT_TRUE(tiled) << "no design cut a layer into tiles";
  EXPECT_TRUE(chunked) << "no design cut a layer's input channels into chunks";
}

TEST_F(NpuSimTest, EveryDesignComputesTheSameBitsAndCountsWhatItEstimates) {
  std::unique_ptr<Module> cnn = small_cnn();
  // conv, depthwise, max pool, conv 1x1, average pool, global pool, dense.
  check_designs(*this, *cnn, 7, 1);
  // The host keeps the reshape alone.
  SimRun run = simulate(*cnn, "npu_sim", random_inputs(*cnn->find_function("main"), 2));
  EXPECT_EQ(run.simulation.host_nodes, 1);
  EXPECT_EQ(offloaded(run.report), run.report.records().size() - 1);
}

TEST_F(NpuSimTest, OneDimensionalLayersAndMatmulsRunOnTheArray) {
  check_designs(*this, *one_d_and_matmul(), 2, 3);
}

}  // namespace
}  // namespace uma::backends::npu_sim::test
