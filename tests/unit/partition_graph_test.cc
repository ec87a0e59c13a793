// Unit tests of merge-compiler-regions and partition-graph: partitioned modules compute
// bit for bit what the unpartitioned ones did, random graphs with random target assignments
// always partition into verifier-clean modules, and bad annotations are clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/graph/verifier.h"
#include "uma/partition/partition.h"
#include "uma/partition/report.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

std::unique_ptr<Module> parse(Context& context, std::string_view text) {
  auto module = parse_module(context, text, "test.uma");
  EXPECT_TRUE(module.ok()) << (module.ok() ? "" : module.error().message());
  return module.ok() ? std::move(*module) : nullptr;
}

// Runs merge-compiler-regions (when `merge`) and partition-graph.
Expected<bool> partition_regions(Module& module, const PartitionOptions& options,
                                 bool merge = true) {
  PassManager pipeline;
  if (merge) pipeline.add(create_merge_compiler_regions_pass(options));
  pipeline.add(create_partition_graph_pass(options));
  return pipeline.run(module);
}

// Same types and the same bytes, NaNs included.
void expect_bit_identical(const std::vector<TensorPtr>& actual,
                          const std::vector<TensorPtr>& expected, const std::string& context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    ASSERT_TRUE(actual[i]->type() == expected[i]->type()) << "output " << i << "\n" << context;
    auto a = actual[i]->bytes();
    auto e = expected[i]->bytes();
    EXPECT_TRUE(std::equal(a.begin(), a.end(), e.begin(), e.end())) << "output " << i << "\n"
                                                                    << context;
  }
}

void set_target(Node& node, const std::string& target) {
  node.mutable_attrs().set(std::string(kTargetAttr), target);
}

// Calls cannot carry attributes in the text form; the tests annotate composite calls here.
void annotate_calls(Module& module, const std::string& target) {
  for (Node* node : module.find_function("main")->node_list())
    if (node->callee() != nullptr && node->callee()->attrs().has(kCompositeAttr))
      set_target(*node, target);
}

std::vector<const Function*> compiled_functions(const Module& module) {
  std::vector<const Function*> out;
  for (const Function* f : module.functions())
    if (f->attrs().has(kCompilerAttr)) out.push_back(f);
  return out;
}

// Two targets, constants at the boundaries, a composite inside a region, regions with
// several outputs, one of which feeds both the host and the other target's region.
constexpr const char* kMixedModule = R"(
func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %k = constant {value = dense<[0.5, -1.0, 2.0, 0.25, 3.0, -0.5]> : tensor<2x3xf32>} : tensor<2x3xf32>
  %a = add(%x, %k) {uma.target = "A"} : tensor<2x3xf32>
  %c = call @A.act_0(%a) : tensor<2x3xf32>
  %b = multiply(%c, %y) {uma.target = "A"} : tensor<2x3xf32>
  %h = negative(%c) : tensor<2x3xf32>
  %d = subtract(%b, %k) {uma.target = "B"} : tensor<2x3xf32>
  %e = maximum(%d, %h) {uma.target = "B"} : tensor<2x3xf32>
  %f = tanh(%b) {uma.target = "A"} : tensor<2x3xf32>
  %g = add(%f, %e) {uma.target = "A"} : tensor<2x3xf32>
  return %g, %h, %b
}

func @A.act_0(%p: tensor<2x3xf32>) -> (tensor<2x3xf32>) attributes {Composite = "A.act", PartitionedFromPattern = "nn.relu_sigmoid_"} {
  %0 = nn.relu(%p) : tensor<2x3xf32>
  %1 = sigmoid(%0) : tensor<2x3xf32>
  return %1
}
)";

class PartitionGraphTest : public ::testing::TestWithParam<bool> {};

