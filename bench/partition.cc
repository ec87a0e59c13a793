// Partitioning time: the whole pipeline (merge-composite, annotate-target,
// merge-compiler-regions, partition-graph) with a 20-pattern table, on ResNet-50 and on a
// model made by repeating one block 1x, 2x, 4x and 8x. The time per node must stay about
// flat as the model grows (the passes are linear), and ResNet-50 must take under 50 ms.
//
// usage: bench_partition [resnet50.onnx] [--repeat N] [--blocks B]
//   Without a model, a synthetic ResNet-50 (its bottleneck structure with small tensors)
//   stands in: partitioning time depends on the graph, not on tensor sizes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "test_targets.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

constexpr std::size_t kPatterns = 20;
const std::vector<std::string> kTestTargets = {"test_conv", "test_dense", "test_elem"};

[[noreturn]] void fail(const Error& error) {
  fmt::print(stderr, "bench_partition: {}\n", error.message());
  std::exit(1);
}

template <typename T>
T value_or_fail(Expected<T> expected) {
  if (!expected) fail(expected.error());
  return std::move(*expected);
}

// ---- The pattern table ----

PatternPtr conv_chain(const std::string& conv, const std::string& activation) {
  PatternPtr p = is_op(conv, {wildcard(), is_constant()});
  p = optional(p, [](PatternPtr x) { return is_op("add", {x, is_constant()}); });
  return optional(p, [&](PatternPtr x) { return is_op(activation, {x}); });
}

// Patterns that resemble the test targets' but claim other things (other convolutions, other
// activations, attribute and type predicates): a table of 20 whose most patterns are tried
// and fail at most nodes, as a real backend's would.
std::vector<CompositePattern> variant_patterns(std::size_t count) {
  std::vector<CompositePattern> all;
  for (std::string conv : {"conv1d", "conv3d", "conv2d_transpose"})
    for (std::string activation : {"relu", "sigmoid"})
      all.push_back({conv + "_" + activation,
                     conv_chain("nn." + conv, activation == "relu" ? "nn.relu" : activation)});
  all.push_back(
      {"depthwise_conv2d",
       has_attr(
           is_op("nn.conv2d", {wildcard(), is_constant()}), "groups",
           [](const Attribute& a) { return std::get<std::int64_t>(a) > 1; }, "is more than 1")});
  all.push_back({"conv2d_f16", has_dtype(conv_chain("nn.conv2d", "nn.relu"), DType::f16)});
  all.push_back({"dense_gelu", is_op("nn.gelu", {is_op("nn.dense", {wildcard(), wildcard()})})});
  all.push_back(
      {"matmul_softmax", is_op("nn.softmax", {is_op("nn.matmul", {wildcard(), wildcard()})})});
  all.push_back({"layer_norm", is_op("nn.layer_norm")});
  all.push_back(
      {"add_relu_rank2", has_rank(is_op("nn.relu", {is_op("add", {wildcard(), wildcard()})}), 2)});
  all.push_back({"multiply_add",
                 is_op("add", {is_op("multiply", {wildcard(), is_constant()}), is_constant()})});
  all.push_back({"avg_pool_relu", is_op("nn.relu", {is_op("nn.avg_pool2d", {wildcard()})})});
  all.push_back({"tanh", is_op("tanh", {wildcard()})});
  all.push_back({"clip_6", has_attr(is_op("clip", {wildcard()}), "a_max", Attribute(6.0))});
  if (count > all.size())
    fail(make_error("only {} variant patterns, {} wanted", all.size(), count));
  all.resize(count);
  return all;
}

// The test targets, and ahead of them a target holding the variants, so that every node is
// offered to all 20 patterns. Returns the target names in priority order.
std::vector<std::string> register_table(Context& context) {
  register_test_targets(context.partition_targets());
  std::size_t test_patterns = 0;
  for (const std::string& name : kTestTargets)
    test_patterns += value_or_fail(context.partition_targets().find(name))->patterns.size();
  if (test_patterns > kPatterns)
    fail(make_error("the test targets have {} patterns, more than {}", test_patterns, kPatterns));
  PartitionTarget variants{.name = "bench_variants",
                           .patterns = variant_patterns(kPatterns - test_patterns)};
  if (Status added = context.partition_targets().add(std::move(variants)); !added)
    fail(added.error());
  std::vector<std::string> targets = {"bench_variants"};
  targets.insert(targets.end(), kTestTargets.begin(), kTestTargets.end());
  return targets;
}

// ---- Models ----

TensorPtr weights(Shape shape) {
  auto tensor = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
  for (std::int64_t i = 0; i < tensor->num_elements(); ++i)
    tensor->set(i, static_cast<double>(i % 7) * 0.125 - 0.375);
  return tensor;
}

AttrMap conv_attrs(std::int64_t kernel, std::int64_t stride) {
  AttrMap attrs;
  std::int64_t pad = kernel / 2;
  attrs.set("padding", std::vector<std::int64_t>{pad, pad, pad, pad});
  attrs.set("strides", std::vector<std::int64_t>{stride, stride});
  return attrs;
}

