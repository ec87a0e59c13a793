// Running a compiled host function (see executor.h).
#include "uma/runtime/executor.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "uma/tir/run_checks.h"

namespace uma::runtime {

namespace {

std::string status_text(std::int32_t status) {
  return fmt::format("{}{}", status, status == -1 ? " (a heap allocation in it failed)" : "");
}

// The first failed run-time check of `call` (uma/tir/run_checks.h), from its error record.
Error check_failure(const HostCall& call, const std::array<std::int64_t, 3>& record) {
  auto site = static_cast<std::uint64_t>(record[0]);
  if (site == 0 || site > call.checks.size())
    return Error(fmt::format("the compiled function of @{} reported check {} of {} (a bug)",
                             call.name, record[0], call.checks.size()));
  return Error(fmt::format("the compiled function of @{}: {}", call.name,
                           tir::check_failure(call.checks[site - 1], record[1], record[2])));
}

}  // namespace

Expected<std::unique_ptr<Executor>> Executor::create(std::shared_ptr<const HostProgram> program) {
  auto executor = std::make_unique<Executor>(std::move(program));
  UMA_TRY(executor->load_status());
  return executor;
}

Executor::Executor(std::shared_ptr<const HostProgram> program) : program_(std::move(program)) {
  UMA_CHECK(program_ != nullptr, "no program");
  arena_ = std::make_shared<Tensor>(TensorType{DType::u8, {program_->arena_size}});
  state_ = std::make_shared<Tensor>(TensorType{DType::u8, {program_->state_size}});
  std::byte* arena = arena_->bytes().data();
  std::byte* state = state_->bytes().data();
  args_.resize(program_->calls.size());
  for (std::size_t c = 0; c < program_->calls.size(); ++c) {
    const HostCall& call = program_->calls[c];
    UMA_CHECK(call.function != nullptr, "call of @{} has no function", call.name);
    args_[c].assign(call.args.size(), nullptr);
    for (std::size_t a = 0; a < call.args.size(); ++a) {
      const ArgLocation& location = call.args[a];
      switch (location.kind) {
        case ArgLocation::Kind::kWeight:
          args_[c][a] = const_cast<std::byte*>(
              program_->weights.address(static_cast<std::size_t>(location.index)));
          break;
        case ArgLocation::Kind::kArena:
          args_[c][a] = arena + location.index;
          break;
        case ArgLocation::Kind::kState:
          args_[c][a] = state + location.index;
          break;
        case ArgLocation::Kind::kError:
          args_[c][a] = error_.data();
          break;
        case ArgLocation::Kind::kInput:
        case ArgLocation::Kind::kOutput:
          patches_.push_back({c, a, location});
          break;
      }
    }
  }
  // The library's OpenMP (its own, or a library it links that uses OpenMP), else the
  // process's: a program of one thread still says so, or OpenMP would take every core.
  if (program_->threads > 0) {
    if (program_->library != nullptr)
      if (auto symbol = program_->library->symbol("omp_set_num_threads"))
        set_threads_ = reinterpret_cast<SetThreads>(*symbol);
    if (set_threads_ == nullptr)
      set_threads_ = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  }

  // The inits, on the arguments with inputs and outputs null (the patches are not applied).
  if (set_threads_ != nullptr) set_threads_(program_->threads);
  for (; loaded_ < program_->calls.size(); ++loaded_) {
    const HostCall& call = program_->calls[loaded_];
    if (call.init == nullptr) continue;
    std::int32_t status = call.init(args_[loaded_].data());
    if (status != 0) {
      load_status_ = make_error("the init of @{} returned {}", call.name, status_text(status));
      break;
    }
  }
  if (!load_status_.ok()) finish();
}

Executor::~Executor() { finish(); }

void Executor::finish() {
  // Finis see the arguments of the last run, or inputs and outputs null: they must not use
  // them either.
  for (const Patch& patch : patches_) args_[patch.call][patch.arg] = nullptr;
  if (set_threads_ != nullptr) set_threads_(program_->threads);
  for (; loaded_ > 0; --loaded_) {
    const HostCall& call = program_->calls[loaded_ - 1];
    // A failed fini has nobody to report to: the state is released all the same.
    if (call.fini != nullptr) (void)call.fini(args_[loaded_ - 1].data());
  }
}

Status Executor::run(std::span<const void* const> inputs, std::span<void* const> outputs) {
  const HostProgram& program = *program_;
  UMA_TRY(load_status_);
  if (inputs.size() != program.inputs.size() || outputs.size() != program.outputs.size())
    return make_error("the program takes {} input(s) and {} output(s), given {} and {}",
                      program.inputs.size(), program.outputs.size(), inputs.size(), outputs.size());
  auto address = [&](const ArgLocation& location) -> void* {
    switch (location.kind) {
      case ArgLocation::Kind::kInput:
        // Generated functions never write their input parameters.
        return const_cast<void*>(inputs[static_cast<std::size_t>(location.index)]);
      case ArgLocation::Kind::kOutput:
        return outputs[static_cast<std::size_t>(location.index)];
      case ArgLocation::Kind::kWeight:
        return const_cast<std::byte*>(
            program.weights.address(static_cast<std::size_t>(location.index)));
      case ArgLocation::Kind::kArena:
        return arena_->bytes().data() + location.index;
      case ArgLocation::Kind::kState:
        return state_->bytes().data() + location.index;
      case ArgLocation::Kind::kError:
        return error_.data();
    }
    return nullptr;
  };
  for (const Patch& patch : patches_) args_[patch.call][patch.arg] = address(patch.location);
  // OpenMP's thread count is a property of the calling thread: set it on each run.
  if (set_threads_ != nullptr) set_threads_(program.threads);
  error_.fill(0);
  for (std::size_t c = 0; c < program.calls.size(); ++c) {
    std::int32_t status = 0;
    if (profiling_) {
      auto start = std::chrono::steady_clock::now();
      status = program.calls[c].function(args_[c].data());
      call_times_[c].total += std::chrono::steady_clock::now() - start;
      ++call_times_[c].count;
    } else {
      status = program.calls[c].function(args_[c].data());
    }
    if (status != 0)
      return make_error("the compiled function of @{} returned {}", program.calls[c].name,
                        status_text(status));
    if (error_[0] != 0) return check_failure(program.calls[c], error_);
  }
  for (const OutputCopy& copy : program.copies) {
    std::int64_t bytes = program.outputs[copy.output].num_bytes();
    if (bytes > 0)
      std::memmove(outputs[copy.output], address(copy.from), static_cast<std::size_t>(bytes));
  }
  return Status::success();
}

void Executor::set_profiling(bool on) {
  profiling_ = on;
  call_times_.assign(program_->calls.size(), {});
  for (std::size_t c = 0; c < call_times_.size(); ++c)
    call_times_[c].name = program_->calls[c].name;
}

std::vector<CallTiming> Executor::call_timings() const {
  std::vector<CallTiming> merged;
  for (const CallTiming& call : call_times_) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const CallTiming& entry) { return entry.name == call.name; });
    if (it == merged.end()) it = merged.insert(merged.end(), {call.name});
    it->count += call.count;
    it->total += call.total;
  }
  return merged;
}

Expected<std::vector<TensorPtr>> Executor::run(const std::vector<TensorPtr>& inputs) {
  const HostProgram& program = *program_;
  if (inputs.size() != program.inputs.size())
    return make_error("the program takes {} input(s), given {}", program.inputs.size(),
                      inputs.size());
  std::vector<const void*> input_data;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr || !inputs[i]->has_data())
      return make_error("input {} holds no data", i);
    if (!(inputs[i]->type() == program.inputs[i]))
      return make_error("input {} is {}, but the program takes {}", i,
                        to_string(Type(inputs[i]->type())), to_string(Type(program.inputs[i])));
    input_data.push_back(inputs[i]->bytes().data());
  }
  std::vector<std::shared_ptr<Tensor>> outputs;
  std::vector<void*> output_data;
  for (const TensorType& type : program.outputs) {
    outputs.push_back(std::make_shared<Tensor>(type));
    output_data.push_back(outputs.back()->bytes().data());
  }
  UMA_TRY(run(input_data, output_data));
  return std::vector<TensorPtr>(outputs.begin(), outputs.end());
}

}  // namespace uma::runtime