TEST_P(PartitionGraphTest, PartitionedModuleComputesTheSameBits) {
  Context context;
  auto module = parse(context, kMixedModule);
  ASSERT_NE(module, nullptr);
  annotate_calls(*module, "A");
  std::vector<TensorPtr> inputs = random_inputs(*module->find_function("main"), 11);
  auto before = interpret(*module, inputs);
  ASSERT_TRUE(before.ok()) << before.error().message();

  PartitionOptions options;
  options.bind_constants = GetParam();
  auto changed = partition_regions(*module, options);
  ASSERT_TRUE(changed.ok()) << changed.error().message();
  EXPECT_TRUE(*changed);
  Status verified = verify(*module);
  ASSERT_TRUE(verified.ok()) << verified.error().message() << "\n" << to_string(*module);

  // %a, %c, %b and %f form A's first region; B takes %d and %e; %g cannot join A's first
  // region, which reaches it through %e.
  std::vector<const Function*> compiled = compiled_functions(*module);
  ASSERT_EQ(compiled.size(), 3u) << to_string(*module);
  EXPECT_EQ(compiled[0]->name(), "module_A_main_0");
  EXPECT_EQ(compiled[1]->name(), "module_B_main_1");
  EXPECT_EQ(compiled[2]->name(), "module_A_main_2");
  // %c for the host, %b for B and the output, %f for A's second region.
  EXPECT_EQ(compiled[0]->outputs().size(), 3u);
  EXPECT_EQ(compiled[0]->num_params(), GetParam() ? 1u + 1u : 3u);  // %x, %y (and %k)

  auto after = interpret(*module, inputs);
  ASSERT_TRUE(after.ok()) << after.error().message();
  expect_bit_identical(*after, *before, to_string(*module));

  // Partitioning again finds nothing to do.
  std::string once = to_string(*module);
  auto again = partition_regions(*module, options);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(to_string(*module), once);
}

INSTANTIATE_TEST_SUITE_P(BindConstants, PartitionGraphTest, ::testing::Bool());

TEST(PartitionGraph, SmallRegionsStayOnTheHostAndTheReportSaysWhy) {
  Context context;
  auto module = parse(context, R"(
func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %c = call @A.act_0(%x) : tensor<4xf32> loc("act")
  %h = negative(%c) : tensor<4xf32> loc("neg")
  %e = nn.relu(%h) {uma.target = "A"} : tensor<4xf32> loc("relu")
  return %e
}

func @A.act_0(%p: tensor<4xf32>) -> (tensor<4xf32>) attributes {Composite = "A.act", PartitionedFromPattern = "nn.relu_sigmoid_"} {
  %0 = nn.relu(%p) : tensor<4xf32>
  %1 = sigmoid(%0) : tensor<4xf32>
  return %1
}
)");
  ASSERT_NE(module, nullptr);
  annotate_calls(*module, "A");
  PartitionReport report;
  report.begin(*module, {"A"});
  PartitionOptions options;
  options.min_region_size = 2;
  options.report = &report;
  auto changed = partition_regions(*module, options);
  ASSERT_TRUE(changed.ok()) << changed.error().message();
  ASSERT_TRUE(verify(*module).ok());

  // The composite counts its two nodes and goes to A; the lone relu stays.
  ASSERT_EQ(compiled_functions(*module).size(), 1u);
  const auto& records = report.records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].name, "act");
  EXPECT_EQ(records[0].target, "A");
  EXPECT_EQ(records[0].region, "module_A_main_0");
  EXPECT_TRUE(records[0].rejections.empty());
  EXPECT_EQ(records[2].name, "relu");
  EXPECT_EQ(records[2].target, "");
  EXPECT_EQ(records[2].region, "");
  ASSERT_EQ(records[2].rejections.size(), 1u);
  EXPECT_EQ(records[2].rejections[0].target, "A");
  EXPECT_EQ(records[2].rejections[0].kind, RejectionKind::RegionTooSmall);
  EXPECT_EQ(records[2].rejections[0].detail, "1 node(s), the minimum is 2");
  for (const auto& node : module->find_function("main")->nodes())
    EXPECT_FALSE(node->attrs().has(kTargetAttr) || node->attrs().has(kRegionAttr));
}

// ---- Bad annotations ----

std::string partition_error(std::string_view text, bool merge) {
  Context context;
  auto module = parse(context, text);
  if (module == nullptr) return "parse failed";
  auto changed = partition_regions(*module, {}, merge);
  return changed.ok() ? "no error" : changed.error().message();
}

TEST(PartitionGraph, ARegionOfTwoTargetsIsAnError) {
  EXPECT_EQ(partition_error(R"(
func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  %a = nn.relu(%x) {uma.region = 0, uma.target = "A"} : tensor<2xf32>
  %b = tanh(%a) {uma.region = 0, uma.target = "B"} : tensor<2xf32>
  return %b
}
)",
                            false),
            "pass 'partition-graph': node #1 (tanh) in function @main: uma.region 0 holds nodes of "
            "two targets, 'A' and 'B'");
}

