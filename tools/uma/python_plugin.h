// Python backend plugins: `--plugin my_backend.py` runs the file in an embedded interpreter
// (the library python/plugin/ builds when pybind11 is found), and the backends it registers
// with uma.register_backend join the command's context like a C++ plugin's.
#pragma once

#include <string>

#include "uma/uma/context.h"

namespace uma::tool {

// Whether the plugin `path` is a Python file (.py).
bool is_python_plugin(const std::string& path);

// Runs the Python file, which must register at least one backend in `context`. Errors name
// the file: Python support was not built, its library cannot be loaded, the file raised (with
// the traceback) or registered nothing.
Status load_python_plugin(Context& context, const std::string& path);

// The first exception a Python plugin's predicate or extern-call printer raised since the last
// call, as an error naming the backend and the callback, with the traceback: the compiler only
// rejects the match (or prints the default call), so each command that partitions or builds
// asks here and fails. Success when none raised, or no Python plugin is loaded.
Status python_callback_failure();

}  // namespace uma::tool
