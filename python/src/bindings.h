// What the files of the Python module share: the context every object belongs to, uma's
// errors as the Python exception uma.Error, Python callables the compiler calls, and one
// function per file that adds its classes to the module.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "uma/support/error.h"
#include "uma/support/printable.h"
#include "uma/uma/context.h"

namespace uma::python {

namespace py = pybind11;

// The process's context: the built-in ops, passes and backends, and the backends Python
// registers. It is never destroyed: backends hold Python callables, which must not be
// released after the interpreter has finalized.
Context& context();
// Makes context() the embedding process's context (the `uma` tool's, when it loads a Python
// backend plugin), so that backends register where the process looks for them. Called once,
// before anything calls context().
void use_context(Context& context);

// uma's error as a C++ exception, which the module translates into uma.Error.
class PythonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The name of an object's type, for messages.
inline std::string type_name(py::handle object) {
  return py::str(py::type::of(object).attr("__name__")).cast<std::string>();
}

// A message that may quote bytes from a model or a file name is made valid UTF-8, which a
// Python string must be (an invalid one would reach Python as an empty message).
[[noreturn]] inline void raise(const Error& error) {
  throw PythonError(printable_utf8(error.message()));
}
inline void check(const Status& status) {
  if (!status.ok()) raise(status.error());
}
template <typename T>
T unwrap(Expected<T> expected) {
  if (!expected.ok()) raise(expected.error());
  return std::move(expected).value();
}

// A Python exception as Python prints it, "Traceback (most recent call last):" to the
// exception's line (no newline at the end). Called with the GIL held.
std::string traceback_text(py::error_already_set& e);

// A Python callable the compiler may copy and call from any thread while the GIL is
// released: copies share one reference (never touching Python's reference counts), each
// call takes the GIL, and the last copy releases the callable under the GIL. Hidden, as
// pybind11's types are, in a library whose other symbols bind to the tool's.
class __attribute__((visibility("hidden"))) Callable {
 public:
  // `what` names the callback in errors: "backend 'my_npu': the predicate of pattern 'conv2d'".
  Callable(py::object function, std::string what);
  // Calls the function with the GIL held, on `args` cast to Python (copies: graph objects go
  // as handles, handles.h), and `convert`s its result while the GIL is still held. A Python
  // exception becomes an Error naming the callback and holding the traceback; it is also
  // recorded in the calling thread's failure sink, if any (see FailureSink). A callback that
  // re-enters the compiler (a build in a graph pass) runs its callbacks nested in its own:
  // deeper than kMaxNesting is an error before the call, long before the C stack could run
  // out (a backend's pass that builds for the backend itself recurses without end).
  template <typename R, typename Convert, typename... Args>
  Expected<R> call(Convert&& convert, const Args&... args) const {
    py::gil_scoped_acquire gil;
    Nesting nesting;
    if (nesting.depth() > kMaxNesting) return too_deep(nesting.depth());
    try {
      return convert(py::handle((*state_->function)(args...)));
    } catch (py::error_already_set& e) {
      return failed(e);
    }
  }
  // The same Error for a result the callback returned of the wrong kind.
  Error wrong_result(const std::string& expected) const;
  // "backend 'my_npu': the predicate of pattern 'conv2d'".
  const std::string& what() const { return state_->what; }

  static constexpr int kMaxNesting = 16;

 private:
  struct State {
    std::unique_ptr<py::object> function;
    std::string what;
    ~State();
  };
  // Counts the callbacks running on this thread, this one included.
  class Nesting {
   public:
    Nesting();
    ~Nesting();
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    int depth() const;
  };
  Error failed(py::error_already_set& e) const;
  Error too_deep(int depth) const;
  std::shared_ptr<State> state_;
};

// Collects the callback failures of one partition or build on the thread that runs it: a
// predicate's exception only rejects its match inside the compiler, and the call that
// started the partitioning raises it instead.
class FailureSink {
 public:
  FailureSink();
  ~FailureSink();
  FailureSink(const FailureSink&) = delete;
  FailureSink& operator=(const FailureSink&) = delete;
  static void record(const Error& error);
  // Raises the first recorded failure, if any.
  void check() const;
  // The first recorded failure, if any, forgetting them all.
  std::optional<Error> take_first();

 private:
  FailureSink* previous_;
  std::vector<Error> failures_;
};

void bind_graph(py::module_& m);
void bind_target(py::module_& m);
void bind_tensor(py::module_& m);
void bind_compile(py::module_& m);
void bind_pattern(py::module_& m);
void bind_lowering(py::module_& m);
void bind_schedule(py::module_& m);
void bind_backend(py::module_& m);

}  // namespace uma::python
