// The executor: runs a compiled host function, a list of calls to generated functions
// through their uniform entry points `int32_t f(void* const* args)`.
//
// Every argument of a call points into the caller's inputs or outputs, a weight (a constant
// the build made), or the arena, one block that holds every intermediate at
// offsets the memory planner chose. The executor allocates the arena and the argument
// arrays when it is made; a run allocates nothing.
//
// Load-time state (uma/tir/state.h): a call whose function has one gets a state of its own
// in each executor (ArgLocation::kState), zeroed; the executor runs the calls' inits once
// when it is made and their finis when it is destroyed. So several executors can run one
// library at once, each with its own state.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "uma/graph/tensor.h"
#include "uma/runtime/library.h"
#include "uma/runtime/weights.h"

namespace uma::runtime {

// Where an argument of a call lives.
struct ArgLocation {
  enum class Kind : std::uint8_t { kInput, kOutput, kWeight, kArena, kState, kError };
  Kind kind = Kind::kArena;
  // The input, output or weight number, or the byte offset into the arena or the
  // executor's state block (64-byte aligned); unused for the error record (kError, the
  // executor's one record of run-time checks, uma/tir/run_checks.h).
  std::int64_t index = 0;
};

// One call of a generated function; its arguments in the function's parameter order.
struct HostCall {
  std::string name;  // the called graph function, for messages
  PackedFunction function = nullptr;
  std::vector<ArgLocation> args;
  // Load-time code on the same arguments (inputs and outputs null); may be null.
  PackedFunction init = nullptr, fini = nullptr;
  // The messages of the function's run-time checks, by site (from 1) less one.
  std::vector<std::string> checks;
};

// An output that no call writes: a copy of an input, a weight or another output, made
// after the calls.
struct OutputCopy {
  std::size_t output = 0;
  ArgLocation from;
};

// A compiled host function: what the executor runs.
struct HostProgram {
  std::vector<TensorType> inputs, outputs;
  std::vector<HostCall> calls;
  std::vector<OutputCopy> copies;
  Weights weights;
  std::int64_t arena_size = 0;
  // Bytes of the calls' states, which each executor holds (kState locations), zeroed.
  std::int64_t state_size = 0;
  // OpenMP's thread count for the calls (set even when it is 1, for the libraries the
  // code calls that use OpenMP); 0 leaves OpenMP's default.
  int threads = 0;
  // The library the calls' functions live in; kept loaded while the program is.
  std::shared_ptr<const Library> library;
};

// How long the calls of one generated function took, over the runs the executor profiled.
struct CallTiming {
  std::string name;        // the called graph function
  std::int64_t count = 0;  // its calls
  std::chrono::nanoseconds total{0};
};

// Runs a program. One run at a time (the arena and the state are the executor's own);
// make one executor per thread to run a program concurrently.
class Executor {
 public:
  // Makes an executor and runs the calls' inits: an error names the call whose init
  // failed (the finis of those before it have run then).
  static Expected<std::unique_ptr<Executor>> create(std::shared_ptr<const HostProgram> program);

  // Makes an executor and runs the calls' inits; when one fails, every run returns that
  // error (load_status()). create() reports it at once.
  explicit Executor(std::shared_ptr<const HostProgram> program);
  // Runs the finis of the calls whose init ran, in reverse order.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Whether the inits succeeded.
  const Status& load_status() const { return load_status_; }

  // Runs on the caller's buffers: dense row-major tensors of the program's input and
  // output types, outputs not overlapping any other buffer. Allocates nothing. Errors when
  // a count is wrong, a generated function fails (naming it) or one of its run-time checks
  // does ("the compiled function of @f: node 'g' (take): index 7 (element 1 of indices) is
  // out of range for axis 0 of size 4"); the outputs are unspecified then.
  Status run(std::span<const void* const> inputs, std::span<void* const> outputs);

  // Checks the inputs' types, allocates the outputs and runs.
  Expected<std::vector<TensorPtr>> run(const std::vector<TensorPtr>& inputs);

  const HostProgram& program() const { return *program_; }
  // The calls' states (ArgLocation::kState offsets into it): what the generated code keeps
  // between runs, for a test that reads it (a simulated DMA engine's counters, say).
  std::span<const std::byte> state() const { return std::as_const(*state_).bytes(); }

  // Times each call of the runs from now on (uma bench --profile), starting from zero; off
  // by default, when a run reads no clock.
  void set_profiling(bool on);
  // Per called function, in order of first call: its calls and their time since profiling
  // was turned on.
  std::vector<CallTiming> call_timings() const;

 private:
  std::shared_ptr<const HostProgram> program_;
  std::shared_ptr<Tensor> arena_;  // a u8 tensor: 64-byte aligned storage
  std::shared_ptr<Tensor> state_;  // the calls' states, likewise
  Status load_status_;
  std::size_t loaded_ = 0;  // the calls [0, loaded_) were initialized (their finis run)
  // The argument array of each call, weights and arena pointers filled in once.
  std::vector<std::vector<void*>> args_;
  // The error record of the calls' run-time checks: site, value, element.
  std::array<std::int64_t, 3> error_{};
  // (call, argument, location) of the arguments that are inputs or outputs, set per run.
  struct Patch {
    std::size_t call, arg;
    ArgLocation location;
  };
  std::vector<Patch> patches_;
  // Runs the finis of the initialized calls.
  void finish();
  using SetThreads = void (*)(int);
  SetThreads set_threads_ = nullptr;  // omp_set_num_threads, when the library uses OpenMP
  bool profiling_ = false;
  // Per call of the program while profiling: how often it ran, how long.
  std::vector<CallTiming> call_times_;
};

}  // namespace uma::runtime
