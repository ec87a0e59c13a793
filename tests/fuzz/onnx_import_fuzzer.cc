// libFuzzer target for the ONNX importer. Any bytes must give a module or one error, never a
// crash, a hang, a leak or a huge allocation; a module that imports must verify, and print
// and parse back to the same text.
//
// Byte-level mutations of a protobuf mostly break its framing, so a custom mutator also
// edits the parsed model the way a broken exporter or an attacker would: op types, attribute
// values, tensor dims, types and sizes, input shapes, node wiring and opsets, inside the
// subgraphs of If, Loop and Scan too.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>

#include "uma/frontend/onnx/importer.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s\n%s\n", what, detail.c_str());
  std::abort();
}

// Values at the edges of what sizes, axes and counts accept.
std::int64_t interesting(std::mt19937_64& rng) {
  static constexpr std::int64_t kValues[] = {0,
                                             1,
                                             -1,
                                             2,
                                             3,
                                             -2,
                                             4,
                                             7,
                                             16,
                                             255,
                                             1 << 16,
                                             std::numeric_limits<std::int32_t>::max(),
                                             std::int64_t{1} << 32,
                                             std::int64_t{1} << 62,
                                             std::numeric_limits<std::int64_t>::max(),
                                             std::numeric_limits<std::int64_t>::min()};
  return kValues[rng() % std::size(kValues)];
}

template <typename T>
T* pick(google::protobuf::RepeatedPtrField<T>& field, std::mt19937_64& rng) {
  return field.empty() ? nullptr : field.Mutable(static_cast<int>(rng() % field.size()));
}

void mutate_tensor(onnx::TensorProto& tensor, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      if (tensor.dims_size() > 0)
        tensor.set_dims(static_cast<int>(rng() % tensor.dims_size()), interesting(rng));
      else
        tensor.add_dims(interesting(rng));
      break;
    case 1:
      tensor.set_data_type(static_cast<int>(rng() % 17));
      break;
    case 2:
      tensor.mutable_raw_data()->resize(rng() % 64);
      break;
    default:
      tensor.add_dims(static_cast<std::int64_t>(rng() % 4));
      break;
  }
}

// The strings ops take as modes, so that a mutation switches GridSample to bicubic or
// TfIdfVectorizer to IDF rather than to noise.
const char* interesting_string(std::mt19937_64& rng) {
  static constexpr const char* kStrings[] = {
      "",           "bilinear", "nearest", "linear", "cubic", "bicubic", "zeros",      "border",
      "reflection", "TF",       "IDF",     "TFIDF",  "avg",   "max",     "half_pixel", "NOTSET"};
  return kStrings[rng() % std::size(kStrings)];
}

void mutate_attribute(onnx::AttributeProto& attr, std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      attr.set_i(interesting(rng));
      break;
    case 1:
      if (attr.ints_size() > 0)
        attr.set_ints(static_cast<int>(rng() % attr.ints_size()), interesting(rng));
      else
        attr.add_ints(interesting(rng));
      break;
    case 2:
      attr.set_f(static_cast<float>(interesting(rng)) / 3.0f);
      break;
    case 3:
      attr.set_type(static_cast<onnx::AttributeProto::AttributeType>(rng() % 15));
      break;
    case 4:
      if (attr.has_t()) mutate_tensor(*attr.mutable_t(), rng);
      break;
    case 5:
      attr.set_s(interesting_string(rng));
      break;
    case 6:
      if (attr.floats_size() > 0)
        attr.set_floats(static_cast<int>(rng() % attr.floats_size()),
                        static_cast<float>(interesting(rng)) / 7.0f);
      else
        attr.add_floats(static_cast<float>(interesting(rng)) / 7.0f);
      break;
    default:
      attr.add_ints(interesting(rng));
      break;
  }
}

// Rewires an input of some node to another value of the graph, or to nothing.
void rewire(onnx::GraphProto& graph, std::mt19937_64& rng) {
  onnx::NodeProto* node = pick(*graph.mutable_node(), rng);
  if (node == nullptr || node->input_size() == 0) return;
  std::string name;
  if (rng() % 4 != 0) {
    const onnx::NodeProto* source = pick(*graph.mutable_node(), rng);
    if (source->output_size() > 0)
      name = source->output(static_cast<int>(rng() % source->output_size()));
  }
  node->set_input(static_cast<int>(rng() % node->input_size()), name);
}

