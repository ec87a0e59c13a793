// Runs ONNX's node conformance tests in-process: every test whose ops all have converters is
// imported, run by the reference interpreter on each of its data sets, and compared with
// the expected outputs with ONNX's own tolerances (rtol 1e-3, atol 1e-7, as
// onnx.backend.test's loader sets for node tests).
//
// With --compiled, every data set the interpreter passes is also built for the host
// (uma/uma/build.h: generated C, compiled and loaded) and run by the executor, and must
// pass against the same expected outputs; with --target (repeated: earlier first), built
// for those in-tree backends and the host, and with --constant-weights, with the inputs
// after the first bound as constants (weights, which backends' patterns want constant).
//
// A failure listed in known_failures.txt (one line per test: name, then the reason) is
// expected; a listed test that passes is "unexpectedly passing" and fails the run too, so
// the list stays honest. Compiled failures of tests the interpreter passes are listed the
// same way in the file given to --known-compiled-failures. Exit status 0 when every
// outcome is the expected one.
//
// Tests listed in the file given to --excluded (what uma does not claim to run: string,
// sequence and optional types, training ops, random generators) are left out of the count;
// every other test is counted, also one whose ops are not all supported (it fails, and is
// listed as NOT SUPPORTED). The counted tests are reported by op family (that of the op the
// test is named after), and --min-pass-percent fails the run when fewer of them pass
// (interpreted, and compiled with --compiled).
//
// Usage: onnx_conformance <node-tests-dir> <known_failures.txt> [--write-known-failures FILE]
//        [--filter SUBSTRING]... [--verbose] [--excluded FILE [--min-pass-percent P]]
//        [--compiled --cache-dir DIR --known-compiled-failures FILE
//        [--write-known-compiled-failures FILE] [--target T]... [--constant-weights]]
// A test runs when its name holds one of the --filter substrings (any test without one).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "backends/register.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/graph/verifier.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/interpreter.h"
#include "uma/support/file.h"
#include "uma/uma/build.h"

