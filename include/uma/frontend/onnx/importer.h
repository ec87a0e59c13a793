// Importing ONNX models into the graph IR.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/graph/tensor.h"
#include "uma/uma/context.h"

namespace uma {

struct OnnxImportOptions {
  // Shapes for graph inputs by name ("--input-shape x=1x3x224x224"); they resolve symbolic
  // dimensions and must agree with the dimensions the model fixes.
  std::map<std::string, Shape, std::less<>> input_shapes;
  // Graph inputs bound to values: each becomes a constant, as if it were an initializer, and
  // is no parameter of @main. Its type must be the input's. This is how inputs that
  // converters need as constants (a Reshape's shape, a Resize's sizes) can be fed when the
  // model leaves them to the caller, as ONNX's node tests do.
  std::map<std::string, TensorPtr, std::less<>> constant_inputs;
  // The values a run gives for graph inputs (uma run --input): one that a converter needs at
  // build time is read from here, and the module is built for that value; the input stays a
  // parameter of @main, given the same value when it runs.
  std::map<std::string, TensorPtr, std::less<>> run_inputs;
  // Import folds nodes whose operands are all constants (shape computations, above all) with
  // the ops' reference kernels: a node whose results would exceed this many elements is
  // left for later passes, and folding stops once this many elements were folded in total,
  // so that a small model cannot make the importer build huge tensors.
  std::int64_t max_fold_elements = std::int64_t{1} << 20;
  std::int64_t max_folded_elements = std::int64_t{1} << 26;
  // Run the canonicalization pipeline (create_canonicalize_pipeline in pass.h) on the
  // imported module: constant folding, batch norms folded into convolutions, layer norm
  // and GELU recognised, duplicates merged, dead code removed.
  bool canonicalize = true;
};

// Imports an ONNX model file. External data files are read relative to the model's folder;
// a location that leaves that folder is refused. The module's @main takes the graph's
// inputs (initializers are not inputs) and returns its outputs; node names are kept as
// locations. An unsupported model gets one error listing every unsupported op with the
// names of its nodes.
Expected<std::unique_ptr<Module>> import_onnx_file(Context& context, const std::string& path,
                                                   const OnnxImportOptions& options = {});

// The same for a model already in memory. `name` is used in messages; `model_dir` is where
// external data is looked for (empty: external data is refused).
Expected<std::unique_ptr<Module>> import_onnx_bytes(Context& context, std::string_view bytes,
                                                    std::string_view name,
                                                    const std::string& model_dir,
                                                    const OnnxImportOptions& options = {});

// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> supported_onnx_ops();
// The family of converters an op type belongs to (the file in src/frontend/onnx that converts
// it: "elementwise", "conv", "rnn", ...); empty for an op without a converter. What
// conformance reports group tests by.
std::string onnx_op_family(std::string_view op_type);

}  // namespace uma
