// `uma test-backend`: the conformance kit of a backend. For each pattern the backend claims,
// it makes small models that exercise it (each alternative of the pattern, then variants of
// shape, dtype, attributes and broadcasting, inside and outside the backend's predicate),
// builds each for the backend, and checks that what the pattern and predicate accept ran on
// the backend, that what they refuse stayed on the host, and that every output matches the
// reference interpreter. Prints a scorecard; --json writes it.
#include <fmt/ranges.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "context_setup.h"
#include "model_io.h"
#include "progress.h"
#include "python_plugin.h"
#include "target_option.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/graph/builder.h"
#include "uma/partition/report.h"
#include "uma/pattern/pattern.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma::tool {
namespace {

struct TestBackendOptions {
  std::vector<std::string> targets;
  std::vector<std::string> plugins;
  std::string json;
  std::string cache_dir;
  std::string node_tests;  // ONNX's node tests (tests/onnx/generate_node_tests.py), when given
  // Override the tolerance the backend declares, when given.
  std::optional<double> rtol, atol;
  std::size_t max_variants = 24;
};

// One instance of a pattern: the ops it picks at each alternative, its leaves as parameters
// (wildcards, inputs) or constants.
struct Recipe {
  enum class Kind { kOp, kParam, kConstant } kind = Kind::kParam;
  std::string op;
  std::vector<Recipe> operands;
};

std::string describe(const Recipe& recipe) {
  if (recipe.kind == Recipe::Kind::kParam) return "*";
  if (recipe.kind == Recipe::Kind::kConstant) return "const";
  std::vector<std::string> operands;
  for (const Recipe& operand : recipe.operands) operands.push_back(describe(operand));
  return fmt::format("{}({})", recipe.op, fmt::join(operands, ", "));
}

// Every instance of `pattern`, up to `limit`: each alternative and each op of an op set; an op
// whose operands the pattern leaves open gets as many parameters as it needs (2 for one of
// any number: a concatenation). A predicate on attributes or types is left to the match;
// tuples and dominators are not instantiated (an empty list).
std::vector<Recipe> instances(const Pattern& pattern, std::size_t limit, const OpRegistry& ops) {
  switch (pattern.kind) {
    case PatternKind::Wildcard:
    case PatternKind::Input:
      return {Recipe{}};
    case PatternKind::Constant:
      return {Recipe{.kind = Recipe::Kind::kConstant}};
    case PatternKind::Alt: {
      std::vector<Recipe> all = instances(*pattern.children[0], limit, ops);
      for (Recipe& r : instances(*pattern.children[1], limit, ops))
        if (all.size() < limit) all.push_back(std::move(r));
      return all;
    }
    case PatternKind::AttrPred:
    case PatternKind::TypePred:
      return instances(*pattern.children[0], limit, ops);
    case PatternKind::Op: {
      if (!pattern.operands) {
        std::vector<Recipe> all;
        for (const std::string& op : pattern.ops)
          if (const OpDef* def = ops.find(op); def != nullptr && all.size() < limit)
            all.push_back(
                Recipe{.kind = Recipe::Kind::kOp,
                       .op = op,
                       .operands = std::vector<Recipe>(static_cast<std::size_t>(
                           def->max_inputs == OpDef::kVariadic ? std::max(def->min_inputs, 2)
                                                               : def->min_inputs))});
        return all;
      }
      std::vector<std::vector<Recipe>> combos{{}};
      for (const PatternPtr& operand : *pattern.operands) {
        std::vector<std::vector<Recipe>> next;
        for (const Recipe& r : instances(*operand, limit, ops))
          for (const std::vector<Recipe>& combo : combos)
            if (next.size() < limit) {
              next.push_back(combo);
              next.back().push_back(r);
            }
        combos = std::move(next);
      }
      std::vector<Recipe> all;
      for (const std::string& op : pattern.ops)
        for (const std::vector<Recipe>& combo : combos)
          if (all.size() < limit)
            all.push_back(Recipe{.kind = Recipe::Kind::kOp, .op = op, .operands = combo});
      return all;
    }
    default:
      return {};
  }
}

// The op of the innermost op node: where the data enters.
const std::string& innermost_op(const Recipe& recipe) {
  for (const Recipe& operand : recipe.operands)
    if (operand.kind == Recipe::Kind::kOp) return innermost_op(operand);
  return recipe.op;
}

// What varies from the base model: the data's size, the dtype, the attributes of the
// innermost op, and a broadcast (per-channel) shape of the other ops' extra operands.
struct Variant {
  std::string name;
  DType dtype = DType::f32;
  std::int64_t scale = 1;  // multiplies the spatial (or last) size of the data
  AttrMap attrs;
  std::int64_t groups = 1;
  // The extra operands of the ops around the innermost: per channel, broadcast over the rest
  // (a bias as exporters write it; the default around convolutions), or the full shape (the
  // default elsewhere). The variant flips the default.
  bool flip_operand_shape = false;
};

bool is_convolution(const std::string& op) { return op == "nn.conv2d" || op == "nn.conv1d"; }

std::vector<Variant> variants_of(const std::string& innermost) {
  std::vector<Variant> out{
      {.name = "base"},
      {.name = "larger", .scale = 3},
      {.name = "f16", .dtype = DType::f16},
      {.name = is_convolution(innermost) ? "full-shape operand" : "broadcast operand",
       .flip_operand_shape = true}};
  bool conv2d = innermost == "nn.conv2d";
  if (is_convolution(innermost)) {
    auto pair = [&](std::int64_t v) {
      return conv2d ? std::vector<std::int64_t>{v, v} : std::vector<std::int64_t>{v};
    };
    std::vector<std::int64_t> pad =
        conv2d ? std::vector<std::int64_t>{1, 1, 1, 1} : std::vector<std::int64_t>{1, 1};
    Variant strides{.name = "strides 2"}, padding{.name = "padding 1"},
        dilation{.name = "dilation 2"}, groups{.name = "groups 2", .groups = 2};
    strides.attrs.set("strides", pair(2));
    padding.attrs.set("padding", pad);
    dilation.attrs.set("dilation", pair(2));
    groups.attrs.set("groups", std::int64_t{2});
    out.insert(out.end(), {strides, padding, dilation, groups});
  }
  return out;
}

// The types of an op's leaf operands when the op is the innermost (no operand computed).
std::vector<Shape> leaf_shapes(const std::string& op, std::size_t count, const Variant& v) {
  std::int64_t s = 6 * v.scale;
  if (op == "nn.conv2d") return {{1, 4, s, s}, {4, 4 / v.groups, 3, 3}, {4}};
  if (op == "nn.conv1d") return {{1, 4, 4 * s}, {4, 4 / v.groups, 3}, {4}};
  if (op == "nn.dense") return {{2, 8 * v.scale}, {4, 8 * v.scale}, {4}};
  if (op == "nn.matmul") return {{2, 8 * v.scale}, {8 * v.scale, 4}};
  return std::vector<Shape>(count, Shape{2, 3, 4 * v.scale});
}

class ModelMaker {
 public:
  ModelMaker(Function& main, const Variant& variant, bool per_channel, std::uint64_t seed)
      : builder_(main),
        variant_(variant),
        per_channel_(per_channel != variant.flip_operand_shape),
        random_(seed) {}