namespace {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

// The test being run, for the crash handler: a crash is a bug, and it should say where.
char current_test[256] = "";

void on_crash(int signal) {
  const char prefix[] = "\nonnx_conformance: crashed while running ";
  (void)!write(STDERR_FILENO, prefix, sizeof prefix - 1);
  (void)!write(STDERR_FILENO, current_test, std::strlen(current_test));
  (void)!write(STDERR_FILENO, "\n", 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// The model's ops in node order ("domain.Op" outside the default domain), and those of them
// without a converter.
struct ModelOps {
  std::vector<std::string> ops, unsupported;
};

ModelOps model_ops(const fs::path& model_path, const std::set<std::string>& supported) {
  ModelOps result;
  auto bytes = uma::read_file(model_path.string());
  onnx::ModelProto model;
  if (!bytes || !model.ParseFromString(*bytes)) {
    result.unsupported.push_back("(model.onnx does not parse)");
    return result;
  }
  for (const onnx::NodeProto& node : model.graph().node()) {
    bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    std::string op = default_domain ? node.op_type() : node.domain() + "." + node.op_type();
    if (std::find(result.ops.begin(), result.ops.end(), op) != result.ops.end()) continue;
    result.ops.push_back(op);
    if (!default_domain || supported.count(op) == 0) result.unsupported.push_back(op);
  }
  return result;
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The op a test is named after: the longest op type that, lowercased, begins the test's name
// without "test_" and underscores ("test_reduce_log_sum_exp_do_not_keepdims" is
// ReduceLogSumExp, not ReduceLogSum); else the model's first op. `model` is the ops of the
// test, or of the test it expands for an "_expanded" one (whose first op is the one expanded).
std::string tested_op(const std::string& test_name, const ModelOps& model,
                      const std::vector<std::string>& supported) {
  std::string key = lowercase(test_name.substr(5));
  std::erase(key, '_');
  std::string best;
  auto consider = [&](const std::string& op) {
    if (op.size() > best.size() && key.starts_with(lowercase(op))) best = op;
  };
  for (const std::string& op : supported) consider(op);
  for (const std::string& op : model.ops) consider(op);
  if (best.empty() && !model.ops.empty()) best = model.ops.front();
  return best;
}

std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path file = dir / fmt::format("{}_{}.pb", prefix, i);
    if (!fs::exists(file)) return files;
    files.push_back(file);
  }
}

// What the model declares: the names of the graph's inputs that are not initializers, in
// order (what input_N.pb feed), and the element types of those inputs and of the outputs.
struct Signature {
  std::vector<std::string> input_names;
  std::vector<int> input_types, output_types;
};

Signature model_signature(const fs::path& model_path) {
  Signature signature;
  auto bytes = uma::read_file(model_path.string());
  onnx::ModelProto model;
  if (!bytes || !model.ParseFromString(*bytes)) return signature;
  std::set<std::string> initializers;
  for (const onnx::TensorProto& init : model.graph().initializer())
    initializers.insert(init.name());
  for (const onnx::ValueInfoProto& input : model.graph().input()) {
    if (initializers.count(input.name()) != 0) continue;
    signature.input_names.push_back(input.name());
    signature.input_types.push_back(input.type().tensor_type().elem_type());
  }
  for (const onnx::ValueInfoProto& output : model.graph().output())
    signature.output_types.push_back(output.type().tensor_type().elem_type());
  return signature;
}

// Element i of `types`, or UNDEFINED.
int declared(const std::vector<int>& types, std::size_t i) {
  return i < types.size() ? types[i] : onnx::TensorProto::UNDEFINED;
}

// A test data file for a value the model declares of `declared_type`. ONNX 1.12's generator
// writes bfloat16 data as UINT16 tensors of the same bit patterns (numpy has no bfloat16), so
// UINT16 data of a BFLOAT16 value is read as BFLOAT16.
uma::Expected<std::shared_ptr<uma::Tensor>> read_test_tensor(const fs::path& path,
                                                             int declared_type) {
  auto bytes = uma::read_file(path.string());
  if (!bytes) return bytes.error();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(*bytes))
    return uma::make_error("{}: not a TensorProto", path.string());
  if (proto.data_type() == onnx::TensorProto::UINT16 &&
      declared_type == onnx::TensorProto::BFLOAT16)
    proto.set_data_type(onnx::TensorProto::BFLOAT16);
  return uma::tensor_from_onnx(proto, path.string(), "");
}

bool needs_constant(const uma::Error& error) {
  return error.message().find("must be a constant") != std::string::npos;
}

// Compares outputs with the data set's expected ones; an empty string when they match.
std::string compare_outputs(const std::vector<uma::TensorPtr>& outputs, const fs::path& data_set,
                            const Signature& signature) {
  std::vector<fs::path> expected_files = numbered_files(data_set, "output");
  if (expected_files.size() != outputs.size())
    return fmt::format("{} output(s), but {} expected", outputs.size(), expected_files.size());
  for (std::size_t i = 0; i < expected_files.size(); ++i) {
    auto expected = read_test_tensor(expected_files[i], declared(signature.output_types, i));
    if (!expected) return expected.error().message();
    const uma::Tensor& actual = *outputs[i];
    uma::TensorComparison result = uma::compare_tensors(actual, **expected, kRtol, kAtol);
    if (!result.same_type)
      return fmt::format("output {} is {}, expected {}", i,
                         uma::to_string(uma::Type(actual.type())),
                         uma::to_string(uma::Type((*expected)->type())));
    if (!result.ok())
      return fmt::format(
          "output {}: {} of {} element(s) differ (max abs error {:.3g}, max rel "
          "error {:.3g}; first at {}: {:.7g}, expected {:.7g})",
          i, result.mismatches, actual.num_elements(), result.max_abs_error, result.max_rel_error,
          result.first_mismatch, actual.get(result.first_mismatch),
          (*expected)->get(result.first_mismatch));
  }
  return "";
}

// How compiled runs are built; null when the run is the interpreter's only.
struct CompiledMode {
  uma::build::BuildOptions options;
  std::vector<std::string> targets;  // the backends', earlier first; none: the host alone
  // Inputs after the first are bound as constants from the start, as an exporter writes
  // weights: what backends whose patterns want constant weights take.
  bool constant_weights = false;
};

// Builds the module for the host and runs it; an empty string when its outputs pass.
std::string run_compiled(uma::Module& module, const std::vector<uma::TensorPtr>& arguments,
                         const fs::path& data_set, const Signature& signature,
                         const CompiledMode& mode) {
  auto built = uma::build::build(module, mode.targets, mode.options);
  if (!built) return built.error().message();
  uma::runtime::Executor executor(built->program);
  auto outputs = executor.run(arguments);
  if (!outputs) return outputs.error().message();
  return compare_outputs(*outputs, data_set, signature);
}

// Imports the model with inputs `frozen` bound to their test values, runs it on the others
// and compares the outputs. An empty string when it passes, else why not. In compiled mode,
// `compiled_failure` gets the same for the compiled run when the interpreter's passes.
std::string run_data_set(const fs::path& dir, const fs::path& data_set, const Signature& signature,
                         const std::vector<uma::TensorPtr>& inputs, std::size_t first_frozen,
                         bool& retry, const CompiledMode* compiled, std::string& compiled_failure) {
  uma::Context context;
  if (compiled != nullptr && !compiled->targets.empty())
    if (uma::Status registered = uma::backends::register_builtin_backends(context); !registered)
      return registered.error().message();
  uma::OnnxImportOptions options;
  std::vector<uma::TensorPtr> arguments;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i >= first_frozen && i < signature.input_names.size())
      options.constant_inputs.emplace(signature.input_names[i], inputs[i]);
    else
      arguments.push_back(inputs[i]);
  }
  auto module = uma::import_onnx_file(context, (dir / "model.onnx").string(), options);
  if (!module) {
    retry = needs_constant(module.error());
    return module.error().message();
  }
  if (uma::Status verified = uma::verify(**module); !verified)
    return "the imported module does not verify: " + verified.error().message();
  auto outputs = uma::interpret(**module, arguments);
  if (!outputs) return outputs.error().message();
  std::string failure = compare_outputs(*outputs, data_set, signature);
  if (failure.empty() && compiled != nullptr)
    compiled_failure = run_compiled(**module, arguments, data_set, signature, *compiled);
  return failure;
}