TEST(PartitionGraph, ARegionThatLeavesAndReentersItselfIsAnError) {
  EXPECT_EQ(partition_error(R"(
func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  %a = nn.relu(%x) {uma.region = 0, uma.target = "A"} : tensor<2xf32>
  %h = negative(%a) : tensor<2xf32>
  %c = add(%a, %h) {uma.region = 0, uma.target = "A"} : tensor<2xf32>
  return %c
}
)",
                            false),
            "pass 'partition-graph': function @main: outlining its regions creates a cycle "
            "through @module_A_main_0: a region's nodes reach one another through nodes outside "
            "it");
}

TEST(PartitionGraph, AnnotationsOfTheWrongKindAreErrors) {
  EXPECT_EQ(partition_error(R"(
func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  %a = nn.relu(%x) {uma.target = 3} : tensor<2xf32> loc("r")
  return %a
}
)",
                            true),
            "pass 'merge-compiler-regions': node 'r' (nn.relu): attribute 'uma.target' is int, it "
            "must be a string");
  EXPECT_EQ(partition_error(R"(
func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  %a = nn.relu(%x) {uma.region = "one", uma.target = "A"} : tensor<2xf32> loc("r")
  return %a
}
)",
                            false),
            "pass 'partition-graph': node 'r' (nn.relu): attribute 'uma.region' is string, it must "
            "be an int");
}

// ---- Random graphs ----

// A random DAG of elementwise ops over tensor<3xf32>: operands among the parameters and
// earlier values, some constants, some calls of a composite; each node (constants too) gets
// no target, "A" or "B" at random, composite calls "A" or none. Nodes are named n0, n1, ...
std::unique_ptr<Module> random_module(Context& context, std::mt19937_64& rng) {
  auto module = std::make_unique<Module>(context, "rand");
  TensorType type{DType::f32, {3}};
  Function* main = *module->add_function("main");
  Function* composite = *module->add_function("A.act_0");
  composite->mutable_attrs().set(std::string(kCompositeAttr), std::string("A.act"));
  {
    Builder b(*composite);
    Value* p = composite->add_param(type, "p");
    composite->set_outputs({b.value("tanh", {b.value("nn.relu", {p})})});
  }
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<Value*> values;
  std::size_t params = 1 + pick(3);
  for (std::size_t i = 0; i < params; ++i)
    values.push_back(main->add_param(type, fmt::format("p{}", i)));
  static const char* kUnary[] = {"nn.relu", "tanh", "negative", "sigmoid", "abs"};
  static const char* kBinary[] = {"add", "subtract", "multiply", "maximum"};
  static const char* kTargets[] = {"", "A", "B"};
  Builder b(*main);
  std::size_t count = 5 + pick(56);
  for (std::size_t i = 0; i < count; ++i) {
    std::string name = fmt::format("n{}", i);
    std::size_t kind = pick(10);
    Node* node;
    if (kind == 0) {
      auto tensor = std::make_shared<Tensor>(type);
      for (std::int64_t j = 0; j < 3; ++j) tensor->set(j, static_cast<double>(pick(7)) - 3.0);
      AttrMap attrs;
      attrs.set("value", tensor);
      node = b.create("constant", {}, std::move(attrs), name);
    } else if (kind == 1) {
      node = b.call(composite, {values[pick(values.size())]});
      node->set_name(name);
      if (pick(2)) set_target(*node, "A");
    } else if (kind < 6) {
      node = b.create(kUnary[pick(5)], {values[pick(values.size())]}, {}, name);
    } else {
      node = b.create(kBinary[pick(4)], {values[pick(values.size())], values[pick(values.size())]},
                      {}, name);
    }
    if (!node->callee())
      if (const char* target = kTargets[pick(3)]; *target) set_target(*node, target);
    values.push_back(node->result());
  }
  std::vector<Value*> outputs;
  for (Value* v : values)
    if (!v->is_param() && !v->has_uses()) outputs.push_back(v);
  outputs.push_back(values[pick(values.size())]);
  main->set_outputs(std::move(outputs));
  return module;
}

