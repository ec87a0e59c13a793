// What the commands that take models and tensors share: loading a model from ONNX or
// graph IR text, --input-shape and --bind values, and tensor files (.npy, .pb).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "uma/graph/ir.h"
#include "uma/uma/context.h"

namespace uma::tool {

// What the commands give the import of an ONNX model besides its file.
struct ImportArgs {
  std::vector<std::string> input_shapes;  // --input-shape name=AxBxC
  std::vector<std::string> binds;         // --bind name=FILE: the input becomes that constant
};

// Adds --input-shape and --bind to a command.
void add_import_options(CLI::App& cmd, ImportArgs& args);

// Imports `path` when it ends in .onnx, else parses it as graph IR text; either way the
// module is verified. `args` apply to ONNX models only. `run_inputs` are the values a run
// gives for inputs by name: the module is built for those a node needs at build time.
Expected<std::unique_ptr<Module>> load_model(
    Context& context, const std::string& path, const ImportArgs& args,
    const std::map<std::string, TensorPtr, std::less<>>& run_inputs = {});

// Random inputs (from `seed`) for @main of a module loaded from `path`, for `command` to run
// it: errors name the file when there is no @main or it takes tuples.
Expected<std::vector<TensorPtr>> random_main_inputs(const Module& module, const std::string& path,
                                                    std::uint64_t seed, std::string_view command);

// Reads a tensor from a .npy file or a .pb file (a serialized ONNX TensorProto).
Expected<std::shared_ptr<Tensor>> read_tensor_file(const std::string& path);

}  // namespace uma::tool
