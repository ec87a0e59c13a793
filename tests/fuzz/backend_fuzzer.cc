// libFuzzer target for everything after import: the fuzzer's bytes build a random valid graph
// (any op of the registry, operands among the values made so far, attributes of the kinds
// its schema declares; whatever the builder refuses is skipped), which is then partitioned
// for the host alone or vanilla and the host, fused, lowered, run through the loop-IR
// phases, generated as C and planned. Any graph must build or give one error, never crash.
//
// A C compile per input would cost a hundred times the rest, so only one graph in
// kCompileEvery (chosen by the input) of at most kMaxCompiledNodes nodes is compiled and run
// too: its outputs must match
// the interpreter's (compare_scaled's rule), and what the interpreter refuses compiled code
// must refuse too (uma/tir/run_checks.h).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_context.h"
#include "uma/graph/builder.h"
#include "uma/graph/pass.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace {

using uma::fuzz::fuzz_context;

constexpr std::size_t kMaxNodes = 12;
constexpr std::size_t kMaxCompiledNodes = 8;
constexpr std::uint64_t kCompileEvery = 16;
// Larger values make the interpreter and the C compiler slow, not the compiler wrong.
constexpr std::int64_t kMaxElements = 4096;

[[noreturn]] void fail(const char* what, const std::string& detail, const uma::Module& module) {
  std::fprintf(stderr, "%s\n%s\n%s\n", what, detail.c_str(), uma::to_string(module).c_str());
  std::abort();
}

// The ops a random node may be: every op but the structural ones and those taking a tensor
// attribute (a constant is made by the fuzzer itself).
const std::vector<const uma::OpDef*>& candidate_ops() {
  static const std::vector<const uma::OpDef*> ops = [] {
    std::vector<const uma::OpDef*> out;
    const uma::OpRegistry& registry = fuzz_context().ops();
    for (const std::string& name : registry.names()) {
      if (name == "constant" || name == "tuple" || name == "get_item" || name == "call") continue;
      const uma::OpDef* def = registry.find(name);
      bool tensor_attr = false;
      for (const uma::AttrDef& attr : def->attrs) tensor_attr |= attr.kind == uma::AttrKind::Tensor;
      if (!tensor_attr) out.push_back(def);
    }
    return out;
  }();
  return ops;
}

uma::Shape random_shape(FuzzedDataProvider& in) {
  uma::Shape shape(in.ConsumeIntegralInRange<std::size_t>(0, 4));
  for (std::int64_t& dim : shape) dim = in.ConsumeIntegralInRange<std::int64_t>(1, 4);
  return shape;
}

std::int64_t small_int(FuzzedDataProvider& in) {
  return in.ConsumeIntegralInRange<std::int64_t>(-2, 4);
}

uma::Attribute random_attr(FuzzedDataProvider& in, const uma::AttrDef& def) {
  static const char* const kStrings[] = {"none", "add",   "mul",     "max",    "min",      "f32",
                                         "i64",  "NCHW",  "nearest", "linear", "constant", "edge",
                                         "tanh", "floor", "reflect", "i32"};
  switch (def.kind) {
    case uma::AttrKind::Int:
      return small_int(in);
    case uma::AttrKind::Float:
      return in.ConsumeFloatingPointInRange<double>(-2.0, 2.0);
    case uma::AttrKind::String:
      return std::string(kStrings[in.ConsumeIntegralInRange<std::size_t>(0, 15)]);
    case uma::AttrKind::Ints: {
      std::vector<std::int64_t> values(in.ConsumeIntegralInRange<std::size_t>(0, 4));
      for (std::int64_t& v : values) v = small_int(in);
      return values;
    }
    case uma::AttrKind::Floats: {
      std::vector<double> values(in.ConsumeIntegralInRange<std::size_t>(0, 4));
      for (double& v : values) v = in.ConsumeFloatingPointInRange<double>(-2.0, 2.0);
      return values;
    }
    default:
      return std::vector<std::string>{};
  }
}

// A small constant: f32 values in [-2, 2], or integer ones in [-2, 4] (indices, some out of
// range).
uma::TensorPtr random_constant(FuzzedDataProvider& in) {
  bool integer = in.ConsumeBool();
  auto tensor = std::make_shared<uma::Tensor>(
      uma::TensorType{integer ? uma::DType::i64 : uma::DType::f32, random_shape(in)});
  for (std::int64_t i = 0; i < tensor->num_elements(); ++i)
    tensor->set(i, integer ? static_cast<double>(small_int(in))
                           : in.ConsumeFloatingPointInRange<double>(-2.0, 2.0));
  return tensor;
}

bool small_enough(const uma::Value& value) {
  if (!value.type().is_tensor()) return false;
  auto elements = value.tensor_type().checked_num_elements();
  return elements.ok() && *elements <= kMaxElements;
}

