// The list of core graph passes, by command-line name.
#include "uma/graph/pass.h"

namespace uma {

void register_core_passes(PassRegistry& registry) {
  struct Entry {
    const char* name;
    const char* summary;
    PassFactory factory;
  };
  const Entry entries[] = {
      {"infer-types", "recompute every node's result types from its operands",
       create_infer_types_pass},
      {"dce", "erase nodes and functions whose results nothing uses", create_dce_pass},
      {"cse", "merge nodes that compute the same op on the same operands", create_cse_pass},
      {"fold-constant",
       "evaluate nodes whose operands are all constants with the reference kernels",
       create_fold_constant_pass},
      {"fold-batch-norm", "fold inference batch norms into the convolutions before them",
       create_fold_batch_norm_pass},
      {"fuse-layer-norm", "recognise decomposed layer normalisations as nn.layer_norm",
       create_fuse_layer_norm_pass},
      {"fuse-gelu", "recognise the erf form of GELU as nn.gelu", create_fuse_gelu_pass},
      {"drop-identities",
       "drop ops that return their operand unchanged (a pad of zeros, a concatenation of one "
       "operand, a reshape to the same shape, a transpose keeping every axis)",
       create_drop_identities_pass},
      {"fuse-ops",
       "group host nodes into Primitive functions: an anchor with the pointwise ops after it, "
       "or a chain of pointwise ops",
       create_fuse_ops_pass},
  };
  for (const Entry& e : entries)
    UMA_CHECK(registry.add(e.name, e.summary, e.factory).ok(), "pass {} registered twice", e.name);
}

PassManager create_canonicalize_pipeline(PipelineOptions options) {
  PassManager pipeline(std::move(options));
  pipeline.add(create_fold_constant_pass());
  pipeline.add(create_fold_batch_norm_pass());
  pipeline.add(create_fuse_layer_norm_pass());
  pipeline.add(create_fuse_gelu_pass());
  pipeline.add(create_drop_identities_pass());
  pipeline.add(create_cse_pass());
  pipeline.add(create_dce_pass());
  return pipeline;
}

}  // namespace uma