// A convolution with a bias and optionally a relu. `bias_operand`: the bias is the
// convolution's third operand, as the ONNX importer gives Conv; else an add of a constant.
Value* conv_bias(Builder& b, Value* x, std::int64_t out_channels, std::int64_t kernel,
                 std::int64_t stride, bool relu, bool bias_operand = true) {
  std::int64_t in_channels = x->tensor_type().shape[1];
  Value* w = b.constant(weights({out_channels, in_channels, kernel, kernel}));
  Value* y;
  if (bias_operand) {
    y = b.value("nn.conv2d", {x, w, b.constant(weights({out_channels}))},
                conv_attrs(kernel, stride));
  } else {
    y = b.value("nn.conv2d", {x, w}, conv_attrs(kernel, stride));
    y = b.value("add", {y, b.constant(weights({1, out_channels, 1, 1}))});
  }
  return relu ? b.value("nn.relu", {y}) : y;
}

// ResNet-50's graph: a stem, bottleneck blocks in stages of 3, 4, 6 and 3, a global pool and
// a dense classifier, as the importer gives them. Channels are divided by 16 and the image
// is 32x32: the graph is ResNet-50's, the arithmetic is not.
std::unique_ptr<Module> synthetic_resnet50(Context& context) {
  auto module = std::make_unique<Module>(context, "resnet50");
  Function* main = value_or_fail(module->add_function("main"));
  Builder b(*main);
  Value* x = main->add_param(TensorType{DType::f32, {1, 3, 32, 32}}, "input");
  x = conv_bias(b, x, 4, 7, 2, true);
  AttrMap pool;
  pool.set("pool_size", std::vector<std::int64_t>{3, 3});
  pool.set("strides", std::vector<std::int64_t>{2, 2});
  pool.set("padding", std::vector<std::int64_t>{1, 1, 1, 1});
  x = b.value("nn.max_pool2d", {x}, pool);
  const std::int64_t stages[] = {3, 4, 6, 3};
  std::int64_t width = 4;
  for (std::size_t stage = 0; stage < 4; ++stage, width *= 2) {
    for (std::int64_t block = 0; block < stages[stage]; ++block) {
      std::int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      Value* y = conv_bias(b, x, width, 1, 1, true);
      y = conv_bias(b, y, width, 3, stride, true);
      y = conv_bias(b, y, width * 4, 1, 1, false);
      Value* shortcut = block == 0 ? conv_bias(b, x, width * 4, 1, stride, false) : x;
      x = b.value("nn.relu", {b.value("add", {y, shortcut})});
    }
  }
  x = b.value("nn.global_avg_pool", {x});
  AttrMap flat;
  flat.set("newshape", std::vector<std::int64_t>{1, -1});
  x = b.value("reshape", {x}, flat);
  std::int64_t features = x->tensor_type().shape[1];
  x = b.value("nn.dense", {x, b.constant(weights({10, features}))});
  x = b.value("add", {x, b.constant(weights({10}))});
  main->set_outputs({x});
  return module;
}

// One block: conv (with a bias) + relu, conv + bias add, a residual add and relu, a host-only
// pool, a scale, and a batched matmul with a bias: work for each test target and the host.
Value* block(Builder& b, Value* x) {
  Value* y = conv_bias(b, x, 8, 3, 1, true);
  y = conv_bias(b, y, 8, 3, 1, false, /*bias_operand=*/false);
  y = b.value("nn.relu", {b.value("add", {y, x})});
  AttrMap pool;
  pool.set("pool_size", std::vector<std::int64_t>{3, 3});
  pool.set("padding", std::vector<std::int64_t>{1, 1, 1, 1});
  y = b.value("nn.max_pool2d", {y}, pool);
  y = b.value("multiply", {y, b.constant(weights({1, 8, 1, 1}))});
  y = b.value("nn.matmul", {y, b.constant(weights({8, 8}))});
  return b.value("add", {y, b.constant(weights({8}))});
}

std::unique_ptr<Module> repeated_blocks(Context& context, std::int64_t count) {
  auto module = std::make_unique<Module>(context, "blocks");
  Function* main = value_or_fail(module->add_function("main"));
  Builder b(*main);
  Value* x = main->add_param(TensorType{DType::f32, {1, 8, 8, 8}}, "input");
  for (std::int64_t i = 0; i < count; ++i) x = block(b, x);
  main->set_outputs({x});
  return module;
}

// ---- Timing ----

std::size_t count_nodes(const Module& module) {
  std::size_t nodes = 0;
  for (const Function* f : module.functions()) nodes += f->num_nodes();
  return nodes;
}

// CPU time of this thread: the machine is shared, and wall time counts the other
// processes' turns.
double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

struct Timing {
  std::size_t nodes = 0;  // before partitioning, constants included
  double seconds = 0;     // the fastest run's CPU time
  // The fastest parse of the module's text: a pass over the same graph known to be linear,
  // as a control. When its time per node grows too, the growth is the memory hierarchy's
  // (a larger graph fits less well in the caches), not the partitioner's.
  double parse_seconds = 0;
  std::string passes;   // each pass's CPU time in that run
  std::string summary;  // nodes per target
};

