// Building real models for the host: uma's own pipeline time from ONNX to C source, the C
// compiler's time, the arena against its lower bound and against the sum of the
// intermediates, and inference latency compiled against the reference interpreter.
// Targets: ONNX -> C (import and graph passes included) under 0.5 s for ResNet-50, the
// arena within 1.05x its lower bound.
//
// usage: bench_host_build MODEL.onnx... [--runs N] [--threads T] [--cflags "..."]
//                         [--no-interpreter]
//   Each model is compiled with a fresh object cache, so the compile time is real.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "uma/frontend/onnx/importer.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const Error& error) {
  fmt::print(stderr, "bench_host_build: {}\n", error.message());
  std::exit(1);
}

template <typename T>
T value_or_fail(Expected<T> expected) {
  if (!expected) fail(expected.error());
  return std::move(*expected);
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The process's CPU time: what a run costs even when other processes share the cores.
double cpu_ms() { return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double ms(std::chrono::nanoseconds elapsed) { return static_cast<double>(elapsed.count()) / 1e6; }

double stage_ms(const build::HostBuild& built, const std::string& stage) {
  for (const build::StageTiming& t : built.timings)
    if (t.stage == stage) return ms(t.elapsed);
  return 0;
}

struct Options {
  std::vector<std::string> models;
  int runs = 10;
  int threads = 1;
  std::string cflags;
  bool interpreter = true;
};

void bench(const std::string& path, const Options& options) {
  namespace fs = std::filesystem;
  Context context;
  Clock::time_point start = Clock::now();
  auto module = value_or_fail(import_onnx_file(context, path));
  double import_ms = ms_since(start);

  const Function& main = *module->find_function("main");
  std::vector<TensorPtr> inputs = random_inputs(main, 1);
  double interpreter_ms = 0, interpreter_cpu_ms = 0;
  if (options.interpreter) {
    start = Clock::now();
    double cpu_start = cpu_ms();
    value_or_fail(interpret(*module, inputs));
    interpreter_ms = ms_since(start);
    interpreter_cpu_ms = cpu_ms() - cpu_start;
  }

  build::BuildOptions build_options;
  std::istringstream flags(options.cflags);
  for (std::string flag; flags >> flag;) build_options.compiler.compile_flags.push_back(flag);
  fs::path cache = fs::temp_directory_path() / fmt::format("uma-bench-cache-{}", ::getpid());
  fs::remove_all(cache);
  build_options.compiler.cache_dir = cache.string();
  start = Clock::now();
  build::HostBuild built = value_or_fail(
      build::build(*module, {fmt::format("c --threads={}", options.threads)}, build_options));
  // The graph passes (partitioning, the host's layout and weight packing) are no stage of
  // their own: what the build took beyond its stages.
  double graph_ms = ms_since(start);
  for (const build::StageTiming& t : built.timings) graph_ms -= ms(t.elapsed);
  fs::remove_all(cache);

  runtime::Executor executor(built.program);
  std::vector<std::shared_ptr<Tensor>> outputs;
  std::vector<const void*> input_data;
  std::vector<void*> output_data;
  for (const TensorPtr& input : inputs) input_data.push_back(input->bytes().data());
  for (const TensorType& type : built.program->outputs) {
    outputs.push_back(std::make_shared<Tensor>(type));
    output_data.push_back(outputs.back()->bytes().data());
  }
  if (Status s = executor.run(input_data, output_data); !s) fail(s.error());  // warm-up
  std::vector<double> wall, cpu;
  for (int r = 0; r < options.runs; ++r) {
    start = Clock::now();
    double cpu_start = cpu_ms();
    if (Status s = executor.run(input_data, output_data); !s) fail(s.error());
    wall.push_back(ms_since(start));
    cpu.push_back(cpu_ms() - cpu_start);
  }
  double latency = median(wall), latency_cpu = median(cpu);

  double to_c = graph_ms + stage_ms(built, "fuse-ops") + stage_ms(built, "lower") +
                stage_ms(built, "tir") + stage_ms(built, "codegen");
  std::size_t c_bytes = 0;
  for (const runtime::CSourceFile& file : built.sources) c_bytes += file.code.size();
  const build::MemoryReport& m = built.memory;
  auto mib = [](std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  fmt::print("{}\n", fs::path(path).parent_path().filename().string());
  fmt::print(
      "  pipeline ONNX -> C: {:.0f} ms (import {:.0f}, graph passes {:.0f}, fuse-ops {:.0f}, lower "
      "{:.0f}, tir {:.0f}, codegen {:.0f}); {} functions, {} calls, {:.1f} MB of C in {} files\n",
      import_ms + to_c, import_ms, graph_ms, stage_ms(built, "fuse-ops"), stage_ms(built, "lower"),
      stage_ms(built, "tir"), stage_ms(built, "codegen"), built.functions,
      built.program->calls.size(), static_cast<double>(c_bytes) / 1e6, built.sources.size());
  fmt::print("  C compiler: {:.1f} s ({} objects), plan {:.1f} ms, load {:.1f} ms\n",
             stage_ms(built, "compile") / 1000, built.compiler_stats.compiled,
             stage_ms(built, "plan"), stage_ms(built, "load"));
  fmt::print(
      "  arena {:.2f} MiB for {} intermediates: {:.3f}x the lower bound ({:.2f} MiB), {:.3f}x "
      "the sum ({:.2f} MiB); weights {:.1f} MiB\n",
      mib(m.arena_size), m.buffers,
      m.lower_bound ? static_cast<double>(m.arena_size) / static_cast<double>(m.lower_bound) : 1.0,
      mib(m.lower_bound),
      m.total ? static_cast<double>(m.arena_size) / static_cast<double>(m.total) : 1.0,
      mib(m.total), mib(built.program->weights.size()));
  fmt::print("  latency: compiled {:.1f} ms wall, {:.1f} ms CPU (median of {}, {} thread(s))",
             latency, latency_cpu, options.runs, options.threads);
  if (options.interpreter)
    fmt::print(
        "; reference interpreter {:.0f} ms wall, {:.0f} ms CPU: compiled/interpreter {:.2f}x "
        "wall, {:.2f}x CPU",
        interpreter_ms, interpreter_cpu_ms, latency / interpreter_ms,
        latency_cpu / interpreter_cpu_ms);
  fmt::print("\n");
}

}  // namespace
}  // namespace uma

int main(int argc, char** argv) {
  uma::Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc)
      options.runs = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--threads" && i + 1 < argc)
      options.threads = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--cflags" && i + 1 < argc)
      options.cflags = argv[++i];
    else if (arg == "--no-interpreter")
      options.interpreter = false;
    else if (!arg.empty() && arg[0] == '-')
      uma::fail(uma::make_error("unknown argument {}", arg));
    else
      options.models.push_back(arg);
  }
  if (options.models.empty()) {
    fmt::print(stderr,
               "usage: bench_host_build MODEL.onnx... [--runs N] [--threads T] [--cflags \"...\"] "
               "[--no-interpreter]\n");
    return 2;
  }
  for (const std::string& model : options.models) uma::bench(model, options);
  return 0;
}