// The module's text, and the annotations of calls, which the text form leaves out.
std::string describe(const Module& module) {
  std::string text = to_string(module) + "// calls:";
  for (const auto& node : module.find_function("main")->nodes())
    if (node->callee() != nullptr)
      text += fmt::format(
          " {}={}/{}", node->name(), node->attrs().string_or_none(kTargetAttr).value_or("-"),
          node->attrs().has(kRegionAttr) ? std::to_string(node->attrs().get_int(kRegionAttr))
                                         : "-");
  return text + "\n";
}

// Whether a path leaves some region and enters it again, by brute force.
std::string region_reentered(const Function& function) {
  std::map<const Node*, std::int64_t> region;
  for (const auto& node : function.nodes())
    if (const Attribute* id = node->attrs().find(kRegionAttr))
      region[node.get()] = std::get<std::int64_t>(*id);
  for (const auto& [start, id] : region) {
    // Nodes reachable from `start` through at least one node outside its region.
    std::set<const Node*> outside_reached;
    std::vector<std::pair<const Node*, bool>> work = {{start, false}};
    std::set<std::pair<const Node*, bool>> seen;
    while (!work.empty()) {
      auto [node, left] = work.back();
      work.pop_back();
      for (const Value* r : node->results())
        for (const Use& use : r->uses()) {
          if (use.user == nullptr) continue;
          auto it = region.find(use.user);
          bool inside = it != region.end() && it->second == id;
          if (inside && left) return fmt::format("region {} is left and entered again", id);
          std::pair<const Node*, bool> next = {use.user, left || !inside};
          if (seen.insert(next).second) work.push_back(next);
        }
    }
  }
  return "";
}

TEST(PartitionProperty, RandomGraphsPartitionIntoValidModulesThatComputeTheSameBits) {
  std::mt19937_64 rng(20240601);
  int outlined = 0;
  for (int round = 0; round < 300; ++round) {
    Context context;
    auto module = random_module(context, rng);
    ASSERT_TRUE(verify(*module).ok()) << to_string(*module);
    std::string original = describe(*module);
    std::map<std::string, std::string> target_of;  // node name -> target
    for (const auto& node : module->find_function("main")->nodes())
      target_of[node->name()] = node->attrs().string_or_none(kTargetAttr).value_or("");

    PartitionOptions options;
    options.bind_constants = rng() % 2;
    bool merge = rng() % 4 != 0;
    std::vector<TensorPtr> inputs = random_inputs(*module->find_function("main"), round);
    auto before = interpret(*module, inputs);
    ASSERT_TRUE(before.ok()) << before.error().message();

    if (merge) {
      auto merged = create_merge_compiler_regions_pass(options)->run(*module);
      ASSERT_TRUE(merged.ok()) << merged.error().message();
      EXPECT_EQ(region_reentered(*module->find_function("main")), "") << original;
      original += describe(*module);
    }
    auto changed = partition_regions(*module, options, false);
    ASSERT_TRUE(changed.ok()) << changed.error().message() << "\n" << original;
    Status verified = verify(*module);
    ASSERT_TRUE(verified.ok()) << verified.error().message() << "\n"
                               << original << "\n"
                               << to_string(*module);

    for (const Function* function : module->functions()) {
      auto compiler = function->attrs().string_or_none(kCompilerAttr);
      for (const auto& node : function->nodes()) {
        EXPECT_FALSE(node->attrs().has(kTargetAttr) || node->attrs().has(kRegionAttr));
        if (node->is_op("constant")) continue;
        // A target's function holds nodes of that target; @main keeps the others.
        if (compiler) {
          EXPECT_EQ(target_of[node->name()], *compiler) << node->name() << "\n" << original;
        } else if (function->name() == "main" && node->callee() == nullptr) {
          EXPECT_EQ(target_of[node->name()], "") << node->name() << "\n" << original;
        }
      }
    }
    outlined += static_cast<int>(compiled_functions(*module).size());

    auto after = interpret(*module, inputs);
    ASSERT_TRUE(after.ok()) << after.error().message() << "\n" << to_string(*module);
    expect_bit_identical(*after, *before, original);
  }
  EXPECT_GT(outlined, 300);  // the graphs do get partitioned
}

}  // namespace
}  // namespace uma