  Expected<Value*> make(const Recipe& recipe) {
    if (recipe.kind != Recipe::Kind::kOp) return make_error("a pattern that is a leaf");
    // The computed operand first: the leaves take their shapes from it.
    const Value* computed = nullptr;
    std::vector<Value*> operands(recipe.operands.size());
    for (std::size_t i = 0; i < recipe.operands.size(); ++i)
      if (recipe.operands[i].kind == Recipe::Kind::kOp) {
        UMA_TRY_ASSIGN(operands[i], make(recipe.operands[i]));
        computed = operands[i];
      }
    std::vector<Shape> shapes = leaf_shapes(recipe.op, recipe.operands.size(), variant_);
    AttrMap attrs;
    if (computed == nullptr) attrs = variant_.attrs;
    if (recipe.op == "clip") {
      attrs.set("a_min", 0.0);
      attrs.set("a_max", 6.0);
    }
    for (std::size_t i = 0; i < recipe.operands.size(); ++i) {
      if (operands[i] != nullptr) continue;
      Shape shape = i < shapes.size() ? shapes[i] : shapes.back();
      // An extra operand of an elementwise op takes the shape of the first (computed or not).
      bool elementwise =
          !is_convolution(recipe.op) && recipe.op != "nn.dense" && recipe.op != "nn.matmul";
      if (computed != nullptr || (elementwise && i > 0)) {
        shape = computed != nullptr ? computed->tensor_type().shape : shapes[0];
        // Per channel (dimension 1), broadcast over the rest: a bias as exporters write it.
        if (per_channel_ && shape.size() >= 2) {
          Shape channel(shape.size() - 1, 1);
          channel[0] = shape[1];
          shape = channel;
        }
      }
      UMA_TRY_ASSIGN(operands[i], leaf(recipe.operands[i].kind, TensorType{variant_.dtype, shape}));
    }
    UMA_TRY_ASSIGN(Node * node, builder_.try_create(recipe.op, operands, attrs));
    nodes_.push_back(node);
    return node->result();
  }

