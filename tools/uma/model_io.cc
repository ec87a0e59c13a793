// Loading models and tensor files for the tool's commands.
#include "model_io.h"

#include <charconv>

#include "progress.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/graph/parser.h"
#include "uma/graph/verifier.h"
#include "uma/runtime/interpreter.h"
#include "uma/runtime/npy.h"
#include "uma/support/file.h"

namespace uma::tool {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// "x=1x3x224x224" (a scalar is "x="). The shape follows the last '=', since input names
// may contain one.
Status add_input_shape(const std::string& text, OnnxImportOptions& options) {
  auto bad = [&] {
    return make_error(
        "--input-shape '{}': expected name=AxBxC with non-negative integer "
        "dimensions, e.g. x=1x3x224x224",
        text);
  };
  std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0) return bad();
  std::string name = text.substr(0, equals);
  std::string_view dims = std::string_view(text).substr(equals + 1);
  Shape shape;
  while (!dims.empty()) {
    std::int64_t dim = 0;
    auto [end, error] = std::from_chars(dims.data(), dims.data() + dims.size(), dim);
    if (error != std::errc() || dim < 0) return bad();
    shape.push_back(dim);
    dims.remove_prefix(static_cast<std::size_t>(end - dims.data()));
    if (dims.empty()) break;
    if (dims.front() != 'x' || dims.size() == 1) return bad();
    dims.remove_prefix(1);
  }
  if (!options.input_shapes.emplace(name, std::move(shape)).second)
    return make_error("--input-shape gives '{}' twice", name);
  return Status::success();
}

// "shape=shape.npy": the input named before the first '=' gets the file's tensor.
Status add_bind(const std::string& text, OnnxImportOptions& options) {
  std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    return make_error("--bind '{}': expected name=path, e.g. shape=shape.npy", text);
  std::string name = text.substr(0, equals);
  auto tensor = read_tensor_file(text.substr(equals + 1));
  if (!tensor) return tensor.error().with_context(fmt::format("--bind {}", text));
  if (!options.constant_inputs.emplace(name, std::move(*tensor)).second)
    return make_error("--bind gives '{}' twice", name);
  return Status::success();
}

}  // namespace

void add_import_options(CLI::App& cmd, ImportArgs& args) {
  cmd.add_option("--input-shape", args.input_shapes,
                 "Shape of an ONNX input, name=AxBxC (resolves symbolic dimensions)")
      ->allow_extra_args(false);
  cmd.add_option("--bind", args.binds,
                 "An ONNX input bound to a value at build time, name=path (.npy or .pb): it "
                 "becomes a constant and no input of @main; what an input a node needs at build "
                 "time (a Reshape's shape, a Loop's trip count) takes")
      ->allow_extra_args(false);
}

Expected<std::unique_ptr<Module>> load_model(
    Context& context, const std::string& path, const ImportArgs& args,
    const std::map<std::string, TensorPtr, std::less<>>& run_inputs) {
  std::unique_ptr<Module> module;
  if (ends_with(path, ".onnx")) {
    OnnxImportOptions options;
    for (const std::string& text : args.input_shapes) UMA_TRY(add_input_shape(text, options));
    for (const std::string& text : args.binds) UMA_TRY(add_bind(text, options));
    options.run_inputs = run_inputs;
    Progress progress(fmt::format("importing {}", path));
    UMA_TRY_ASSIGN(module, import_onnx_file(context, path, options));
  } else {
    if (!args.input_shapes.empty() || !args.binds.empty())
      return make_error(
          "{}: --input-shape and --bind apply to ONNX models (.onnx) only; graph IR text "
          "states its shapes and constants",
          path);
    UMA_TRY_ASSIGN(std::string text, read_file(path));
    UMA_TRY_ASSIGN(module, parse_module(context, text, path));
  }
  UMA_TRY(verify(*module));
  return module;
}

Expected<std::vector<TensorPtr>> random_main_inputs(const Module& module, const std::string& path,
                                                    std::uint64_t seed, std::string_view command) {
  const Function* main = module.find_function("main");
  if (main == nullptr) return make_error("{}: the module has no function @main to run", path);
  std::vector<TensorPtr> inputs = random_inputs(*main, seed);
  if (inputs.size() != main->num_params())
    return make_error("{}: @main takes tuples, which uma {} cannot make", path, command);
  return inputs;
}

Expected<std::shared_ptr<Tensor>> read_tensor_file(const std::string& path) {
  if (ends_with(path, ".npy")) return read_npy_file(path);
  if (ends_with(path, ".pb")) return read_onnx_tensor_file(path);
  return make_error("{}: unknown tensor file type; expected .npy (numpy) or .pb (ONNX TensorProto)",
                    path);
}

}  // namespace uma::tool
