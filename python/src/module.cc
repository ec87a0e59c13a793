// The module uma._uma: the context, uma.Error, and the classes of the other files.
#include "bindings.h"

#include "backends/register.h"

namespace uma::python {
namespace {

thread_local FailureSink* current_sink = nullptr;
thread_local int callback_depth = 0;
Context* embedding_context = nullptr;

}  // namespace

void use_context(Context& context) { embedding_context = &context; }

Context& context() {
  if (embedding_context != nullptr) return *embedding_context;
  static Context* const instance = [] {
    auto* created = new Context();
    Status status = backends::register_builtin_backends(*created);
    UMA_CHECK(status.ok(), "{}", status.error().message());
    return created;
  }();
  return *instance;
}

Callable::Callable(py::object function, std::string what) : state_(std::make_shared<State>()) {
  state_->function = std::make_unique<py::object>(std::move(function));
  state_->what = std::move(what);
}

Callable::State::~State() {
  if (!Py_IsInitialized()) {
    (void)function.release();  // the interpreter is gone, and the object with it
    return;
  }
  py::gil_scoped_acquire gil;
  function.reset();
}

std::string traceback_text(py::error_already_set& e) {
  std::string traceback;
  try {
    py::object format = py::module_::import("traceback").attr("format_exception");
    for (py::handle line : format(e.type(), e.value(), e.trace()))
      traceback += line.cast<std::string>();
  } catch (py::error_already_set&) {
    traceback = e.what();
  }
  while (!traceback.empty() && traceback.back() == '\n') traceback.pop_back();
  return traceback;
}

Error Callable::failed(py::error_already_set& e) const {
  Error error = make_error("{} raised an exception:\n{}", state_->what, traceback_text(e));
  FailureSink::record(error);
  return error;
}

Callable::Nesting::Nesting() { ++callback_depth; }
Callable::Nesting::~Nesting() { --callback_depth; }
int Callable::Nesting::depth() const { return callback_depth; }

Error Callable::too_deep(int depth) const {
  Error error = make_error(
      "{} would run {} callbacks deep: a callback that builds or partitions re-enters the "
      "compiler, and at most {} callbacks may nest (does a backend's callback build for that "
      "backend?)",
      state_->what, depth, kMaxNesting);
  FailureSink::record(error);
  return error;
}

Error Callable::wrong_result(const std::string& expected) const {
  Error error = make_error("{} returned {}", state_->what, expected);
  FailureSink::record(error);
  return error;
}

FailureSink::FailureSink() : previous_(current_sink) { current_sink = this; }
FailureSink::~FailureSink() { current_sink = previous_; }

void FailureSink::record(const Error& error) {
  if (current_sink != nullptr) current_sink->failures_.push_back(error);
}

void FailureSink::check() const {
  if (!failures_.empty()) raise(failures_.front());
}

std::optional<Error> FailureSink::take_first() {
  std::optional<Error> first;
  if (!failures_.empty()) first = failures_.front();
  failures_.clear();
  return first;
}

PYBIND11_MODULE(_uma, m) {
  m.doc() =
      "uma, a deep-learning compiler: load, partition, build and run models, and write "
      "backends in Python";
  py::register_exception<PythonError>(m, "Error");
  bind_graph(m);
  bind_target(m);
  bind_tensor(m);
  bind_compile(m);
  bind_pattern(m);
  bind_lowering(m);
  bind_schedule(m);
  bind_backend(m);
}

}  // namespace uma::python