// Runs one test on each of its data sets; an empty string when it passes, else why not.
//
// The node tests feed everything through graph inputs, also what uma's converters need as
// constants (a Reshape's shape, a Slice's starts). When the import says so, the inputs
// after the first, then all inputs, are bound to their test values as constants: the
// model is then what an exporter would write, with those values as initializers.
std::string run_test(const fs::path& dir, bool& frozen, const CompiledMode* compiled,
                     std::string& compiled_failure) {
  Signature signature = model_signature(dir / "model.onnx");
  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_"))
      data_sets.push_back(entry.path());
  std::sort(data_sets.begin(), data_sets.end());
  for (const fs::path& data_set : data_sets) {
    std::vector<uma::TensorPtr> inputs;
    std::vector<fs::path> input_files = numbered_files(data_set, "input");
    for (std::size_t i = 0; i < input_files.size(); ++i) {
      auto tensor = read_test_tensor(input_files[i], declared(signature.input_types, i));
      if (!tensor) {
        // When the model itself is refused (a sequence input, say), that is the reason.
        uma::Context context;
        auto module = uma::import_onnx_file(context, (dir / "model.onnx").string());
        return module ? tensor.error().message() : module.error().message();
      }
      inputs.push_back(std::move(*tensor));
    }
    std::string failure, compiled_data_set_failure;
    std::size_t unfrozen =
        compiled != nullptr && compiled->constant_weights ? std::size_t{1} : inputs.size();
    for (std::size_t first_frozen : {unfrozen, std::size_t{1}, std::size_t{0}}) {
      bool retry = false;
      failure = run_data_set(dir, data_set, signature, inputs, first_frozen, retry, compiled,
                             compiled_data_set_failure);
      if (first_frozen < inputs.size()) frozen = true;
      if (!retry) break;
    }
    if (!failure.empty()) return failure;
    if (compiled_failure.empty()) compiled_failure = compiled_data_set_failure;
  }
  return "";
}