// Partitions fresh copies of the module (parsed back from its text, data elided: the passes
// do not read tensor data) `repeat` times, with or without a report. The passes of
// create_partition_pipeline run one by one, so that each is timed.
Timing time_partition(Context& context, const Module& module,
                      const std::vector<std::string>& targets, int repeat, bool with_report) {
  std::string text = to_string(module, {.elide_data = true});
  Timing timing{.nodes = count_nodes(module), .seconds = 1e30, .parse_seconds = 1e30};
  for (int i = 0; i < repeat; ++i) {
    double parse_start = cpu_seconds();
    auto copy = value_or_fail(parse_module(context, text, module.name()));
    timing.parse_seconds = std::min(timing.parse_seconds, cpu_seconds() - parse_start);
    PartitionReport report;
    PartitionOptions options{.targets = targets, .report = with_report ? &report : nullptr};
    std::unique_ptr<Pass> passes[] = {
        create_merge_composite_pass(options), create_annotate_target_pass(options),
        create_merge_compiler_regions_pass(options), create_partition_graph_pass(options)};
    std::string per_pass;
    double start = cpu_seconds();
    if (with_report) report.begin(*copy, targets);
    for (auto& pass : passes) {
      double pass_start = cpu_seconds();
      value_or_fail(pass->run(*copy));
      per_pass += fmt::format("{}{} {:.2f} ms", per_pass.empty() ? "" : ", ", pass->name(),
                              (cpu_seconds() - pass_start) * 1e3);
    }
    double took = cpu_seconds() - start;
    if (took < timing.seconds) {
      timing.seconds = took;
      timing.passes = per_pass;
    }
    if (Status verified = verify(*copy); !verified) fail(verified.error());
    if (with_report && i == 0) {
      for (const TargetSummary& s : report.summary())
        timing.summary +=
            fmt::format("{}{} {}", timing.summary.empty() ? "" : ", ", s.target, s.nodes);
    }
  }
  return timing;
}

int run(int argc, char** argv) {
  std::string model_path;
  int repeat = 5;
  std::int64_t blocks = 64;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--blocks") && i + 1 < argc)
      blocks = std::atoll(argv[++i]);
    else
      model_path = argv[i];
  }
  if (repeat < 1 || blocks < 1) fail(make_error("--repeat and --blocks must be positive"));

  Context context;
  std::vector<std::string> targets = register_table(context);
  fmt::print("pattern table: {} patterns, targets {}\n", kPatterns, fmt::join(targets, ", "));

  std::unique_ptr<Module> resnet;
  std::string resnet_name = "ResNet-50 (synthetic)";
  if (!model_path.empty()) {
    resnet = value_or_fail(import_onnx_file(context, model_path));
    resnet_name = "ResNet-50 (" + model_path + ")";
  } else {
    resnet = synthetic_resnet50(context);
  }
  for (bool with_report : {false, true}) {
    Timing t = time_partition(context, *resnet, targets, repeat, with_report);
    fmt::print("{}, {}: {} nodes, {:.2f} ms, {:.2f} us/node\n  {}\n", resnet_name,
               with_report ? "with report" : "no report", t.nodes, t.seconds * 1e3,
               t.seconds * 1e6 / static_cast<double>(t.nodes), t.passes);
    if (with_report) fmt::print("  nodes: {}\n", t.summary);
  }

  fmt::print("\nrepeated block ({} blocks per 1x), no report:\n", blocks);
  fmt::print("{:>6} {:>8} {:>10} {:>10} {:>11} {:>14} {:>21}\n", "scale", "nodes", "ms", "us/node",
             "time ratio", "us/node ratio", "parse us/node ratio");
  double base_seconds = 0, base_per_node = 0, base_parse = 0;
  std::string passes;
  for (std::int64_t scale : {1, 2, 4, 8}) {
    auto module = repeated_blocks(context, blocks * scale);
    Timing t = time_partition(context, *module, targets, repeat, false);
    double per_node = t.seconds / static_cast<double>(t.nodes);
    double parse_per_node = t.parse_seconds / static_cast<double>(t.nodes);
    if (scale == 1) base_seconds = t.seconds, base_per_node = per_node, base_parse = parse_per_node;
    fmt::print("{:>5}x {:>8} {:>10.2f} {:>10.3f} {:>11.2f} {:>14.2f} {:>21.2f}\n", scale, t.nodes,
               t.seconds * 1e3, per_node * 1e6, t.seconds / base_seconds, per_node / base_per_node,
               parse_per_node / base_parse);
    passes += fmt::format("  {}x: {}\n", scale, t.passes);
  }
  fmt::print("per pass:\n{}", passes);
  return 0;
}

}  // namespace
}  // namespace uma

int main(int argc, char** argv) { return uma::run(argc, argv); }