  // The nodes made, constants among them (as a match counts them).
  const std::vector<Node*>& nodes() const { return nodes_; }

 private:
  Expected<Value*> leaf(Recipe::Kind kind, const TensorType& type) {
    if (kind == Recipe::Kind::kParam) return builder_.function().add_param(Type(type));
    auto tensor = std::make_shared<Tensor>(type);
    // Multiples of 1/64 in [-1.5, 1.5]: exact in every float dtype.
    for (std::int64_t i = 0; i < tensor->num_elements(); ++i)
      tensor->set(i, (static_cast<double>(random_() % 193) - 96.0) / 64.0);
    Value* constant = builder_.constant(std::move(tensor));
    nodes_.push_back(constant->producer());
    return constant;
  }

  Builder builder_;
  Variant variant_;
  bool per_channel_;
  std::mt19937_64 random_;
  std::vector<Node*> nodes_;
};

// One model's result.
struct Case {
  std::string pattern, model, variant;
  std::string expected;  // "claimed", "rejected" (the predicate's reason in detail)
  std::string detail;
  std::string placed;  // where its nodes went: the backend, "host", or "mixed"
  double max_error = 0;
  bool ok = false;
  std::string failure;
};

std::string placement(const PartitionReport& report, const std::string& target) {
  std::size_t on_target = 0;
  for (const NodeRecord& record : report.records()) on_target += record.target == target;
  if (on_target == report.records().size()) return target;
  return on_target == 0 ? "host" : "mixed";
}

// Builds `module` for the target and runs it on `inputs`, noting in `result` where its nodes
// went; the outputs, or nullopt with result.failure saying what failed.
std::optional<std::vector<TensorPtr>> build_and_run(Module& module, const Target& target,
                                                    const std::string& target_text,
                                                    const std::vector<TensorPtr>& inputs,
                                                    const TestBackendOptions& options,
                                                    Case& result) {
  PartitionReport report;
  build::BuildOptions build_options{.report = &report};
  build_options.compiler.cache_dir = options.cache_dir;
  Expected<build::HostBuild> built = build::build(module, {target_text}, build_options);
  if (Status raised = python_callback_failure(); !raised) built = raised.error();
  if (!built) {
    result.failure = "build failed: " + built.error().message();
    return std::nullopt;
  }
  result.placed = placement(report, target.name());
  Expected<std::unique_ptr<runtime::Executor>> executor = runtime::Executor::create(built->program);
  Expected<std::vector<TensorPtr>> outputs =
      executor ? (*executor)->run(inputs) : Expected<std::vector<TensorPtr>>(executor.error());
  if (!outputs) {
    result.failure = "run failed: " + outputs.error().message();
    return std::nullopt;
  }
  return std::move(*outputs);
}

// Builds the model of one recipe and variant, runs it, and judges it; nullopt when the
// variant makes no valid model of the ops (a dtype an op refuses, say), or the pattern does
// not match the model (an attribute predicate of the pattern).
Expected<std::optional<Case>> run_case(Context& context, const BackendPattern& pattern,
                                       const Target& target, const std::string& target_text,
                                       const Recipe& recipe, const Variant& variant,
                                       const TestBackendOptions& options) {
  Module module(context, "kit");
  UMA_TRY_ASSIGN(Function * main, module.add_function("main"));
  ModelMaker maker(*main, variant, is_convolution(innermost_op(recipe)), 1);
  Expected<Value*> root = maker.make(recipe);
  if (!root) return std::optional<Case>();
  main->set_outputs({*root});
  Case result{.pattern = fmt::format("{}.{}", target.name(), pattern.name),
              .model = describe(recipe),
              .variant = variant.name};
  std::optional<Match> match = quiet_match(*pattern.pattern, *root);
  if (!match || match->nodes.size() != maker.nodes().size()) return std::optional<Case>();
  Status accepted = pattern.predicate ? pattern.predicate(*match, target) : Status::success();
  result.expected = accepted ? "claimed" : "rejected";
  if (!accepted) result.detail = accepted.error().message();

  std::vector<TensorPtr> inputs = random_inputs(*main, 7);
  Expected<std::vector<TensorPtr>> reference = interpret(module, inputs);
  if (!reference) return std::optional<Case>();  // the interpreter lacks the dtype
  std::optional<std::vector<TensorPtr>> outputs =
      build_and_run(module, target, target_text, inputs, options, result);
  if (!outputs) return std::optional<Case>(result);
  Tolerance tolerance = context.backends().find(target.name())->spec().tolerance(variant.dtype);
  TensorComparison comparison =
      compare_scaled(*(*outputs)[0], *(*reference)[0], options.rtol.value_or(tolerance.rtol),
                     options.atol.value_or(tolerance.atol));
  result.max_error = comparison.max_abs_error;
  // A refused match may leave a smaller one the backend takes (an alternative of the pattern):
  // only what the predicate accepts must run on the backend whole.
  if (accepted && result.placed != target.name())
    result.failure = fmt::format("expected on {}, ran on {}", target.name(), result.placed);
  else if (!comparison.ok())
    result.failure = fmt::format(
        "{} of {} element(s) differ from the interpreter's; first at index {}: {:.9g}, "
        "expected {:.9g}",
        comparison.mismatches, (*reference)[0]->num_elements(), comparison.first_mismatch,
        (*outputs)[0]->get(comparison.first_mismatch),
        (*reference)[0]->get(comparison.first_mismatch));
  result.ok = result.failure.empty();
  return std::optional<Case>(result);
}

nlohmann::json to_json(const Case& c) {
  return {{"pattern", c.pattern},         {"model", c.model},
          {"variant", c.variant},         {"expected", c.expected},
          {"predicate", c.detail},        {"placed", c.placed},
          {"max_abs_error", c.max_error}, {"ok", c.ok},
          {"failure", c.failure}};
}

Case from_json(const nlohmann::json& j) {
  return Case{.pattern = j["pattern"],
              .model = j["model"],
              .variant = j["variant"],
              .expected = j["expected"],
              .detail = j["predicate"],
              .placed = j["placed"],
              .max_error = j["max_abs_error"],
              .ok = j["ok"],
              .failure = j["failure"]};
}

// run_case in a child process: a backend's kernel that crashes (or a check of the compiler
// that aborts) fails its case, not the kit. The child sends its case back as JSON.
Expected<std::optional<Case>> run_isolated(
    const std::function<Expected<std::optional<Case>>()>& run, const Case& identity) {
  int fds[2];
  if (pipe(fds) != 0) return make_error("cannot make a pipe: {}", std::strerror(errno));
  std::cout << std::flush;
  pid_t child = fork();
  if (child < 0) return make_error("cannot fork: {}", std::strerror(errno));
  if (child == 0) {
    close(fds[0]);
    Expected<std::optional<Case>> result = run();
    nlohmann::json message = !result   ? nlohmann::json{{"error", result.error().message()}}
                             : *result ? nlohmann::json{{"case", to_json(**result)}}
                                       : nlohmann::json::object();
    std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    for (std::size_t done = 0; done < text.size();) {
      ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    std::cout << std::flush;
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    Case crashed = identity;
    crashed.failure = WIFSIGNALED(status)
                          ? fmt::format("crashed: {}", strsignal(WTERMSIG(status)))
                          : fmt::format("crashed: exit code {}", WEXITSTATUS(status));
    return std::optional<Case>(crashed);
  }
  nlohmann::json message = nlohmann::json::parse(text);
  if (message.contains("error")) return make_error("{}", message["error"].get<std::string>());
  if (!message.contains("case")) return std::optional<Case>();
  return std::optional<Case>(from_json(message["case"]));
}

// ONNX's node test in `dir` (model.onnx, test_data_set_0/input_<i>.pb) when the backend
// claims one of its nodes: imported with the inputs after the first bound as constants (as
// an exporter writes weights, which patterns want constant; all inputs when the model does
// not import so), built for the backend and compared with the reference interpreter on the
// test's inputs. nullopt when the backend claims none of its nodes, or uma cannot import or
// interpret it (the onnx-conformance suite's business).
Expected<std::optional<Case>> run_node_test(Context& context, const Target& target,
                                            const std::string& target_text,
                                            const std::filesystem::path& dir,
                                            const TestBackendOptions& options) {
  std::string model_path = (dir / "model.onnx").string();
  Expected<std::unique_ptr<Module>> plain = import_onnx_file(context, model_path);
  if (!plain) return std::optional<Case>();
  const Function* plain_main = (*plain)->find_function("main");
  std::vector<TensorPtr> inputs;
  for (std::size_t i = 0; plain_main != nullptr && i < plain_main->num_params(); ++i) {
    Expected<std::shared_ptr<Tensor>> input =
        read_tensor_file((dir / "test_data_set_0" / fmt::format("input_{}.pb", i)).string());
    if (!input || !(Type((*input)->type()) == plain_main->param(i)->type()))
      return std::optional<Case>();
    inputs.push_back(std::move(*input));
  }
  OnnxImportOptions frozen;
  for (std::size_t i = 1; i < inputs.size(); ++i)
    frozen.constant_inputs.emplace(plain_main->param(i)->name(), inputs[i]);
  if (!import_onnx_file(context, model_path, frozen))
    frozen.constant_inputs.clear();
  else
    inputs.resize(std::min<std::size_t>(inputs.size(), 1));
  // Partitioning alone first, on a module of its own: most tests are of ops the backend does
  // not claim, and need no C compiled. A model imported to no node (folded to constants, an
  // identity) claims nothing either.
  UMA_TRY_ASSIGN(std::unique_ptr<Module> probe, import_onnx_file(context, model_path, frozen));
  UMA_TRY_ASSIGN(build::BuildTargets targets, build::parse_targets(context, {target_text}));
  PartitionReport claims;
  if (!build::partition_for_targets(*probe, targets, {.report = &claims}) ||
      claims.records().empty() || placement(claims, target.name()) == "host")
    return std::optional<Case>();
  UMA_TRY_ASSIGN(std::unique_ptr<Module> module, import_onnx_file(context, model_path, frozen));
  Expected<std::vector<TensorPtr>> reference = interpret(*module, inputs);
  if (!reference) return std::optional<Case>();
  Case result{.pattern = fmt::format("{}.onnx", target.name()),
              .model = dir.filename().string(),
              .variant = "node test",
              .expected = "claimed"};
  std::optional<std::vector<TensorPtr>> outputs =
      build_and_run(*module, target, target_text, inputs, options, result);
  if (!outputs) return std::optional<Case>(result);
  for (std::size_t i = 0; i < outputs->size() && result.failure.empty(); ++i) {
    const Tensor& output = *(*outputs)[i];
    const Tensor& expected = *(*reference)[i];
    Tolerance tolerance =
        context.backends().find(target.name())->spec().tolerance(expected.type().dtype);
    TensorComparison comparison =
        compare_scaled(output, expected, options.rtol.value_or(tolerance.rtol),
                       options.atol.value_or(tolerance.atol));
    result.max_error = std::max(result.max_error, comparison.max_abs_error);
    if (!comparison.same_type)
      result.failure =
          fmt::format("output {} is {}, the interpreter's {}", i, to_string(Type(output.type())),
                      to_string(Type(expected.type())));
    else if (!comparison.ok())
      result.failure = fmt::format(
          "output {}: {} of {} element(s) differ from the interpreter's; first at index {}: "
          "{:.9g}, expected {:.9g}",
          i, comparison.mismatches, expected.num_elements(), comparison.first_mismatch,
          output.get(comparison.first_mismatch), expected.get(comparison.first_mismatch));
  }
  result.ok = result.failure.empty();
  return std::optional<Case>(result);
}

void print_case(const Case& c) {
  // A failure says what went wrong; a refused model, the predicate's reason.
  std::string note = !c.ok ? ": " + c.failure : c.detail.empty() ? "" : " (" + c.detail + ")";
  std::cout << fmt::format("  {:4} {:8} {:<18} {}{}\n", c.ok ? "ok" : "FAIL", c.expected, c.variant,
                           c.model, note)
            << std::flush;
}

Expected<int> test_backend(const TestBackendOptions& options) {
  Context context;
  UMA_TRY(prepare_context(context, {}));
  std::vector<std::string> builtin = context.backends().names();
  for (const std::string& plugin : options.plugins) UMA_TRY(load_any_plugin(context, plugin));
  std::vector<std::string> targets = options.targets;
  if (targets.empty())
    for (const std::string& name : context.backends().names())
      if (std::find(builtin.begin(), builtin.end(), name) == builtin.end()) targets.push_back(name);
  if (targets.empty()) return make_error("no backend to test: give --target, or --plugin");

  std::vector<Case> cases;
  // Cleared before each line of the scorecard: both may go to the terminal.
  Progress progress("test-backend: model");
  std::size_t attempted = 0;
  for (const std::string& text : targets) {
    UMA_TRY_ASSIGN(build::BuildTargets parsed, build::parse_targets(context, {text}));
    if (parsed.backends.empty())
      return make_error("target '{}': the host's target has no patterns to test", text);
    const Target& target = parsed.backends[0];
    std::shared_ptr<const Backend> backend = context.backends().find(target.name());
    for (const BackendPattern& pattern : backend->spec().patterns) {
      std::size_t before = cases.size();
      std::vector<Recipe> recipes = instances(*pattern.pattern, 8, context.ops());
      auto run_one = [&](const Recipe& recipe, const Variant& variant) -> Expected<bool> {
        if (cases.size() - before >= options.max_variants) return false;
        Case identity{.pattern = fmt::format("{}.{}", target.name(), pattern.name),
                      .model = describe(recipe),
                      .variant = variant.name};
        progress.update(++attempted, 0,
                        fmt::format("{} {} {}", identity.pattern, variant.name, identity.model));
        UMA_TRY_ASSIGN(
            std::optional<Case> result,
            run_isolated(
                [&] { return run_case(context, pattern, target, text, recipe, variant, options); },
                identity));
        if (!result) return false;
        // Each line as soon as its model ran: a kit run takes a compile per model.
        progress.clear();
        if (cases.size() == before) std::cout << fmt::format("pattern {}\n", result->pattern);
        print_case(*result);
        bool claimed = result->expected == "claimed";
        cases.push_back(std::move(*result));
        return claimed;
      };
      // The base model of each instance, then the other variants of the first one the
      // predicate accepts (else of the first): around what the backend takes, and across
      // its predicate's edges.
      std::optional<std::size_t> varied;
      for (std::size_t r = 0; r < recipes.size(); ++r) {
        UMA_TRY_ASSIGN(bool claimed, run_one(recipes[r], variants_of(innermost_op(recipes[r]))[0]));
        if (claimed && !varied) varied = r;
      }
      if (!recipes.empty()) {
        const Recipe& recipe = recipes[varied.value_or(0)];
        std::vector<Variant> variants = variants_of(innermost_op(recipe));
        for (std::size_t v = 1; v < variants.size(); ++v) {
          UMA_TRY_ASSIGN(bool claimed, run_one(recipe, variants[v]));
          (void)claimed;
        }
      }
      if (cases.size() == before) {
        cases.push_back(Case{.pattern = fmt::format("{}.{}", target.name(), pattern.name),
                             .model = pattern.pattern->to_string(),
                             .failure = "the kit made no model this pattern matches"});
        progress.clear();
        std::cout << fmt::format("pattern {}\n", cases.back().pattern);
        print_case(cases.back());
      }
    }
  }

  if (!options.node_tests.empty()) {
    std::vector<std::filesystem::path> dirs;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(options.node_tests, ec))
      if (std::filesystem::exists(entry.path() / "model.onnx")) dirs.push_back(entry.path());
    if (ec) return make_error("--node-tests {}: {}", options.node_tests, ec.message());
    std::sort(dirs.begin(), dirs.end());
    for (const std::string& text : targets) {
      UMA_TRY_ASSIGN(build::BuildTargets parsed, build::parse_targets(context, {text}));
      const Target& target = parsed.backends[0];
      std::size_t before = cases.size();
      for (std::size_t d = 0; d < dirs.size(); ++d) {
        Case identity{.pattern = fmt::format("{}.onnx", target.name()),
                      .model = dirs[d].filename().string(),
                      .variant = "node test",
                      .expected = "claimed"};
        progress.update(d + 1, dirs.size(), fmt::format("node test {}", identity.model));
        UMA_TRY_ASSIGN(
            std::optional<Case> result,
            run_isolated([&] { return run_node_test(context, target, text, dirs[d], options); },
                         identity));
        if (!result) continue;
        progress.clear();
        if (cases.size() == before)
          std::cout << fmt::format("ONNX node tests {} claims\n", target.name());
        print_case(*result);
        cases.push_back(std::move(*result));
      }
      progress.clear();
      std::size_t node_failed = 0;
      for (std::size_t c = before; c < cases.size(); ++c) node_failed += !cases[c].ok;
      std::cout << fmt::format("node tests: {} of {} claimed by {}; {} passed, {} failed\n",
                               cases.size() - before, dirs.size(), target.name(),
                               cases.size() - before - node_failed, node_failed);
    }
  }

  progress.clear();
  std::size_t failed = 0, claimed = 0, node_tests = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const Case& c : cases) {
    failed += !c.ok;
    claimed += c.expected == "claimed";
    node_tests += c.variant == "node test";
    rows.push_back(to_json(c));
  }
  std::string of_which =
      options.node_tests.empty() ? "" : fmt::format(" ({} ONNX node tests)", node_tests);
  std::cout << fmt::format(
      "scorecard: {} model(s){}, {} claimed and {} rejected by the predicates; {} passed, {} "
      "failed\n",
      cases.size(), of_which, claimed, cases.size() - claimed, cases.size() - failed, failed);
  if (!options.json.empty()) {
    nlohmann::json card = {{"targets", targets},
                           {"cases", rows},
                           {"node_tests", node_tests},
                           {"passed", cases.size() - failed},
                           {"failed", failed}};
    std::ofstream out(options.json);
    out << card.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) return make_error("{}: cannot write the scorecard", options.json);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

void add_test_backend_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<TestBackendOptions>();
  CLI::App* cmd = app.add_subcommand(
      "test-backend",
      "Check a backend: small models of each pattern it claims, built for it and compared with "
      "the reference interpreter");
  add_target_option(*cmd, options->targets,
                    "A backend's target to test (\"vanilla --dimension=4\"); default: the "
                    "backends the plugins register");
  add_plugin_option(*cmd, options->plugins);
  cmd->add_option("--json", options->json, "Write the scorecard to this file as JSON");
  cmd->add_option("--cache-dir", options->cache_dir,
                  "Folder of compiled objects (default: $XDG_CACHE_HOME/uma)");
  cmd->add_option("--rtol", options->rtol,
                  "Relative tolerance (as uma run --check's); default: the backend's for the "
                  "dtype (Backend::set_tolerance)");
  cmd->add_option("--atol", options->atol,
                  "Absolute tolerance, times each output's max |value|; default: the backend's");
  cmd->add_option("--node-tests", options->node_tests,
                  "Also run ONNX's node tests in this folder (one folder per test, as "
                  "tests/onnx/generate_node_tests.py writes them) whose nodes the backend claims");
  cmd->add_option("--max-models", options->max_variants, "Models per pattern, at most")
      ->capture_default_str();
  add_examples(*cmd, {"uma test-backend --target \"vanilla --dimension=4\" --json card.json",
                      "uma test-backend --plugin build/libmy_npu.so"});
  cmd->callback([options, &exit_code] { exit_code = exit_code_of(test_backend(*options)); });
}

}  // namespace uma::tool
