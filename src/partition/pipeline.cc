// The partition pipeline in order, and the registration of its passes with their options.
#include "uma/partition/partition.h"

namespace uma {
namespace {

// Reads the options every partition pass accepts. A pass that needs targets says so in
// its own run(); here they are only parsed.
Expected<PartitionOptions> read_options(PassOptions& options) {
  PartitionOptions read;
  read.targets = options.get_list("targets");
  UMA_TRY_ASSIGN(read.bind_constants, options.get_bool("bind-constants", true));
  UMA_TRY_ASSIGN(read.min_region_size, options.get_int("min-region-size", 0));
  read.host_regions = options.get_list("host-regions");
  if (read.min_region_size < 0)
    return make_error("pass option 'min-region-size' must not be negative, not {}",
                      read.min_region_size);
  return read;
}

template <auto create>
PassFactoryWithOptions factory() {
  return [](PassOptions& options) -> Expected<std::unique_ptr<Pass>> {
    UMA_TRY_ASSIGN(PartitionOptions read, read_options(options));
    return create(std::move(read));
  };
}

}  // namespace

void register_partition_passes(PassRegistry& registry) {
  struct Entry {
    const char* name;
    const char* summary;
    PassFactoryWithOptions factory;
  };
  const Entry entries[] = {
      {"merge-composite", "replace each match of the targets' patterns by a composite call",
       factory<create_merge_composite_pass>()},
      {"annotate-target", "mark the nodes and composites each target claims (uma.target)",
       factory<create_annotate_target_pass>()},
      {"merge-compiler-regions",
       "group neighbouring nodes of one target into regions without creating cycles "
       "(uma.region)",
       factory<create_merge_compiler_regions_pass>()},
      {"partition-graph", "outline each region into a function its target compiles",
       factory<create_partition_graph_pass>()},
  };
  for (const Entry& e : entries)
    UMA_CHECK(registry.add(e.name, e.summary, e.factory).ok(), "pass {} registered twice", e.name);
}

PassManager create_partition_pipeline(const PartitionOptions& options,
                                      PipelineOptions pipeline_options) {
  PassManager pipeline(std::move(pipeline_options));
  pipeline.add(create_merge_composite_pass(options));
  pipeline.add(create_annotate_target_pass(options));
  if (options.merge_regions) pipeline.add(create_merge_compiler_regions_pass(options));
  pipeline.add(create_partition_graph_pass(options));
  return pipeline;
}

Expected<bool> partition(Module& module, const PartitionOptions& options) {
  PassManager pipeline = create_partition_pipeline(options);
  return pipeline.run(module);
}

}  // namespace uma