// The graph to mutate: the model's, or now and then the body or a branch of one of its
// control-flow nodes (and so on down), which the importer converts once per iteration.
onnx::GraphProto& pick_graph(onnx::GraphProto& graph, std::mt19937_64& rng) {
  if (rng() % 3 != 0) return graph;
  for (onnx::NodeProto& node : *graph.mutable_node())
    for (onnx::AttributeProto& attr : *node.mutable_attribute())
      if (attr.has_g() && rng() % 2 == 0) return pick_graph(*attr.mutable_g(), rng);
  return graph;
}

void mutate_model(onnx::ModelProto& model, std::mt19937_64& rng) {
  static const std::vector<std::string> ops = uma::supported_onnx_ops();
  onnx::GraphProto& graph = pick_graph(*model.mutable_graph(), rng);
  switch (rng() % 9) {
    case 0:
      if (onnx::NodeProto* node = pick(*graph.mutable_node(), rng))
        node->set_op_type(ops[rng() % ops.size()]);
      break;
    case 1:
      if (onnx::NodeProto* node = pick(*graph.mutable_node(), rng))
        if (onnx::AttributeProto* attr = pick(*node->mutable_attribute(), rng))
          mutate_attribute(*attr, rng);
      break;
    case 2:
      if (onnx::TensorProto* tensor = pick(*graph.mutable_initializer(), rng))
        mutate_tensor(*tensor, rng);
      break;
    case 3:
      if (onnx::ValueInfoProto* input = pick(*graph.mutable_input(), rng)) {
        auto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (auto* dim = pick(*shape->mutable_dim(), rng)) {
          if (rng() % 3 == 0)
            dim->set_dim_param("N");
          else
            dim->set_dim_value(interesting(rng));
        } else {
          shape->add_dim()->set_dim_value(static_cast<std::int64_t>(rng() % 5));
        }
      }
      break;
    case 4:
      rewire(graph, rng);
      break;
    case 5:
      if (onnx::NodeProto* node = pick(*graph.mutable_node(), rng)) *graph.add_node() = *node;
      break;
    case 6:
      if (graph.node_size() > 0)
        graph.mutable_node()->DeleteSubrange(static_cast<int>(rng() % graph.node_size()), 1);
      break;
    case 7:
      if (auto* opset = pick(*model.mutable_opset_import(), rng))
        opset->set_version(5 + static_cast<std::int64_t>(rng() % 15));
      break;
    default:
      if (onnx::NodeProto* node = pick(*graph.mutable_node(), rng))
        if (node->output_size() > 0) graph.add_output()->set_name(node->output(0));
      break;
  }
}

void check_round_trip(uma::Context& context, const uma::Module& module) {
  std::string printed = uma::to_string(module);
  auto reparsed = uma::parse_module(context, printed, "printed");
  if (!reparsed)
    fail("an imported module's text does not parse back:",
         reparsed.error().message() + "\n" + printed);
  if (uma::to_string(**reparsed) != printed)
    fail("print -> parse -> print changed the text:", printed);
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  std::mt19937_64 rng(seed);
  onnx::ModelProto model;
  if (rng() % 4 != 0 && model.ParseFromArray(data, static_cast<int>(size))) {
    for (int i = 1 + static_cast<int>(rng() % 3); i > 0; --i) mutate_model(model, rng);
    std::string bytes = model.SerializeAsString();
    if (bytes.size() <= max_size) {
      std::memcpy(data, bytes.data(), bytes.size());
      return bytes.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One op registry for every input, as a long-running tool would have.
  static uma::Context context;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // No folder: external data must be refused, never read from wherever the fuzzer runs.
  auto module = uma::import_onnx_bytes(context, bytes, "fuzz.onnx", "");
  if (!module) return 0;
  if (uma::Status verified = uma::verify(**module); !verified)
    fail("an imported module does not verify:", verified.error().message());
  check_round_trip(context, **module);
  return 0;
}
