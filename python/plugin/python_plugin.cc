// uma_python_plugin: what the `uma` tool loads to run a Python backend (`--plugin
// my_backend.py`). It embeds Python, makes `import uma` give the bindings compiled into this
// library, bound to the tool's context, and runs the file as a script, whose
// uma.register_backend(...) then registers into the tool's registries. Like a C++ plugin it
// links none of the compiler: its references resolve against the tool.
#include <dlfcn.h>
#include <pybind11/embed.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "../src/bindings.h"
#include "uma/uma/backend.h"
#include "uma/uma/context.h"
#include "uma/uma/plugin.h"

extern "C" PyObject* PyInit__uma();

namespace uma::python {
namespace {

// The folder holding the package uma/, which holds this library.
std::string package_parent() {
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&package_parent), &info);
  return std::filesystem::path(info.dli_fname).parent_path().parent_path().string();
}

// Starts the interpreter once. The tool loads this library privately (RTLD_LOCAL), and with it
// libpython; extension modules (numpy's) take Python's symbols from the global scope, where
// libpython is promoted first. The module uma._uma is this library's bindings, so that
// `import uma` finds them rather than the extension built beside the package, which holds a
// compiler and a context of its own. The interpreter is never finalized: the backends it
// registers live as long as the tool's context.
void start_interpreter(Context& context) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Py_IsInitialized), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  use_context(context);
  py::initialize_interpreter(/*init_signal_handlers=*/false);
  py::module_::import("sys").attr("path").attr("insert")(0, package_parent());
  py::object bindings = py::reinterpret_steal<py::object>(PyInit__uma());
  if (!bindings) throw py::error_already_set();
  py::module_::import("sys").attr("modules")["uma._uma"] = bindings;
  // Released for good: the compiler's threads take it to call the backends' callbacks.
  PyEval_SaveThread();
}

// os._exit would end the tool in the middle of loading, with the status the plugin chose and
// no word of why; while the file runs it raises instead, and the loading fails saying so.
// (sys.exit raises SystemExit, which the loading reports already.)
class ExitRefused {
 public:
  ExitRefused() : os_(py::module_::import("os")), exit_(os_.attr("_exit")) {
    os_.attr("_exit") = py::cpp_function([](py::object status) {
      throw std::runtime_error(fmt::format(
          "os._exit({}) was called while the plugin loads; a plugin registers its backends and "
          "returns, and uma stops with an error instead",
          py::str(status).cast<std::string>()));
    });
  }
  // Without exceptions: it may run while one unwinds.
  ~ExitRefused() {
    if (PyObject_SetAttrString(os_.ptr(), "_exit", exit_.ptr()) != 0) PyErr_Clear();
  }
  ExitRefused(const ExitRefused&) = delete;
  ExitRefused& operator=(const ExitRefused&) = delete;

 private:
  py::module_ os_;
  py::object exit_;
};

Status run_file(Context& context, const std::string& path) {
  py::gil_scoped_acquire gil;
  std::size_t before = context.backends().names().size();
  try {
    py::module_ sys = py::module_::import("sys");
    std::string folder = std::filesystem::absolute(path).parent_path().string();
    // As `python3 path` would: its folder first on the path, so that it imports its neighbours.
    sys.attr("path").attr("insert")(0, folder);
    py::list argv;
    argv.append(path);
    sys.attr("argv") = argv;
    ExitRefused refused;
    py::module_::import("runpy").attr("run_path")(path, py::arg("run_name") = "__main__");
  } catch (py::error_already_set& e) {
    return make_error("running it raised an exception:\n{}", traceback_text(e));
  } catch (const std::exception& e) {
    return make_error("running it failed: {}", e.what());
  }
  if (context.backends().names().size() == before)
    return make_error(
        "it registered no backend: a Python backend plugin calls "
        "uma.register_backend(MyBackend()) when it runs");
  return Status::success();
}

}  // namespace
}  // namespace uma::python

extern "C" __attribute__((visibility("default"))) const std::uint32_t uma_plugin_api_version =
    uma::kPluginApiVersion;

namespace {

// The failures of the callbacks the tool's commands run, on the tool's thread (the one that
// loads plugins): made with the first load, so that it is that thread's sink.
uma::python::FailureSink& tool_failures() {
  static uma::python::FailureSink sink;
  return sink;
}

}  // namespace

// Runs the Python file `path`, which registers its backends in `context`.
extern "C" __attribute__((visibility("default"))) uma::Status uma_python_plugin_load(
    uma::Context& context, const std::string& path) {
  namespace py = pybind11;
  tool_failures();
  if (!Py_IsInitialized()) {
    try {
      uma::python::start_interpreter(context);
    } catch (py::error_already_set& e) {
      return uma::make_error("starting Python failed: {}", e.what());
    }
  }
  return uma::python::run_file(context, path);
}

// The first exception a predicate or an extern-call printer raised since the last call, as
// an error (the compiler only rejected the match, or printed the default call); success when
// none did.
extern "C" __attribute__((visibility("default"))) uma::Status uma_python_plugin_failure() {
  std::optional<uma::Error> first = tool_failures().take_first();
  if (first) return *first;
  return uma::Status::success();
}
