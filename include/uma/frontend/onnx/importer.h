// Importing ONNX models into the graph IR.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "uma/graph/context.h"
#include "uma/graph/ir.h"

namespace uma {

struct OnnxImportOptions {
  // Shapes for graph inputs by name ("--input-shape x=1x3x224x224"); they resolve symbolic
  // dimensions and must agree with the dimensions the model fixes.
  std::map<std::string, Shape, std::less<>> input_shapes;
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

}  // namespace uma