// @main from the bytes: one or two f32 parameters, then nodes.
void build_graph(FuzzedDataProvider& in, uma::Function& main) {
  uma::Builder builder(main);
  std::vector<uma::Value*> values;
  std::size_t params = in.ConsumeIntegralInRange<std::size_t>(1, 2);
  for (std::size_t p = 0; p < params; ++p)
    values.push_back(main.add_param(uma::TensorType{uma::DType::f32, random_shape(in)},
                                    "x" + std::to_string(p)));
  const auto& ops = candidate_ops();
  std::size_t nodes = 0;
  while (nodes < kMaxNodes && in.remaining_bytes() > 0) {
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {
      values.push_back(builder.constant(random_constant(in)));
      continue;
    }
    const uma::OpDef& op = *ops[in.ConsumeIntegralInRange<std::size_t>(0, ops.size() - 1)];
    int max_inputs = op.max_inputs == uma::OpDef::kVariadic ? op.min_inputs + 3 : op.max_inputs;
    int count = in.ConsumeIntegralInRange<int>(op.min_inputs, std::max(op.min_inputs, max_inputs));
    std::vector<uma::Value*> operands;
    for (int i = 0; i < count; ++i)
      operands.push_back(values[in.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1)]);
    uma::AttrMap attrs;
    for (const uma::AttrDef& attr : op.attrs)
      if (!attr.default_value || in.ConsumeIntegralInRange<int>(0, 2) == 0)
        attrs.set(attr.name, random_attr(in, attr));
    auto node = builder.try_create(op.name, std::move(operands), std::move(attrs));
    if (!node) continue;
    ++nodes;
    for (uma::Value* result : (*node)->results())
      if (small_enough(*result)) values.push_back(result);
  }
  std::vector<uma::Value*> outputs{values.back()};
  if (values.size() > 2 && in.ConsumeBool()) outputs.push_back(values[values.size() / 2]);
  main.set_outputs(outputs);
}

std::string cache_dir() {
  return (std::filesystem::temp_directory_path() / "uma-backend-fuzzer-cache").string();
}

// An op a backend cannot lower is an error, not a finding; one that says it is a bug is.
void check_error(const uma::Error& error, const uma::Module& module) {
  if (error.message().find("(a bug") != std::string::npos)
    fail("the build reports a bug:", error.message(), module);
}

// Compiled and run: the outputs must match the interpreter's, or both must refuse the
// inputs.
void check_compiled(uma::Module& module, const std::vector<std::string>& targets) {
  // The host program runs only what the outputs need, the interpreter every node: a dead
  // node the interpreter refuses (an index out of range) changes no output, so both are
  // given the graph without it.
  uma::PassManager dce;
  dce.add(uma::create_dce_pass());
  if (auto removed = dce.run(module); !removed)
    fail("dead-code elimination fails:", removed.error().message(), module);
  const uma::Function& main = *module.find_function("main");
  std::vector<uma::TensorPtr> inputs = uma::random_inputs(main, 1);
  auto reference = uma::interpret(main, inputs);
  std::string before = uma::to_string(module);
  uma::build::BuildOptions options;
  options.compiler.cache_dir = cache_dir();
  auto built = uma::build::build(module, targets, options);
  if (!built) return check_error(built.error(), module);
  auto outputs = uma::runtime::Executor(built->program).run(inputs);
  if (!reference) {
    if (outputs)
      fail("compiled code accepts what the interpreter refuses:",
           reference.error().message() + "\n" + before, module);
    return;
  }
  if (!outputs)
    fail("compiled code fails where the interpreter does not:",
         outputs.error().message() + "\n" + before, module);
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    uma::TensorComparison result = uma::compare_scaled(*(*outputs)[i], *(*reference)[i]);
    if (!result.ok())
      fail("compiled output differs from the interpreter's:",
           "output " + std::to_string(i) + ": " + std::to_string(result.mismatches) +
               " mismatch(es), first at " + std::to_string(result.first_mismatch) + "\n" + before,
           module);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // Decided by the input, so that a finding reproduces from its file alone.
  bool compile = in.ConsumeIntegralInRange<std::uint64_t>(1, kCompileEvery) == 1;
  uma::Module module(fuzz_context());
  uma::Function& main = *module.add_function("main").value();
  std::vector<std::string> targets{"c"};
  if (in.ConsumeBool()) targets.insert(targets.begin(), "vanilla --dimension=4");
  build_graph(in, main);
  if (uma::Status verified = uma::verify(module); !verified)
    fail("a built graph does not verify:", verified.error().message(), module);
  if (compile && main.num_nodes() <= kMaxCompiledNodes) {
    check_compiled(module, targets);
    return 0;
  }
  uma::build::BuildOptions options;
  options.compile = false;
  auto built = uma::build::build(module, targets, options);
  if (!built) check_error(built.error(), module);
  return 0;
}