// "name reason..." per line; '#' starts a comment line.
std::map<std::string, std::string> read_known_failures(const std::string& path) {
  std::map<std::string, std::string> known;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t space = line.find_first_of(" \t");
    std::string name = line.substr(0, space);
    std::string reason =
        space == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", space));
    known.emplace(name, reason);
  }
  return known;
}

// The message on one line, without the test's folder (so it reads the same wherever the
// tests were generated).
std::string one_line(std::string text, const fs::path& dir, std::size_t limit = 300) {
  std::string prefix = dir.string() + "/";
  for (std::size_t at; (at = text.find(prefix)) != std::string::npos;)
    text.erase(at, prefix.size());
  for (char& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

// The outcomes of one kind of run (interpreted or compiled) against its list of known
// failures: what is unexpected (a failure not listed, a listed test that passes, a listed
// test not run) is printed and counted as a problem.
class Outcomes {
 public:
  Outcomes(std::string list_name, std::string label, std::map<std::string, std::string> known)
      : list_name_(std::move(list_name)), label_(std::move(label)), known_(std::move(known)) {}

  void record(const std::string& name, const std::string& failure, bool verbose) {
    ran_.insert(name);
    bool is_known = known_.count(name) != 0;
    if (failure.empty()) {
      ++passed;
      if (is_known) {
        std::cout << "UNEXPECTEDLY PASSING " << label_ << name << " (remove it from " << list_name_
                  << ")\n";
        ++problems;
      } else if (verbose) {
        std::cout << "PASS " << label_ << name << "\n";
      }
      return;
    }
    failures_.emplace(name, failure);
    if (is_known) {
      ++known_failed;
      if (verbose) std::cout << "KNOWN FAILURE " << label_ << name << ": " << failure << "\n";
    } else {
      std::cout << "FAIL " << label_ << name << ": " << failure << "\n";
      ++problems;
    }
  }

  // Listed tests that were not run (only meaningful when every test ran).
  void check_stale() {
    for (const auto& [name, reason] : known_) {
      if (ran_.count(name) != 0) continue;
      std::cout << "STALE " << label_ << name << ": listed in " << list_name_
                << " but not run (no such test, not all of its ops are supported, or it fails "
                   "interpreted)\n";
      ++problems;
    }
  }

  void write(const std::string& path, const std::string& header) const {
    std::ofstream out(path);
    out << header;
    for (const auto& [name, reason] : failures_) {
      auto known = known_.find(name);
      out << name << " "
          << (known != known_.end() && !known->second.empty() ? known->second : reason) << "\n";
    }
  }

  int passed = 0, known_failed = 0, problems = 0;

 private:
  std::string list_name_, label_;
  std::map<std::string, std::string> known_;
  std::set<std::string> ran_;
  std::map<std::string, std::string> failures_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: onnx_conformance <node-tests-dir> <known_failures.txt> "
                 "[--write-known-failures FILE] [--filter SUBSTRING]... [--verbose] [--excluded "
                 "FILE [--min-pass-percent P]] [--compiled "
                 "--cache-dir DIR --known-compiled-failures FILE "
                 "[--write-known-compiled-failures FILE] [--target T]... [--constant-weights]]\n";
    return 2;
  }
  fs::path root = argv[1];
  std::string known_path = argv[2];
  std::string write_path, known_compiled_path, write_compiled_path, cache_dir, excluded_path;
  std::vector<std::string> filters, targets;
  bool verbose = false, compiled = false, constant_weights = false;
  double min_pass_percent = 0;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--write-known-failures" && i + 1 < argc)
      write_path = argv[++i];
    else if (arg == "--filter" && i + 1 < argc)
      filters.push_back(argv[++i]);
    else if (arg == "--target" && i + 1 < argc)
      targets.push_back(argv[++i]);
    else if (arg == "--constant-weights")
      constant_weights = true;
    else if (arg == "--excluded" && i + 1 < argc)
      excluded_path = argv[++i];
    else if (arg == "--min-pass-percent" && i + 1 < argc)
      min_pass_percent = std::atof(argv[++i]);
    else if (arg == "--verbose")
      verbose = true;
    else if (arg == "--compiled")
      compiled = true;
    else if (arg == "--cache-dir" && i + 1 < argc)
      cache_dir = argv[++i];
    else if (arg == "--known-compiled-failures" && i + 1 < argc)
      known_compiled_path = argv[++i];
    else if (arg == "--write-known-compiled-failures" && i + 1 < argc)
      write_compiled_path = argv[++i];
    else {
      std::cerr << "onnx_conformance: unknown argument " << arg << "\n";
      return 2;
    }
  }
  if (compiled && known_compiled_path.empty()) {
    std::cerr << "onnx_conformance: --compiled needs --known-compiled-failures\n";
    return 2;
  }
  std::signal(SIGSEGV, on_crash);
  std::signal(SIGABRT, on_crash);

  std::vector<std::string> supported_list = uma::supported_onnx_ops();
  std::set<std::string> supported(supported_list.begin(), supported_list.end());
  std::map<std::string, std::string> excluded;
  if (!excluded_path.empty()) excluded = read_known_failures(excluded_path);
  std::set<std::string> excluded_seen;
  Outcomes interpreted("known_failures.txt", "", read_known_failures(known_path));
  Outcomes compiled_outcomes(
      fs::path(known_compiled_path).filename().string(), "(compiled) ",
      compiled ? read_known_failures(known_compiled_path) : std::map<std::string, std::string>{});
  CompiledMode mode;
  mode.options.compiler.cache_dir = cache_dir;
  mode.targets = targets;
  mode.constant_weights = constant_weights;

  std::vector<fs::path> tests;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory() && entry.path().filename().string().starts_with("test_"))
      tests.push_back(entry.path());
  if (ec || tests.empty()) {
    std::cerr << "onnx_conformance: no node tests in " << root << "\n";
    return 2;
  }
  std::sort(tests.begin(), tests.end());

  // Per family of the op each counted test is named after: tests, interpreted passes, and
  // passes both interpreted and compiled.
  struct FamilyCount {
    int tests = 0, interpreted = 0, both = 0;
  };
  std::map<std::string, FamilyCount> families;
  std::vector<std::string> not_supported;  // "name: ops", for the counted tests
  int total = 0, runnable = 0, with_constant_inputs = 0, counted = 0, counted_passing = 0;
  for (const fs::path& dir : tests) {
    std::string name = dir.filename().string();
    if (!filters.empty() &&
        std::none_of(filters.begin(), filters.end(), [&](const std::string& filter) {
          return name.find(filter) != std::string::npos;
        }))
      continue;
    ++total;
    bool is_excluded = excluded.count(name) != 0;
    ModelOps ops = model_ops(dir / "model.onnx", supported);
    FamilyCount* family = nullptr;
    if (is_excluded) {
      excluded_seen.insert(name);
    } else {
      ++counted;
      ModelOps named = ops;
      if (name.ends_with("_expanded")) {
        fs::path original = dir.parent_path() / name.substr(0, name.size() - 9) / "model.onnx";
        if (fs::exists(original)) named = model_ops(original, supported);
      }
      std::string family_name = uma::onnx_op_family(tested_op(name, named, supported_list));
      family = &families[family_name.empty() ? "(no converter)" : family_name];
      ++family->tests;
    }
    if (!ops.unsupported.empty()) {
      if (!is_excluded)
        not_supported.push_back(fmt::format("{}: {}", name, fmt::join(ops.unsupported, ", ")));
      continue;
    }
    ++runnable;
    std::snprintf(current_test, sizeof current_test, "%s", name.c_str());
    bool frozen = false;
    std::string compiled_failure;
    std::string failure =
        one_line(run_test(dir, frozen, compiled ? &mode : nullptr, compiled_failure), dir);
    if (is_excluded) {
      // Left out of the count, but it must not pass: then it belongs in the count.
      if (failure.empty()) {
        std::cout << "UNEXPECTEDLY PASSING " << name << " (remove it from "
                  << fs::path(excluded_path).filename().string() << ")\n";
        ++interpreted.problems;
      }
      continue;
    }
    with_constant_inputs += frozen;
    interpreted.record(name, failure, verbose);
    family->interpreted += failure.empty();
    // Compiled runs count for the tests the interpreter passes.
    if (compiled && failure.empty()) {
      std::string compiled_reason = one_line(compiled_failure, dir);
      compiled_outcomes.record(name, compiled_reason, verbose);
      failure = compiled_reason;
    }
    family->both += failure.empty();
    counted_passing += failure.empty();
  }
  if (filters.empty()) {
    for (const auto& [name, reason] : excluded)
      if (excluded_seen.count(name) == 0) {
        std::cout << "STALE " << name << ": listed in "
                  << fs::path(excluded_path).filename().string() << " but there is no such test\n";
        ++interpreted.problems;
      }
    interpreted.check_stale();
    if (compiled) compiled_outcomes.check_stale();
  }
  if (!write_path.empty())
    interpreted.write(
        write_path,
        "# ONNX node tests whose ops are all supported but that fail: name, then why.\n"
        "# tests/onnx/conformance_runner.cc fails on any failure not listed here, and on any\n"
        "# test listed here that passes.\n");
  if (!write_compiled_path.empty())
    compiled_outcomes.write(
        write_compiled_path,
        "# ONNX node tests the reference interpreter passes but that fail compiled for the\n"
        "# host: name, then why. tests/onnx/conformance_runner.cc --compiled fails on any\n"
        "# failure not listed here, and on any test listed here that passes.\n");
  double percent = runnable == 0 ? 0.0 : 100.0 * interpreted.passed / runnable;
  std::cout << fmt::format(
      "ONNX node tests: {} total, {} with all ops supported, {} passed, {} known failures, "
      "{} unexpected; {:.1f}% of the supported tests pass ({} ran with some inputs bound as "
      "constants)\n",
      total, runnable, interpreted.passed, interpreted.known_failed, interpreted.problems, percent,
      with_constant_inputs);
  if (compiled)
    std::cout << fmt::format(
        "compiled for the host: {} of the {} tests the interpreter passes pass, {} known "
        "failures, {} unexpected\n",
        compiled_outcomes.passed, interpreted.passed, compiled_outcomes.known_failed,
        compiled_outcomes.problems);
  for (const std::string& line : not_supported) std::cout << "NOT SUPPORTED " << line << "\n";
  std::cout << fmt::format("{:<16}{:>7}{:>13}{:>10}\n", "op family", "tests", "interpreted",
                           compiled ? "compiled" : "");
  for (const auto& [family, count] : families)
    std::cout << fmt::format("{:<16}{:>7}{:>13}{:>10}\n", family, count.tests, count.interpreted,
                             compiled ? std::to_string(count.both) : "");
  double counted_percent = counted == 0 ? 0.0 : 100.0 * counted_passing / counted;
  std::cout << fmt::format("{} of the {} tests counted ({} excluded: {}) pass{}: {:.1f}%\n",
                           counted_passing, counted, total - counted,
                           excluded_path.empty() ? "none listed" : excluded_path,
                           compiled ? " interpreted and compiled" : "", counted_percent);
  if (filters.empty() && counted_percent < min_pass_percent) {
    std::cout << fmt::format("BELOW THE BAR: {:.1f}% pass, {}% required\n", counted_percent,
                             min_pass_percent);
    ++interpreted.problems;
  }
  return interpreted.problems + compiled_outcomes.problems == 0 ? 0 : 1;
}
